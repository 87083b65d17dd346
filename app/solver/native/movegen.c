/* Legal moves (see state.h): State.legal_moves of app/engine/state.py, in its order. */
#include "state.h"

#include <string.h>

/* ---------------------------------------------------------------- move generation */

/* What legal_moves works from, built once from the tops as the engine builds its dicts:
 * for each card, the tableau piles whose top takes it (`wanted`) and the foundations
 * that take it (`to_found`), as bit sets over pile indices; the empty piles. */
typedef struct {
    const Tables *t;
    Move *out;
    int n;
    uint16_t wanted[DECK];
    uint16_t to_found[DECK];
    uint16_t empties;
} Gen;

static void add(Gen *g, int src_kind, int src, int dst_kind, int dst, int count)
{
    Move *m = &g->out[g->n++];
    m->action = MOVE;
    m->src_kind = (uint8_t)src_kind;
    m->src = (uint8_t)src;
    m->dst_kind = (uint8_t)dst_kind;
    m->dst = (uint8_t)dst;
    m->count = (uint8_t)count;
}

/* One move to each pile in `piles` (a bit set, lowest index first) but `skip`. */
static void add_each(Gen *g, int src_kind, int src, int dst_kind, uint16_t piles, int skip,
                     int count)
{
    for (; piles; piles &= (uint16_t)(piles - 1)) {
        int j = __builtin_ctz(piles);
        if (j != skip)
            add(g, src_kind, src, dst_kind, j, count);
    }
}

/* One card to the foundations, the tableau, the empty piles, in the engine's order. */
static void single(Gen *g, int src_kind, int src, int card, int skip)
{
    add_each(g, src_kind, src, FOUNDATION, g->to_found[card], -1, 1);
    add_each(g, src_kind, src, TABLEAU, g->wanted[card], skip, 1);
    add_each(g, src_kind, src, TABLEAU, g->empties, skip, 1);
}

static void gen_init(Gen *g, const Tables *t, const Position *p, Move *out)
{
    g->t = t;
    g->out = out;
    g->n = 0;
    memset(g->wanted, 0, sizeof g->wanted);
    memset(g->to_found, 0, sizeof g->to_found);
    g->empties = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *pile = &p->tableau[j];
        if (!pile->len) {
            g->empties |= (uint16_t)(1u << j);
            continue;
        }
        const Accepted *takes = &t->accepted_by[pile->cards[pile->len - 1]];
        for (int k = 0; k < takes->count; k++)
            g->wanted[takes->cards[k]] |= (uint16_t)(1u << j);
    }
    if (t->reserve_fills_empty && p->reserve.len)
        g->empties = 0;
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        uint16_t bit = (uint16_t)(1u << f);
        if (!pile->len) {
            for (int suit = 0; suit < 4; suit++)
                g->to_found[suit * 13 + first_rank(p) - 1] |= bit;
        } else if (pile->len < FOUNDATION_CAP) {
            int next = t->found_next[pile->cards[pile->len - 1]];
            if (next != NO_CARD)
                g->to_found[next] |= bit;
        }
    }
}

int legal_moves(const Tables *t, const Position *p, Move *out)
{
    if (is_won(t, p))
        return 0;
    Gen g;
    gen_init(&g, t, p, out);
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        if (!pile->len)
            continue;
        single(&g, TABLEAU, i, pile->cards[pile->len - 1], i);
        int longest = run_length(t, p, i);
        for (int count = 2; count <= longest; count++) {
            int card = pile->cards[pile->len - count];
            add_each(&g, TABLEAU, i, TABLEAU, g.wanted[card], i, count);
            add_each(&g, TABLEAU, i, TABLEAU, g.empties, -1, count);
        }
    }
    if (p->waste.len)
        single(&g, WASTE, 0, p->waste.cards[p->waste.len - 1], -1);
    if (p->reserve.len)
        single(&g, RESERVE, 0, p->reserve.cards[p->reserve.len - 1], -1);
    if (t->foundation_return) {
        /* A foundation card returns only to the tableau. */
        memset(g.to_found, 0, sizeof g.to_found);
        for (int f = 0; f < t->foundation_count; f++) {
            const FoundationPile *pile = &p->foundations[f];
            if (pile->len)
                single(&g, FOUNDATION, f, pile->cards[pile->len - 1], -1);
        }
    }
    /* Redeal while redeals are left (redeals_left > 0) or unlimited (-1). */
    if (p->stock.len || (p->waste.len && p->redeals_left != 0)) {
        Move *m = &out[g.n++];
        memset(m, 0, sizeof *m);
        m->action = p->stock.len ? DRAW : REDEAL;
        m->count = 1;
    }
    return g.n;
}
