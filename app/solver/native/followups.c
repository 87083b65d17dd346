/* follow_ups: the moves that use a pile an obligated move uncovered, which expand
 * (reduce_obligations.c) pairs it with. */
#include "frames.h"

#include "scores.h"

static bool tableau_takes(const Tables *t, const Position *p, int index, int card)
{
    const TableauPile *pile = &p->tableau[index];
    if (!pile->len)
        return !(t->reserve_fills_empty && p->reserve.len);
    return stack_ok(t, pile->cards[pile->len - 1], card);
}

static void put_pair(Child *out, int src_kind, int src, int dst_kind, int dst, int count)
{
    Move move = {MOVE, (uint8_t)src_kind, (uint8_t)src, (uint8_t)dst_kind, (uint8_t)dst,
                 (uint8_t)count};
    put_child(out, PAIRED, &move, NO_USE, CHILD_PAIR);
}

/* runs_onto into an empty pile: any part of a run but a whole pile. */
static int runs_into_empty(const Tables *t, const Position *p, int index, int back_pile,
                           int back_count, bool narrow, uint32_t from, Child *out)
{
    int n = 0;
    for (; from; from &= from - 1) {
        int j = __builtin_ctz(from);
        const TableauPile *other = &p->tableau[j];
        int size = other->len, low = other->hidden;
        if (!size)
            continue;
        int longest = t->runs_any ? size - run_start(t, other) : 1;  /* run_length(j) */
        if (narrow && longest != size - low)
            continue;  /* the run does not reach down to the face-down cards */
        for (int count = narrow ? longest : 1; count <= longest; count++)
            if (!(count == size && low == 0)  /* a whole pile into an empty one */
                && !(j == back_pile && count == back_count))
                put_pair(&out[n++], TABLEAU, j, TABLEAU, index, count);
    }
    return n;
}

/* runs_onto onto a card: where the tables build down, only every 13th count from the
 * first that could fit (Tables.first_fit) needs a look; else every count (first_fit is
 * 1). A count past the run (longest) is past the face-up cards too. */
static int runs_onto_card(const Tables *t, const Position *p, int index, int back_pile,
                          int back_count, bool narrow, uint32_t from, Child *out)
{
    const TableauPile *pile = &p->tableau[index];
    int parent = pile->cards[pile->len - 1], step = t->builds_down ? 13 : 1, n = 0;
    const uint8_t *first_fit = &t->first_fit[parent * DECK];
    const bool *fits = &t->stack_ok[parent * DECK];
    for (; from; from &= from - 1) {
        int j = __builtin_ctz(from);
        const TableauPile *other = &p->tableau[j];
        int size = other->len;
        if (!size)
            continue;
        int count = first_fit[other->cards[size - 1]];
        int longest = t->runs_any ? size - run_start(t, other) : 1;  /* run_length(j) */
        if (count > longest || (narrow && longest != size - other->hidden))
            continue;
        for (; count <= longest; count += step)
            if ((!narrow || count == longest) && !(j == back_pile && count == back_count)
                && fits[other->cards[size - count]])
                put_pair(&out[n++], TABLEAU, j, TABLEAU, index, count);
    }
    return n;
}

/* follow_ups' moves onto pile `index` from the other tableau piles in `from` (a run, or
 * any part of one, not straight back where `last` put it; narrow: only a whole face-up
 * run, no chains of splits). */
static int runs_onto(const Tables *t, const Position *p, int index, const Move *last,
                     bool narrow, uint32_t from, Child *out)
{
    int back_pile = last->dst_kind == TABLEAU ? last->dst : -1, back_count = last->count;
    /* the piles to look at, lowest first (a drawn frame's expansions look at few) */
    from &= ((1u << t->tableau_piles) - 1) & ~(1u << index);
    if (p->tableau[index].len)
        return runs_onto_card(t, p, index, back_pile, back_count, narrow, from, out);
    if (t->reserve_fills_empty && p->reserve.len)
        return 0;  /* the reserve fills it */
    return runs_into_empty(t, p, index, back_pile, back_count, narrow, from, out);
}

/* Whether a run from pile `index` may go onto pile `j`, `count` cards of it. */
static bool run_fits(const Tables *t, const Position *p, int index, int j, int count)
{
    const TableauPile *pile = &p->tableau[index], *there = &p->tableau[j];
    if (there->len)
        return stack_ok(t, there->cards[there->len - 1], pile->cards[pile->len - count]);
    /* an empty pile takes any run but a whole pile (nothing would change) */
    return !(t->reserve_fills_empty && p->reserve.len)
        && !(count == pile->len && pile->hidden == 0);
}

