/* Safe foundation moves, settle and the auto-finish (see settle.h). */
#include "settle.h"

#include <string.h>

void wanted(const Tables *t, const Position *p, int8_t out[DECK])
{
    memset(out, -1, DECK);
    int empty = -1;
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        if (!pile->len) {
            if (empty < 0)
                empty = f;
        } else if (pile->len < FOUNDATION_CAP) {
            int next = t->found_next[pile->cards[pile->len - 1]];
            if (next != NO_CARD && out[next] < 0)
                out[next] = (int8_t)f;
        }
    }
    if (empty >= 0)
        for (int suit = 0; suit < 4; suit++) {
            int card = suit * 13 + first_rank(p) - 1;
            if (out[card] < 0)
                out[card] = (int8_t)empty;
        }
}

static void to_foundation(Move *out, int src_kind, int src, int f)
{
    memset(out, 0, sizeof *out);
    out->action = MOVE;
    out->src_kind = (uint8_t)src_kind;
    out->src = (uint8_t)src;
    out->dst_kind = FOUNDATION;
    out->dst = (uint8_t)f;
    out->count = 1;
}

bool safe_move(const Tables *t, Position *p, bool eager, Move *out)
{
    return safe_move_by(t, p, safe_rule(t, eager), out);
}

/* wanted(...)[card] for a card some foundation takes: the first foundation taking it (a
 * base-rank card only an empty one takes, any other only one it builds on). */
static int first_taking(const Tables *t, const Position *p, int card)
{
    int f = 0;
    while (f + 1 < t->foundation_count && !foundation_takes(t, p, f, card))
        f++;
    return f;
}

bool safe_move_by(const Tables *t, Position *p, SafeRule rule, Move *out)
{
    /* The wanted set the position keeps (apply and undo keep it), rather than wanted()'s
     * table built anew on every call: settle asks after every move. */
    uint64_t want = p->wanted_cards;
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        if (!pile->len || pile->hidden >= pile->len)
            continue;
        int top = pile->cards[pile->len - 1];
        if (!(want >> top & 1))
            continue;
        /* Emptying a pile refills it from the reserve: not provably harmless, so skip. */
        if (t->reserve_fills_empty && pile->len == 1 && p->reserve.len)
            continue;
        if (safe_to_foundation(t, p, rule, top)) {
            to_foundation(out, TABLEAU, i, first_taking(t, p, top));
            return true;
        }
    }
    const CardStack *stacks[2] = {&p->waste, &p->reserve};
    const int kinds[2] = {WASTE, RESERVE};
    for (int s = waste_settles(t) ? 0 : 1; s < 2; s++) {
        if (!stacks[s]->len)
            continue;
        int top = stacks[s]->cards[stacks[s]->len - 1];
        if ((want >> top & 1) && safe_to_foundation(t, p, rule, top)) {
            to_foundation(out, kinds[s], 0, first_taking(t, p, top));
            return true;
        }
    }
    return false;
}



/* Could settle play anything after `moves`, played from a settled position (one where
 * safe_move finds nothing)? The search up to run arrangement does not ask: it settles
 * after every child, whose moves before its own this look was not written for. False
 * means settle would play nothing; true, that it might (settle then looks everywhere, as
 * always), so settle's moves are the same either way. Why the look can be this narrow
 * (docs/native-core.md): whether a top is taken depends on the foundations (wanted,
 * safe_to_foundation), on the reserve (a one-card pile does not empty while the reserve
 * would refill it) and on the top itself. A move that changes foundations or reserve (or
 * refills a pile) gets the full look. Else only a top the moves changed can be newly
 * taken: the new top of a tableau pile a move took cards from, the waste's after a draw
 * or a move from it. The top of a pile cards went onto is the card that was on top where
 * they came from (a tableau top, the waste's): not taken there, and what decides it is
 * unchanged (a one-card pile it left was emptied, which refilled from the reserve or
 * left the reserve empty); but for a waste top that settle leaves in the waste
 * (waste_settles), which it may take on the tableau. */
bool could_settle(const Tables *t, Position *p, const Undo *moves, int n, SafeRule rule)
{
    for (int i = 0; i < n; i++) {
        const Move *move = &moves[i].move;
        if (move->action != MOVE) {
            if (safe_stack_top(t, p, &p->waste, rule))
                return true;
            continue;
        }
        if (move->src_kind == FOUNDATION || move->dst_kind == FOUNDATION
            || move->src_kind == RESERVE || (move->src_kind == TABLEAU && moves[i].refilled))
            return true;
        /* A waste top settle leaves where it is (waste_settles) may be one it takes on the
         * tableau pile the move put it on. */
        if (move->src_kind == WASTE && !waste_settles(t) && safe_tableau_top(t, p, move->dst, rule))
            return true;
        if (move->src_kind == TABLEAU ? safe_tableau_top(t, p, move->src, rule)
                                      : safe_stack_top(t, p, &p->waste, rule))
            return true;
    }
    return false;
}

int settle(const Tables *t, Position *p, bool eager, Move *line)
{
    int n = 0;
    Move move;
    while (safe_move(t, p, eager, &move)) {
        apply_move(t, p, &move);
        if (line)
            line[n] = move;
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------ auto-finish */

/* State._next_foundation_move: the first tableau top a foundation takes. */
static bool next_foundation_move(const Tables *t, const Position *p, Move *out)
{
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        if (!pile->len)
            continue;
        for (int f = 0; f < t->foundation_count; f++)
            if (foundation_takes(t, p, f, pile->cards[pile->len - 1])) {
                to_foundation(out, TABLEAU, i, f);
                return true;
            }
    }
    return false;
}

/* finish_line: the engine's auto-finish moves (at most MAX_CARDS) when they would win
 * from here, else -1. The engine's auto_finish_ready tests the play-out only where the
 * tableau wraps, and only a won end counts here: playing it out always is the same test. */
int finish_line(const Tables *t, const Position *p, Move *out)
{
    if (p->stock.len || p->waste.len || p->reserve.len || is_won(t, p))
        return -1;
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        if (pile->hidden)
            return -1;
        for (int k = 0; k + 1 < pile->len; k++)
            if (!stack_ok(t, pile->cards[k], pile->cards[k + 1]))
                return -1;
    }
    Position end = *p;
    int n = 0;
    while (next_foundation_move(t, &end, &out[n]))
        apply_move(t, &end, &out[n++]);
    return is_won(t, &end) ? n : -1;
}

/* settle, recording each move's undo. */
int settle_undoable(const Tables *t, Position *p, SafeRule rule, Undo *line)
{
    int n = 0;
    Move move;
    while (safe_move_by(t, p, rule, &move))
        apply_undoable(t, p, &move, &line[n++]);
    return n;
}
