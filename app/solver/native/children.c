/* The frame's children and the three spaces a search walks (frames.h, Space): plain and
 * narrow (scored_moves: the legal moves worth trying, less those the reductions' twin
 * hook drops (same targets), scored; narrow ones take nothing back from a foundation and
 * pair splits only with whole runs, followups.c) and up to run arrangement
 * (arrangements.c's children and key). Then the restarts' jitter, the reductions' drops
 * and the sort. */
#include "frames.h"

#include <string.h>

#include "keys.h"
#include "scores.h"

static bool straight_back(const Move *last, const Move *move)
{
    return last && last->action == MOVE && last->src_kind == move->dst_kind
        && last->src == move->dst && last->dst_kind == move->src_kind
        && last->dst == move->src && last->count == move->count;
}

/* A foundation move of scored_moves: its score, or -1 when it is not worth trying. */
static int foundation_score(const Position *p, const Move *move)
{
    if (move->src_kind == TABLEAU) {
        const TableauPile *pile = &p->tableau[move->src];
        int left = pile->len - 1;
        /* also turns up or empties */
        return left == 0 || pile->hidden == left ? FOUNDATION_UNCOVERS : TO_FOUNDATION;
    }
    return move->src_kind == FOUNDATION ? -1 : TO_FOUNDATION;
}

/* A move between tableau piles of scored_moves: its score and obligation. */
static int tableau_score(const Tables *t, const Position *p, const Move *move, bool to_empty,
                         int *must_use)
{
    const TableauPile *pile = &p->tableau[move->src];
    int down = pile->hidden;
    *must_use = NO_USE;
    if (move->count != pile->len - down) {
        *must_use = move->src;
        return to_empty ? SPLIT_TO_EMPTY : SPLIT_RUN;  /* splits a run */
    }
    if (down)
        return TURN_UP + down;  /* turns a card up */
    if (to_empty)
        return EMPTY_PILE;  /* whole pile to an empty pile: same targets drops it */
    if (t->reserve_fills_empty && p->reserve.len)
        return REFILLED;  /* the reserve refills it: progress */
    *must_use = move->src;
    return EMPTY_PILE;  /* empties a pile */
}

/* A move of scored_moves: its score (and obligation), or -1 when it is not tried (a
 * move onto a foundation or into an empty pile also when the twin hook drops it). */
static int move_score(Search *s, const Position *p, const Move *move, const Move *last,
                      bool narrow, int *must_use, Targets *met)
{
    *must_use = NO_USE;
    if (move->action != MOVE)
        return move->action == DRAW ? s->draw_score : REDEAL_LAST;
    if (straight_back(last, move))
        return -1;  /* straight back where it came from */
    TwinHook *twin = s->hooks.twin;
    if (move->dst_kind == FOUNDATION)
        return twin && twin(p, move, met) ? -1 : foundation_score(p, move);
    bool to_empty = !p->tableau[move->dst].len;
    if (to_empty && twin && twin(p, move, met))
        return -1;
    if (move->src_kind == TABLEAU)
        return tableau_score(s->t, p, move, to_empty, must_use);
    if (move->src_kind == FOUNDATION)  /* the narrow search takes nothing back down */
        return narrow ? -1 : FROM_FOUNDATION;
    return to_empty ? FROM_WASTE_TO_EMPTY : FROM_WASTE;  /* waste or reserve */
}

/* The legal moves worth trying, as children with their scores, an obligated move (a
 * split or a pile emptied) as an OBLIGED child. Returns how many went to `out`. */
static inline int scored_moves(Search *s, const Position *p, const Move *last, Child *out,
                               bool narrow)
{
    int n = legal_moves(s->t, p, s->moves), k = 0;
    Targets met;
    met.found_len = met.empty_len = 0;
    for (int i = 0; i < n; i++) {
        int must_use, score = move_score(s, p, &s->moves[i], last, narrow, &must_use, &met);
        if (score >= 0)
            put_child(&out[k++], score, &s->moves[i], must_use,
                      must_use == NO_USE ? CHILD_PLAIN : CHILD_OBLIGED);
    }
    return k;
}

