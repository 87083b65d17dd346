/* Straight back (docs/solver.md, "Pruning"): a frame's children skip the move straight
 * back where its last step came from. STRAIGHT_BACK only where that step was the move
 * alone, with no safe move after it, no card turned up and no reserve refill: the move
 * back then gives the parent exactly, which is in the table already, so the skip changes
 * nothing: sound for proofs of loss. STRAIGHT_BACK_LOOSE after any step (narrow
 * restarts: it finds wins sooner), which can hide a new position (a card moved off a
 * face-down card and back onto the card turned up): not sound for proofs of loss. */
#include "frames.h"

/* Would playing the child's move straight back give its parent exactly (no safe moves
 * after it, no card turned up, no reserve refill)? Only then do its children skip that
 * move (docs/solver.md, "Straight back"). */
static bool goes_back(const Search *s, const Undo *line, int len)
{
    if (len != 1)
        return false;
    const Move *move = &line[0].move;
    return !(move->action == MOVE && move->src_kind == TABLEAU
             && (line[0].refilled || s->at.tableau[move->src].hidden != line[0].hidden));
}

static bool always(const Search *s, const Undo *line, int len)
{
    (void)s, (void)line, (void)len;
    return true;
}

static bool full(const Limits *limits) { return !limits->narrow; }

static bool narrow(const Limits *limits) { return limits->narrow; }

const Reduction STRAIGHT_BACK = {
    .name = "straight back", .sound_for_loss = true, .wanted = full, .goes_back = goes_back};
const Reduction STRAIGHT_BACK_LOOSE = {.name = "straight back after any step",
                                       .sound_for_loss = false, .wanted = narrow,
                                       .goes_back = always};
