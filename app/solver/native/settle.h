/* Safe foundation moves, settle (moves.safe_move, moves.settle) and the engine's
 * auto-finish: what the search plays without branching after every step. Why a
 * move is safe: docs/solver.md, "Safe foundation moves". */
#ifndef SOLVER_NATIVE_SETTLE_H
#define SOLVER_NATIVE_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

/* wanted_cards: for each card the foundations take now, the first foundation taking it
 * (else -1). */
void wanted(const Tables *t, const Position *p, int8_t out[DECK]);

/* safe_move: the foundation move settle plays next, if any (eager: every one). */
bool safe_move(const Tables *t, Position *p, bool eager, Move *out);

/* settle: play safe moves until none is left; returns how many (at most MAX_CARDS),
 * written to `line` when it is not NULL. */
int settle(const Tables *t, Position *p, bool eager, Move *line);

/* The predicates below are asked for every child: inline, here. */

/* SearchTables.on_foundations: how many copies of `card` are on the foundations. */
static inline int on_foundations(const Tables *t, const Position *p, int card)
{
    (void)t;
    return p->copies_up[card];
}

/* The safe-move rule a search plays by: for each card, the cards that must all be up
 * before it goes up without branching (SearchTables.children; narrow searches:
 * narrow_children), or NULL: eager, every foundation move. */
typedef const Accepted *SafeRule;


static inline SafeRule safe_rule(const Tables *t, bool eager) { return eager ? NULL : t->children_of; }

/* SearchTables.safe_to_foundation: every card that could want `card` as a parent is up
 * (with `returned`: would be, with that many more copies of each up; see deferred). */
static inline bool safe_with(const Tables *t, Position *p, SafeRule rule, int card, int returned)
{
    if (!rule)
        return true;
    const Accepted *wanting = &rule[card];
    for (int i = 0; i < wanting->count; i++)
        if (on_foundations(t, p, wanting->cards[i]) + returned < t->decks)
            return false;
    return true;
}

static inline bool safe_to_foundation(const Tables *t, Position *p, SafeRule rule, int card)
{
    return safe_with(t, p, rule, card, 0);
}

/* wanted(...)[card] >= 0: some foundation takes `card` next (the set the position
 * keeps: the search asks it for every child). */
static inline bool is_wanted(const Tables *t, Position *p, int card)
{
    (void)t;
    return p->wanted_cards >> card & 1;
}

/* Would safe_move take the top of tableau pile `index` (or of `stack`)? */
static inline bool safe_tableau_top(const Tables *t, Position *p, int index, SafeRule rule)
{
    const TableauPile *pile = &p->tableau[index];
    if (!pile->len || pile->hidden >= pile->len)
        return false;
    int top = pile->cards[pile->len - 1];
    if (t->reserve_fills_empty && pile->len == 1 && p->reserve.len)
        return false;
    return is_wanted(t, p, top) && safe_to_foundation(t, p, rule, top);
}

static inline bool safe_stack_top(const Tables *t, Position *p, const CardStack *stack, SafeRule rule)
{
    if (!stack->len || (stack == &p->waste && !waste_settles(t)))
        return false;
    int top = stack->cards[stack->len - 1];
    return is_wanted(t, p, top) && safe_to_foundation(t, p, rule, top);
}

/* safe_move by `rule`. */
bool safe_move_by(const Tables *t, Position *p, SafeRule rule, Move *out);

/* settle by `rule`, recording each move's undo in `line`; returns how many. */
int settle_undoable(const Tables *t, Position *p, SafeRule rule, Undo *line);

/* Could settle play anything after `moves`, played from a settled position? (settle.c) */
bool could_settle(const Tables *t, Position *p, const Undo *moves, int n, SafeRule rule);

/* finish_line: the engine's auto-finish moves (at most MAX_CARDS) when they would win
 * from here, else -1. */
int finish_line(const Tables *t, const Position *p, Move *out);

#endif