static int plain_moves(Search *s, const Position *p, const Move *last, Child *out)
{
    return scored_moves(s, p, last, out, false);
}

static int narrow_moves(Search *s, const Position *p, const Move *last, Child *out)
{
    return scored_moves(s, p, last, out, true);
}

static int wide_follow_ups(const Tables *t, Position *p, int index, const Move *last,
                           uint32_t from, Child *out)
{
    return follow_ups(t, p, index, last, false, from, out);
}

static int narrow_follow_ups(const Tables *t, Position *p, int index, const Move *last,
                             uint32_t from, Child *out)
{
    return follow_ups(t, p, index, last, true, from, out);
}

/* The children up to run arrangement: arranged_children's, best first already. */
static int arranged_kids(Search *s, const Position *p, const Move *last, Child *out)
{
    (void)last;
    int8_t want[DECK];
    wanted(s->t, p, want);
    int n = arranged_children(s->t, p, want, s->draw_score, s->arranged_kids);
    for (int i = 0; i < n; i++) {
        /* into Child's shape: the before list is a clear, a clear and `then`, or a clear,
         * `then` and the card up, the move the rejoin (arrangements.c, foundation_child) */
        const ArrangedChild *kid = &s->arranged_kids[i];
        int len = kid->before_len;
        put_child(&out[i], kid->score, len == 3 ? &kid->before[2] : &kid->move, NO_USE,
                  len ? CHILD_CLEARED : CHILD_PLAIN);
        if (len) {
            out[i].clear = kid->before[0];
            int then = len > 1 ? kid->before[1].count : 0;
            out[i].then = (uint8_t)(then | (len == 3 ? REJOIN : 0));
        }
    }
    return n;
}

/* Up to run arrangement settle looks after every child. */
static bool always_settles(const Tables *t, Position *p, const Undo *moves, int n,
                           SafeRule rule)
{
    (void)t, (void)p, (void)moves, (void)n, (void)rule;
    return true;
}

const Space PLAIN_SPACE = {.name = "plain", .make = plain_moves, .follow_ups = wide_follow_ups,
                           .settles = could_settle, .key = plain_key};
const Space NARROW_SPACE = {.name = "narrow", .make = narrow_moves,
                            .follow_ups = narrow_follow_ups, .settles = could_settle,
                            .key = plain_key};
/* Its children are never obligated: no follow-ups are asked. */
const Space ARRANGED_SPACE = {.name = "arranged", .make = arranged_kids,
                              .follow_ups = wide_follow_ups, .settles = always_settles,
                              .key = arranged_key};

/* Sort children by `keys` (their scores, or a restart's noisy ones), stably: equal keys
 * keep the order the children were made in. Insertion sort: a few dozen children. */
static void sort_children(Child *out, double *keys, int n)
{
    for (int i = 1; i < n; i++) {
        Child child = out[i];
        double key = keys[i];
        int j = i;
        for (; j > 0 && keys[j - 1] > key; j--) {
            out[j] = out[j - 1];
            keys[j] = keys[j - 1];
        }
        out[j] = child;
        keys[j] = key;
    }
}

/* The space's children; best first; in a restart each
 * score plus a draw of up to JITTER_SPREAD, drawn in the order the moves came. Then
 * less those the reductions drop (in a frame reached by a bare draw, the children passed
 * over): after the draws, so a restart draws the same numbers, and before the sort,
 * which is stable, so the others keep their order. */
int children(Search *s, Frame *frame, const Move *last, Child *out)
{
    const Position *p = &s->at;
    int n = s->space->make(s, p, last, out);
    for (int i = 0; i < n; i++)
        s->noisy[i] = s->jitter ? out[i].score + random_random(&s->random) * JITTER_SPREAD
                                : out[i].score;
    for (int r = 0; r < s->hooks.drops_len; r++)
        n = s->hooks.drops[r](s, frame, out, s->noisy, n);
    sort_children(out, s->noisy, n);
    return n;
}
