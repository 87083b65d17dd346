/* Same targets (docs/solver.md, "Pruning"): of the moves from one source that give
 * positions with the same key, the search tries one. The same card onto a second
 * foundation with the same top, the same cards into a second empty pile, a whole pile
 * into an empty pile: the key holds the foundations as their sorted tops and the tableau
 * as a multiset of piles, so each gives a position with the key of one tried already (or
 * of its parent), which the transposition table would skip anyway: sound for proofs of
 * loss. It prunes a frame's children as they are made, before a restart's jitter draws
 * for them; not up to run arrangement, whose children (arrangements.c) are made apart. */
#include "frames.h"

/* Add `mark` to the set marks[0 .. *len); false when it was there already. */
static bool mark_new(int *marks, int *len, int mark)
{
    for (int i = 0; i < *len; i++)
        if (marks[i] == mark)
            return false;
    marks[(*len)++] = mark;
    return true;
}

/* Is this child one of the moves with the key of one made before it (marked in
 * `found` and `empty`), or a whole pile into an empty pile? */
static bool same_target(const Position *p, const Move *move, int *found, int *found_len,
                        int *empty, int *empty_len)
{
    if (move->action != MOVE)
        return false;
    int source = move->src_kind * MAX_PILES + move->src;
    if (move->dst_kind == FOUNDATION) {
        const FoundationPile *top = &p->foundations[move->dst];
        return !mark_new(found, found_len,
                         source * 64 + (top->len ? top->cards[top->len - 1] + 1 : 0));
    }
    if (p->tableau[move->dst].len)
        return false;
    if (!mark_new(empty, empty_len, source * 128 + move->count))
        return true;  /* a second empty pile is the same position */
    return move->src_kind == TABLEAU && move->count == p->tableau[move->src].len;  /* whole */
}

static int prunes(Search *s, Child *out, int n)
{
    int found[MAX_MOVES], empty[MAX_MOVES], found_len = 0, empty_len = 0, kept = 0;
    for (int i = 0; i < n; i++)
        if (!same_target(&s->at, &out[i].move, found, &found_len, empty, &empty_len))
            out[kept++] = out[i];
    return kept;
}

static bool wanted_when(const Limits *limits) { return !limits->arranged; }

const Reduction SAME_TARGETS = {
    .name = "same targets", .sound_for_loss = true, .wanted = wanted_when, .prunes = prunes};