/* The moves of the uncovered card's run that "move it together with the split-off
 * cards" does not replace (docs/solver.md, "Obligations"): onto the split-off cards
 * themselves (no combined move puts a run onto itself; only a run round the whole cycle
 * makes it legal), and, where the split-off cards did not lie on the uncovered card as
 * one run (Number Ten deals two face-up cards that need not build), to every pile. */
static int uncovered_run_moves(const Tables *t, const Position *p, int index,
                               const Move *last, bool narrow, Child *out)
{
    if (last->action != MOVE || last->src_kind != TABLEAU || last->src != index
        || last->dst_kind != TABLEAU || last->dst == index || !p->tableau[index].len)
        return 0;
    const TableauPile *pile = &p->tableau[index], *there = &p->tableau[last->dst];
    /* The split-off cards are still where `last` put them (settle takes none of them: the
     * uncovered card going up is expanded elsewhere); where that cannot be read, every
     * move of the run is paired, which is never unsound. */
    bool joined = there->len >= last->count
        && stack_ok(t, pile->cards[pile->len - 1], there->cards[there->len - last->count]);
    /* Joined, the split-off cards build on the uncovered card: a part of its run onto
     * their top would close a chain of builds on itself, which needs a wrap. */
    if (joined && !t->wraps)
        return 0;
    int longest = pile->len - run_start(t, pile), n = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        if (j == index || (joined && j != last->dst))
            continue;
        for (int count = narrow ? longest : 1; count <= longest; count++)
            if (run_fits(t, p, index, j, count))
                put_pair(&out[n++], TABLEAU, index, TABLEAU, j, count);
    }
    return n;
}

/* The waste's and the reserve's tops onto tableau pile `index` where it takes them, and
 * with `returns` the foundations' tops. */
static int tops_onto(const Tables *t, Position *p, int index, bool returns, Child *out)
{
    int n = 0;
    const CardStack *stacks[2] = {&p->waste, &p->reserve};
    const int kinds[2] = {WASTE, RESERVE};
    for (int s = 0; s < 2; s++)
        if (stacks[s]->len && tableau_takes(t, p, index, stacks[s]->cards[stacks[s]->len - 1]))
            put_pair(&out[n++], kinds[s], 0, TABLEAU, index, 1);
    for (int f = 0; returns && f < t->foundation_count; f++) {
        const FoundationPile *cards = &p->foundations[f];
        if (cards->len && tableau_takes(t, p, index, cards->cards[cards->len - 1]))
            put_pair(&out[n++], FOUNDATION, f, TABLEAU, index, 1);
    }
    return n;
}

/* Where single cards move, a card onto the one `last` moved, where it went (from the
 * tableau but pile `index`, whose top moves anywhere already; the waste, the reserve, a
 * foundation where cards return): the obligated move can be postponed to just before
 * such a move too. */
static int onto_moved(const Tables *t, Position *p, int index, const Move *last, Child *out)
{
    int there = last->dst, n = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *other = &p->tableau[j];
        if (j != index && j != there && other->len > other->hidden
            && tableau_takes(t, p, there, other->cards[other->len - 1]))
            put_pair(&out[n++], TABLEAU, j, TABLEAU, there, 1);
    }
    return n + tops_onto(t, p, there, t->foundation_return, out + n);
}

/* follow_ups: the moves that use tableau pile `index` right after `last` uncovered it:
 * its top to a foundation (or, where single cards move, anywhere), or something onto it.
 * `narrow` counts only where runs move (single cards relocate card by card). Runs come
 * onto it from the piles in `from` only (ALL_PILES: follow_ups in full). */
int follow_ups(const Tables *t, Position *p, int index, const Move *last,
                      bool narrow, uint32_t from, Child *out)
{
    narrow = narrow && t->runs_any;
    const TableauPile *pile = &p->tableau[index];
    bool empty_takes = !(t->reserve_fills_empty && p->reserve.len);
    int n = 0;
    if (pile->len) {
        int top = pile->cards[pile->len - 1];
        for (int f = 0; is_wanted(t, p, top) && f < t->foundation_count; f++)
            if (foundation_takes(t, p, f, top)) {
                put_pair(&out[n++], TABLEAU, index, FOUNDATION, f, 1);
                break;
            }
        for (int j = 0; !t->runs_any && j < t->tableau_piles; j++) {
            const TableauPile *other = &p->tableau[j];
            if (j != index
                && (other->len ? stack_ok(t, other->cards[other->len - 1], top) : empty_takes))
                put_pair(&out[n++], TABLEAU, index, TABLEAU, j, 1);
        }
    }
    n += runs_onto(t, p, index, last, narrow, from, out + n);
    if (t->runs_any)
        n += uncovered_run_moves(t, p, index, last, narrow, out + n);
    n += tops_onto(t, p, index, t->foundation_return && !narrow, out + n);
    if (!t->runs_any)
        n += onto_moved(t, p, index, last, out + n);
    return n;
}
