/* Apply and undo a move, and the peeks that read a move's effect without playing it
 * (see state.h): State.apply of app/engine/state.py, with the parts of the key and the
 * run starts it keeps. */
#include "state.h"

#include <string.h>

/* ------------------------------------------------------------------------- apply */

static uint8_t pop(CardStack *stack) { return stack->cards[--stack->len]; }

/* Mark the key parts `move` changes stale (undo_move puts back what was kept before). */
static void touch(Position *p, const Move *move)
{
    if (move->action != MOVE) {
        p->stale |= STALE_STACKS;
        return;
    }
    if (move->src_kind == TABLEAU)
        p->stale |= 1u << move->src;
    else if (move->src_kind == WASTE)
        p->stale |= STALE_STACKS;
    if (move->dst_kind == TABLEAU)
        p->stale |= 1u << move->dst;
}

#ifdef SOLVER_CHECKS
#include <stdio.h>
#include <stdlib.h>
/* Built with -DSOLVER_CHECKS (scripts/native_sanitized.sh): what apply and undo keep
 * (each pile's run start, the copies on the foundations) is checked against what it
 * should be after each of them, and a wrong value stops the process. */
static void check_kept(const Tables *t, const Position *p)
{
    for (int i = 0; i < t->tableau_piles; i++)
        if (p->tableau[i].run != find_run_start(t, &p->tableau[i])) {
            fprintf(stderr, "SOLVER_CHECKS: tableau %d keeps run %d, walks to %d\n", i,
                    p->tableau[i].run, find_run_start(t, &p->tableau[i]));
            abort();
        }
    uint8_t up[DECK] = {0};
    for (int f = 0; f < t->foundation_count; f++)
        for (int k = 0; k < p->foundations[f].len; k++)
            up[p->foundations[f].cards[k]]++;
    if (memcmp(up, p->copies_up, sizeof up)) {
        fprintf(stderr, "SOLVER_CHECKS: the copies kept up are not the foundations'\n");
        abort();
    }
}
#endif

/* The run start of a tableau pile that cards left, nothing turned up and nothing
 * refilled (TableauPile.run): it stays until the whole run has gone. */
static inline void run_after_taking(const Tables *t, TableauPile *pile)
{
    if (!pile->len)
        pile->run = 0;
    else if (pile->len <= pile->run)
        pile->run = (uint8_t)find_run_start(t, pile);  /* the whole run left */
}

/* The run start of a tableau pile that cards came onto, `under` of them there before: a
 * run onto a card it builds on lengthens the run there; else walk it. */
static inline void run_after_putting(const Tables *t, TableauPile *pile, int under,
                                     bool moving_run)
{
    if (!(under && moving_run && stack_ok(t, pile->cards[under - 1], pile->cards[under])))
        pile->run = (uint8_t)find_run_start(t, pile);
}

bool peeks(const Tables *t, const Position *p, const Move *move)
{
    if (move->action != MOVE || move->src_kind != TABLEAU || move->dst_kind != TABLEAU)
        return false;
    const TableauPile *pile = &p->tableau[move->src];
    int left = pile->len - move->count;
    return left ? left > pile->hidden : !(t->reserve_fills_empty && p->reserve.len);
}

void peek_move(const Tables *t, Position *p, const Move *move, Peek *peek)
{
    TableauPile *from = &p->tableau[move->src], *to = &p->tableau[move->dst];
    int count = move->count, under = to->len;
    *peek = (Peek){from->len, from->run, to->len, to->run};
    bool moving_run = from->len - count >= from->run;
    from->len = (uint8_t)(from->len - count);
    copy_run(to->cards + under, from->cards + from->len, count);
    to->len = (uint8_t)(under + count);
    run_after_taking(t, from);
    run_after_putting(t, to, under, moving_run);
}

void peek_back(Position *p, const Move *move, const Peek *peek)
{
    TableauPile *from = &p->tableau[move->src], *to = &p->tableau[move->dst];
    from->len = peek->src_len;  /* its cards are still there, above the length */
    from->run = peek->src_run;
    to->len = peek->dst_len;
    to->run = peek->dst_run;
}

void apply_move(const Tables *t, Position *p, const Move *move)
{
    Undo undo;
    apply_undoable(t, p, move, &undo);
}

uint64_t top_hash[DECK + 1];

/* One more (sign 1) or one less (-1) foundation taking `card` next. */
static inline void wanting(Position *p, int card, int sign)
{
    p->wants[card] = (uint8_t)(p->wants[card] + sign);
    if (p->wants[card])
        p->wanted_cards |= 1ull << card;
    else
        p->wanted_cards &= ~(1ull << card);
}

/* Foundation f's share of Position.tops_hash, wants and wanted_cards, added (sign 1) or
 * taken away (-1): taken before the foundation changes and added after, so that what
 * the position keeps is always what the foundations are. An empty foundation takes the
 * first rank of every suit; a started one, the card after its top (none once full). */
void foundation_share(const Tables *t, Position *p, int f, int sign)
{
    const FoundationPile *pile = &p->foundations[f];
    if (!pile->len) {
        for (int suit = 0; suit < 4; suit++)
            wanting(p, suit * 13 + first_rank(p) - 1, sign);
    } else if (pile->len < FOUNDATION_CAP && t->found_next[pile->cards[pile->len - 1]] != NO_CARD) {
        wanting(p, t->found_next[pile->cards[pile->len - 1]], sign);
    }
    uint64_t top = top_hash[pile->len ? pile->cards[pile->len - 1] + 1 : 0];
    p->tops_hash = sign > 0 ? p->tops_hash + top : p->tops_hash - top;
}

