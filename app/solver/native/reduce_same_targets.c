/* Same targets (docs/solver.md, "Pruning"): of the moves from one source that give
 * positions with the same key, the search tries one. The same card onto a second
 * foundation with the same top, the same cards into a second empty pile, a whole pile
 * into an empty pile: the key holds the foundations as their sorted tops and the tableau
 * as a multiset of piles, so each gives a position with the key of one tried already (or
 * of its parent), which the transposition table would skip anyway: sound for proofs of
 * loss. It drops such moves as a frame's children are made (the twin hook), before a
 * restart's jitter draws for them; not up to run arrangement, whose children
 * (arrangements.c) are made apart. */
#include "frames.h"

/* Add `mark` to the set marks[0 .. *len); false when it was there already. Newest first:
 * the moves of one source and count into each empty pile come one after another. */
static bool mark_new(int *marks, int *len, int mark)
{
    for (int i = *len; i-- > 0;)
        if (marks[i] == mark)
            return false;
    marks[(*len)++] = mark;
    return true;
}

/* A move onto a foundation or into an empty pile: one with the key of one made before it
 * in the frame (marked in `met`), or a whole pile into an empty pile? */
static bool twin(const Position *p, const Move *move, Targets *met)
{
    int source = move->src_kind * MAX_PILES + move->src;
    if (move->dst_kind == FOUNDATION) {
        const FoundationPile *top = &p->foundations[move->dst];
        return !mark_new(met->found, &met->found_len,
                         source * 64 + (top->len ? top->cards[top->len - 1] + 1 : 0));
    }
    if (!mark_new(met->empty, &met->empty_len, source * 128 + move->count))
        return true;  /* a second empty pile is the same position */
    return move->src_kind == TABLEAU && move->count == p->tableau[move->src].len;  /* whole */
}

static bool wanted_when(const Limits *limits) { return !limits->arranged; }

const Reduction SAME_TARGETS = {
    .name = "same targets", .sound_for_loss = true, .wanted = wanted_when, .twin = twin};
