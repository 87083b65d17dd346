/* Same targets (docs/solver.md, "Pruning"): of the moves from one source that give
 * positions with the same key, the search tries one. The same card onto a second
 * foundation with the same top, the same cards into a second empty pile, a whole pile
 * into an empty pile: the key holds the foundations as their sorted tops and the tableau
 * as a multiset of piles, so each gives a position with the key of one tried already (or
 * of its parent), which the transposition table would skip anyway: sound for proofs of
 * loss. children.c's scored_moves does the pruning; this sets it on. */
#include "frames.h"

static bool prepare(Search *s, const Position *start, const Limits *limits, double deadline)
{
    (void)start, (void)limits, (void)deadline;
    s->twins_once = true;
    return true;
}

const Reduction SAME_TARGETS = {
    .name = "same targets", .sound_for_loss = true, .prepare = prepare};