static void foundation_push(const Tables *t, Position *p, int f, int card)
{
    foundation_share(t, p, f, -1);
    p->foundations[f].cards[p->foundations[f].len++] = (uint8_t)card;
    p->copies_up[card]++;
    foundation_share(t, p, f, 1);
}

static int foundation_pop(const Tables *t, Position *p, int f)
{
    foundation_share(t, p, f, -1);
    int card = p->foundations[f].cards[--p->foundations[f].len];
    p->copies_up[card]--;
    foundation_share(t, p, f, 1);
    return card;
}

/* What undo_move puts back of the key's kept parts (Undo.stale and the hashes). */
static void save_kept(const Position *p, const Move *move, Undo *undo)
{
    undo->stale = p->stale;
    undo->stacks_hash = p->stacks_hash;
    if (move->action == MOVE) {
        if (move->src_kind == TABLEAU)
            undo->src_hash = p->pile_hash[move->src];
        if (move->dst_kind == TABLEAU)
            undo->dst_hash = p->pile_hash[move->dst];
    }
}

static void restore_kept(Position *p, const Undo *undo)
{
    const Move *move = &undo->move;
    if (move->action == MOVE) {
        if (move->src_kind == TABLEAU) {
            p->piles_hash += undo->src_hash - p->pile_hash[move->src];
            p->pile_hash[move->src] = undo->src_hash;
        }
        if (move->dst_kind == TABLEAU) {
            p->piles_hash += undo->dst_hash - p->pile_hash[move->dst];
            p->pile_hash[move->dst] = undo->dst_hash;
        }
    }
    p->stacks_hash = undo->stacks_hash;
    p->stale = undo->stale;
}

void apply_undoable(const Tables *t, Position *p, const Move *move, Undo *undo)
{
    undo->move = *move;
    save_kept(p, move, undo);
    touch(p, move);
    if (move->action == DRAW) {
        int k = t->draw < p->stock.len ? t->draw : p->stock.len;
        for (int i = 0; i < k; i++)
            p->waste.cards[p->waste.len++] = pop(&p->stock);
        undo->drawn = (uint8_t)k;
        return;
    }
    if (move->action == REDEAL) {
        for (int i = 0; i < p->waste.len; i++)
            p->stock.cards[i] = p->waste.cards[p->waste.len - 1 - i];
        p->stock.len = p->waste.len;
        p->waste.len = 0;
        undo->redeals_left = p->redeals_left;
        if (p->redeals_left > 0)
            p->redeals_left--;
        return;
    }
    uint8_t moving[PILE_ROOM];
    int count = move->count;
    bool moving_run = true;  /* the moving cards build on each other */
    if (move->src_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->src];
        undo->hidden = pile->hidden;
        undo->refilled = false;
        undo->src_run = pile->run;
        moving_run = pile->len - count >= pile->run;
        pile->len = (uint8_t)(pile->len - count);
        copy_run(moving, pile->cards + pile->len, count);
        if (pile->len && pile->hidden >= pile->len) {
            pile->hidden = (uint8_t)(pile->len - 1);  /* the card under turns up */
            pile->run = pile->hidden;
        } else if (!pile->len && t->reserve_fills_empty && p->reserve.len) {
            pile->cards[0] = pop(&p->reserve);
            pile->len = 1;
            pile->run = 0;
            undo->refilled = true;
        } else {
            run_after_taking(t, pile);
        }
    } else if (move->src_kind == WASTE) {
        moving[0] = pop(&p->waste);
    } else if (move->src_kind == RESERVE) {
        moving[0] = pop(&p->reserve);
    } else {
        moving[0] = (uint8_t)foundation_pop(t, p, move->src);
    }
    if (move->dst_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->dst];
        undo->dst_run = pile->run;
        int under = pile->len;
        copy_run(pile->cards + under, moving, count);
        pile->len = (uint8_t)(pile->len + count);
        run_after_putting(t, pile, under, moving_run);
    } else {
        foundation_push(t, p, move->dst, moving[0]);
    }
#ifdef SOLVER_CHECKS
    check_kept(t, p);
#endif
}

void undo_move(const Tables *t, Position *p, const Undo *undo)
{
    const Move *move = &undo->move;
    restore_kept(p, undo);
    if (move->action == DRAW) {
        for (int i = 0; i < undo->drawn; i++)
            p->stock.cards[p->stock.len++] = pop(&p->waste);
        return;
    }
    if (move->action == REDEAL) {  /* the stock was empty: the waste is the stock reversed */
        for (int i = 0; i < p->stock.len; i++)
            p->waste.cards[i] = p->stock.cards[p->stock.len - 1 - i];
        p->waste.len = p->stock.len;
        p->stock.len = 0;
        p->redeals_left = undo->redeals_left;
        return;
    }
    uint8_t moving[PILE_ROOM];
    int count = move->count;
    if (move->dst_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->dst];
        pile->len = (uint8_t)(pile->len - count);
        pile->run = undo->dst_run;
        copy_run(moving, pile->cards + pile->len, count);
    } else {
        moving[0] = (uint8_t)foundation_pop(t, p, move->dst);
    }
    if (move->src_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->src];
        if (undo->refilled) {
            p->reserve.cards[p->reserve.len++] = pile->cards[0];
            pile->len = 0;
        }
        copy_run(pile->cards + pile->len, moving, count);
        pile->len = (uint8_t)(pile->len + count);
        pile->hidden = undo->hidden;
        pile->run = undo->src_run;
    } else if (move->src_kind == WASTE) {
        p->waste.cards[p->waste.len++] = moving[0];
    } else if (move->src_kind == RESERVE) {
        p->reserve.cards[p->reserve.len++] = moving[0];
    } else {
        foundation_push(t, p, move->src, moving[0]);
    }
#ifdef SOLVER_CHECKS
    check_kept(t, p);
#endif
}
