/* Obligations (docs/solver.md, "Obligations"): a move whose only effect is to uncover a
 * card (splitting a run) or to empty a pile is tried only paired with a move that uses
 * what it uncovered (follow_ups, followups.c). Such a move changes nothing anyone else
 * could use, so a winning line can postpone it to just before the next move on that pile
 * (or, where single cards move, onto the card it moved), which must then use it; moving
 * the top card with the split-off cards replaces the case left where runs move together.
 * Sound for proofs of loss. */
#define _POSIX_C_SOURCE 199309L /* arrays.h: clock_gettime */
#include "frames.h"

#include <string.h>

#include "arrays.h"
#include "scores.h"

/* The top frame's child at `at` replaced by expand's `n` pairs (s->pairs), in place. */
static bool replace_child(Search *s, Frame *frame, size_t at, int n)
{
    if (!reserve_room((void **)&s->kids, &s->kids_cap, s->kids_len + (size_t)n, sizeof(Child)))
        return false;
    memmove(&s->kids[at + (size_t)n], &s->kids[at + 1], (s->kids_len - at - 1) * sizeof(Child));
    memcpy(&s->kids[at], s->pairs, (size_t)n * sizeof(Child));
    s->kids_len = s->kids_len + (size_t)n - 1;
    frame->count = frame->count + (size_t)n - 1;
    return true;
}

#ifdef SOLVER_CHECKS
#include <stdio.h>

/* Built with -DSOLVER_CHECKS: an expansion read from a peek gives the pairs that playing
 * the move in full, settling and undoing gives. */
static void check_expansion(Search *s, const Move *move, int must_use, uint32_t from, int n)
{
    Child peeked[MAX_MOVES];
    memcpy(peeked, s->pairs, (size_t)n * sizeof(Child));
    Undo mid[1 + MAX_CARDS];
    apply_undoable(s->t, &s->at, move, &mid[0]);
    int played = 1 + settle_undoable(s->t, &s->at, s->rule, mid + 1);
    int played_n = s->space->follow_ups(s->t, &s->at, must_use, move, from, s->pairs);
    for (int i = played; i-- > 0;)
        undo_move(s->t, &s->at, &mid[i]);
    bool same = played == 1 && played_n == n;
    for (int i = 0; same && i < n; i++)
        same = s->pairs[i].score == peeked[i].score && s->pairs[i].kind == peeked[i].kind
            && move_equal(&s->pairs[i].move, &peeked[i].move)
            && s->pairs[i].move.count == peeked[i].move.count;
    if (!same) {
        fprintf(stderr, "SOLVER_CHECKS: a peeked expansion differs from the played one\n");
        abort();
    }
    memcpy(s->pairs, peeked, (size_t)n * sizeof(Child));
}
#endif

/* expand's pairs read from a peek (peeks() holds): most obligated
 * moves turn nothing up, refill nothing, and leave no safe move (could_settle's look, for
 * such a move: the new top of the pile it left): their follow-ups are read from the piles
 * moved for a look (peek_move), the position is not played and undone in full. Returns
 * how many pairs, or -1 where the move leaves a top settle takes (then it is played). */
static int peeked_pairs(Search *s, Frame *frame, const Move *move, int must_use)
{
    const Tables *t = s->t;
    /* Runs onto the pile from the piles a reduction leaves (reduce_passed_over.c: after
     * a bare draw, only those that could leave a top settle takes). */
    uint32_t from = s->hooks.pair_sources ? s->hooks.pair_sources(s, frame, move) : ALL_PILES;
    Peek peek;
    peek_move(t, &s->at, move, &peek);
    bool settles = safe_tableau_top(t, &s->at, move->src, s->rule);
    int n = 0;
    if (!settles)
        n = s->space->follow_ups(t, &s->at, must_use, move, from, s->pairs);
    peek_back(&s->at, move, &peek);
    if (settles)
        return -1;
    s->prefixes[frame->prefix] = *move;
    frame->prefix_len = 1;
    s->prefixes_len += 1;
#ifdef SOLVER_CHECKS
    check_expansion(s, move, must_use, from, n);
#endif
    if (s->hooks.thin_pairs)
        n = s->hooks.thin_pairs(s, frame, move, n, must_use, true);
    return n;
}

/* expand's pairs with the move played: built at `mid`, the frame's position after the
 * move and settle, played on `at` and undone after (a copy per expansion cost 3% of the
 * search). */
static int played_out_pairs(Search *s, Frame *frame, const Move *move, int must_use)
{
    const Tables *t = s->t;
    Undo mid[1 + MAX_CARDS];
    int before = s->at.tableau[must_use].len, n;
    apply_undoable(t, &s->at, move, &mid[0]);
    int played = 1;
    if (s->space->settles(t, &s->at, mid, 1, s->rule))
        played += settle_undoable(t, &s->at, s->rule, mid + 1);
    for (int i = 0; i < played; i++)
        s->prefixes[frame->prefix + (size_t)i] = mid[i].move;
    frame->prefix_len = (size_t)played;
    s->prefixes_len += frame->prefix_len;
    /* Did settle take the uncovered card up? The move took its cards off must_use, and
     * safe moves only take cards off piles, so the pile is as the move left it unless it
     * is shorter. */
    if (played > 1 && s->at.tableau[must_use].len != before - move->count) {
        put_child(s->pairs, PAIRED, move, NO_USE, CHILD_PLAIN);  /* the uncovered card went up */
        n = 1;
    } else {
        n = s->space->follow_ups(t, &s->at, must_use, move, ALL_PILES, s->pairs);
    }
    for (int i = played; i-- > 0;)
        undo_move(t, &s->at, &mid[i]);
    /* The pairs after the move's one-move prefix, or the move alone (the uncovered card
     * went up), played as a plain child. */
    if (s->hooks.thin_pairs && (played == 1 || (n == 1 && s->pairs[0].kind == CHILD_PLAIN)))
        n = s->hooks.thin_pairs(s, frame, played == 1 ? move : NULL, n, must_use, false);
    return n;
}

/* expand: the top frame's next child, an obligated move, replaced in place by that move
 * paired with each of its follow-ups (the frame keeps the move and the safe moves after
 * it as its prefix). In a frame reached by a bare draw, less the pairs passed over
 * (reduce_passed_over.c). False: out of memory. */
static bool expand(Search *s, Frame *frame)
{
    size_t at = frame->first + frame->next;
    Move move = s->kids[at].move;
    int must_use = s->kids[at].must_use;
    /* The frame's earlier prefix is spent (its pairs came before this placeholder). */
    s->prefixes_len = frame->prefix;
    if (!reserve_room((void **)&s->prefixes, &s->prefixes_cap, s->prefixes_len + 1 + MAX_CARDS,
                      sizeof(Move)))
        return false;
    int n = -1;
    if (peeks(s->t, &s->at, &move))  /* no child up to run arrangement is obligated */
        n = peeked_pairs(s, frame, &move, must_use);
    if (n < 0)
        n = played_out_pairs(s, frame, &move, must_use);
    return replace_child(s, frame, at, n);
}

/* Moves that split a run or empty a pile come as OBLIGED children (children.c); with no
 * reduction to expand them the driver plays them as plain children (search.c). */
const Reduction OBLIGATIONS = {.name = "obligations", .sound_for_loss = true, .expands = expand};
