/* The frame's children: moves.scored_moves (the legal moves worth trying, scored; the
 * pruning of docs/solver.md, "Pruning": duplicate targets and straight back), the
 * restarts' jitter and the sort, or, up to run arrangement, arrangements.c's children. */
#include "frames.h"

#include <string.h>

#include "scores.h"

/* Add `mark` to the set marks[0 .. *len); false when it was there already. */
static bool mark_new(int *marks, int *len, int mark)
{
    for (int i = 0; i < *len; i++)
        if (marks[i] == mark)
            return false;
    marks[(*len)++] = mark;
    return true;
}

static bool straight_back(const Move *last, const Move *move)
{
    return last && last->action == MOVE && last->src_kind == move->dst_kind
        && last->src == move->dst && last->dst_kind == move->src_kind
        && last->dst == move->src && last->count == move->count;
}

/* A foundation move of scored_moves: its score, or -1 when it is not worth trying. */
static int foundation_score(Search *s, const Position *p, const Move *move, int *found_len)
{
    const FoundationPile *top = &p->foundations[move->dst];
    int source = move->src_kind * MAX_PILES + move->src;
    if (s->twins_once
        && !mark_new(s->found_marks, found_len,
                     source * 64 + (top->len ? top->cards[top->len - 1] + 1 : 0)))
        return -1;  /* the same card onto an equal foundation (reduce_same_targets.c) */
    if (move->src_kind == TABLEAU) {
        const TableauPile *pile = &p->tableau[move->src];
        int left = pile->len - 1;
        /* also turns up or empties */
        return left == 0 || pile->hidden == left ? FOUNDATION_UNCOVERS : TO_FOUNDATION;
    }
    return move->src_kind == FOUNDATION ? -1 : TO_FOUNDATION;
}

/* A move between tableau piles of scored_moves: its score and obligation, or false. */
static bool tableau_score(const Search *s, const Position *p, const Move *move, bool to_empty,
                          int *score, int *must_use)
{
    const Tables *t = s->t;
    const TableauPile *pile = &p->tableau[move->src];
    int down = pile->hidden;
    *must_use = NO_USE;
    if (move->count != pile->len - down) {
        *score = to_empty ? SPLIT_TO_EMPTY : SPLIT_RUN;  /* splits a run */
        *must_use = move->src;
    } else if (down) {
        *score = TURN_UP + down;  /* turns a card up */
    } else if (to_empty) {
        *score = EMPTY_PILE;
        return !s->twins_once;  /* whole pile to an empty pile: the same key */
    } else if (t->reserve_fills_empty && p->reserve.len) {
        *score = REFILLED;  /* the reserve refills it: progress */
    } else {
        *score = EMPTY_PILE;  /* empties a pile */
        *must_use = move->src;
    }
    return true;
}

/* scored_moves, as children: the legal moves worth trying with their
 * scores, an obligated move as an OBLIGED child. Returns how many went to `out`. */
static int scored_moves(Search *s, const Position *p, const Move *last, Child *out)
{
    const Tables *t = s->t;
    int n = legal_moves(t, p, s->moves), k = 0, found_len = 0, empty_len = 0;
    for (int i = 0; i < n; i++) {
        const Move *move = &s->moves[i];
        int score, must_use = NO_USE;
        if (move->action != MOVE) {
            score = move->action == DRAW ? s->draw_score : REDEAL_LAST;
        } else if (straight_back(last, move)) {
            continue;  /* straight back where it came from */
        } else if (move->dst_kind == FOUNDATION) {
            score = foundation_score(s, p, move, &found_len);
            if (score < 0)
                continue;
        } else {
            bool to_empty = !p->tableau[move->dst].len;
            int source = move->src_kind * MAX_PILES + move->src;
            if (to_empty && s->twins_once
                && !mark_new(s->empty_marks, &empty_len, source * 128 + move->count))
                continue;  /* a second empty pile is the same position */
            if (move->src_kind == TABLEAU) {
                if (!tableau_score(s, p, move, to_empty, &score, &must_use))
                    continue;
            } else if (move->src_kind == FOUNDATION) {
                if (s->narrow)
                    continue;  /* the narrow search never takes cards back from foundations */
                score = FROM_FOUNDATION;
            } else {
                score = to_empty ? FROM_WASTE_TO_EMPTY : FROM_WASTE;  /* waste or reserve */
            }
        }
        if (!s->obliges)
            must_use = NO_USE;  /* obligations switched off: every move a plain child */
        put_child(&out[k++], score, move, must_use,
                  must_use == NO_USE ? CHILD_PLAIN : CHILD_OBLIGED);
    }
    return k;
}

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

/* The children up to run arrangement: arranged_children's, best first already. */
static int arranged_kids(Search *s, const Position *p, Child *out)
{
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

/* children (or, up to run arrangement, arranged_kids): best first; in a restart each
 * score plus a draw of up to JITTER_SPREAD, drawn in the order the moves came. In a
 * frame reached by a bare draw, less the children passed over (passed_over): dropped
 * after the draws, so a restart draws the same numbers, and before the sort, which is
 * stable, so the others keep their order. */
int children(Search *s, Frame *frame, const Move *last, Child *out)
{
    const Position *p = &s->at;
    int n = s->arranged ? arranged_kids(s, p, out) : scored_moves(s, p, last, out);
    for (int i = 0; i < n; i++)
        s->noisy[i] = s->jitter ? out[i].score + random_random(&s->random) * JITTER_SPREAD
                                : out[i].score;
    for (int r = 0; r < s->hooks.drops_len; r++)
        n = s->hooks.drops[r](s, frame, out, s->noisy, n);
    sort_children(out, s->noisy, n);
    return n;
}
