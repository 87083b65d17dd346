/* The relaxed tableau's dead-end test (see relaxation.h and app/solver/relaxation.py).
 *
 * A relaxed position is one 64-bit word, exact (no hash): which cards of the search's
 * waste sequence are in the waste, the stock and reserve lengths, and how many cards of
 * each suit are up. The waste sequence is the root's waste, bottom first, then its stock
 * in the order it is drawn: with one pass, every waste card of the search is one of them,
 * and the waste is those its mask names, in that order. The tables hold each word through
 * mix64 (a bijection: still exact), which spreads its bits for their probing. */
#include "relaxation.h"

#include <stdlib.h>

#include "hash.h"
#include "table.h"

enum {
    SEQUENCE_BITS = 38,        /* the waste mask: bits 0-37 */
    STOCK_SHIFT = 38,          /* the stock length: 6 bits */
    RESERVE_SHIFT = 44,        /* the reserve length: 4 bits */
    UP_SHIFT = 48,             /* four suits' counts up, 4 bits each */
    MAX_STOCK = 63,
    MAX_RESERVE = 15,
    /* The relaxed positions known lost, and known open (relaxation.LOST_LIMIT and
     * OPEN_LIMIT), one search keeps before it starts each set afresh. */
    LOST_LIMIT = 1 << 20,
    OPEN_LIMIT = 1 << 18,
};

struct Relaxation {
    const Tables *t;
    int sequence_len, root_waste, root_stock;
    uint8_t sequence[SEQUENCE_BITS];     /* the waste sequence's cards */
    int8_t sequence_index[DECK];         /* each card's place in it, or -1 */
    uint64_t stock_cards[MAX_STOCK + 1]; /* the cards of a stock of each length (a bit each) */
    uint64_t reserve_cards[MAX_RESERVE + 1];
    uint8_t reserve_top[MAX_RESERVE + 1];  /* the reserve's top card at each length */
    uint64_t up_cards[4][FOUNDATION_CAP + 1]; /* a suit's cards with so many up */
    uint8_t up_card[4][FOUNDATION_CAP];  /* a suit's card to go up with so many up */
    int classes;
    int8_t parent[DECK];                 /* each class's parent class */
    Table visited, lost, open;           /* Relaxation's seen (of one test), lost, open */
    uint64_t *order;                     /* the relaxed positions met, in order met */
    int32_t *from;                       /* where in `order` each was reached from (-1: start) */
    int32_t *todo;                       /* those still to look at (a stack: depth first) */
};

static int first_rank_of(const Position *p) { return first_rank(p) - 1; }

bool relaxation_new(const Tables *t, const Position *root, Relaxation **out)
{
    *out = NULL;
    int waste = root->waste.len, stock = root->stock.len;
    if (!t->relaxed || waste + stock > SEQUENCE_BITS || stock > MAX_STOCK
        || root->reserve.len > MAX_RESERVE)
        return true;
    Relaxation *r = calloc(1, sizeof *r);
    if (!r)
        return false;
    r->t = t;
    r->root_waste = waste;
    r->root_stock = stock;
    r->sequence_len = waste + stock;
    for (int card = 0; card < DECK; card++)
        r->sequence_index[card] = -1;
    for (int i = 0; i < waste; i++)
        r->sequence[i] = root->waste.cards[i];
    for (int i = 0; i < stock; i++)  /* the stock's top (last) is drawn first */
        r->sequence[waste + i] = root->stock.cards[stock - 1 - i];
    for (int i = 0; i < r->sequence_len; i++)
        r->sequence_index[r->sequence[i]] = (int8_t)i;
    for (int len = 1; len <= stock; len++)
        r->stock_cards[len] = r->stock_cards[len - 1] | 1ULL << root->stock.cards[len - 1];
    for (int len = 1; len <= root->reserve.len; len++) {
        r->reserve_top[len] = root->reserve.cards[len - 1];
        r->reserve_cards[len] = r->reserve_cards[len - 1] | 1ULL << r->reserve_top[len];
    }
    int first = first_rank_of(root);
    for (int suit = 0; suit < 4; suit++)
        for (int offset = 0; offset < FOUNDATION_CAP; offset++) {
            int card = suit * 13 + (first + offset) % 13;
            r->up_card[suit][offset] = (uint8_t)card;
            r->up_cards[suit][offset + 1] = r->up_cards[suit][offset] | 1ULL << card;
        }
    for (int card = 0; card < DECK; card++) {
        int klass = t->klass[card];
        r->parent[klass] = t->parent_class[card];
        if (klass >= r->classes)
            r->classes = klass + 1;
    }
    r->order = malloc(RELAXED_STATE_LIMIT * sizeof *r->order);
    r->from = malloc(RELAXED_STATE_LIMIT * sizeof *r->from);
    r->todo = malloc(RELAXED_STATE_LIMIT * sizeof *r->todo);
    if (!r->order || !r->from || !r->todo || !table_init(&r->visited, RELAXED_STATE_LIMIT)
        || !table_init_growing(&r->lost, LOST_LIMIT)
        || !table_init_growing(&r->open, OPEN_LIMIT)) {
        relaxation_free(r);
        return false;
    }
    *out = r;
    return true;
}

void relaxation_free(Relaxation *r)
{
    if (!r)
        return;
    table_free(&r->visited);
    table_free(&r->lost);
    table_free(&r->open);
    free(r->order);
    free(r->from);
    free(r->todo);
    free(r);
}

static int up_count(uint64_t state, int suit) { return (int)(state >> (UP_SHIFT + 4 * suit)) & 15; }
static int stock_len(uint64_t state) { return (int)(state >> STOCK_SHIFT) & 63; }
static int reserve_len(uint64_t state) { return (int)(state >> RESERVE_SHIFT) & 15; }
static uint64_t waste_mask(uint64_t state) { return state & ((1ULL << SEQUENCE_BITS) - 1); }

/* relaxation.fewest_runs, over the tableau's cards by class. */
static int fewest_runs(const Relaxation *r, const int *counts)
{
    int bottoms = 0, cards = 0;
    for (int k = 0; k < r->classes; k++) {
        int extra = counts[k] - counts[r->parent[k]];
        if (extra > 0)
            bottoms += extra;
        cards += counts[k];
    }
    return bottoms ? bottoms : cards ? 1 : 0;
}

/* Does the tableau still fit its piles with one card of class `klass` more (or less)? */
static bool fits(const Relaxation *r, int *counts, int klass, int change)
{
    counts[klass] += change;
    int runs = fewest_runs(r, counts);
    counts[klass] -= change;
    return runs <= r->t->tableau_piles;
}

/* The image of a position of the search (relaxation._image), or false where one of its
 * waste cards is not in the sequence (never, from the root's descendants). */
static bool image(const Relaxation *r, const Position *p, uint64_t *out)
{
    uint64_t state = (uint64_t)p->stock.len << STOCK_SHIFT
                   | (uint64_t)p->reserve.len << RESERVE_SHIFT;
    for (int f = 0; f < r->t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        if (pile->len)
            state |= (uint64_t)pile->len << (UP_SHIFT + 4 * card_suit(pile->cards[0]));
    }
    for (int i = 0; i < p->waste.len; i++) {
        int at = r->sequence_index[p->waste.cards[i]];
        if (at < 0)
            return false;
        state |= 1ULL << at;
    }
    *out = state;
    return true;
}

enum { MOST_FOLLOWING = 13 };  /* 4 returns, 2 onto the tableau, a draw, 6 up */

/* Relaxation._following: the relaxed positions one move from `state` (not won), those
 * putting a card up last, so that the depth-first search tries them first. */
static int following(const Relaxation *r, uint64_t state, uint64_t *next)
{
    int up[4], n = 0;
    uint64_t out = 0;
    for (int suit = 0; suit < 4; suit++) {
        up[suit] = up_count(state, suit);
        out |= r->up_cards[suit][up[suit]];
    }
    int stock = stock_len(state), reserve = reserve_len(state);
    uint64_t waste = waste_mask(state);
    out |= r->stock_cards[stock] | r->reserve_cards[reserve];
    for (uint64_t bits = waste; bits; bits &= bits - 1)
        out |= 1ULL << r->sequence[__builtin_ctzll(bits)];
    uint64_t in = ~out & ((1ULL << DECK) - 1);  /* the tableau */
    int counts[DECK] = {0};
    for (uint64_t bits = in; bits; bits &= bits - 1)
        counts[r->t->klass[__builtin_ctzll(bits)]]++;
    const uint8_t *klass = r->t->klass;
    for (int suit = 0; suit < 4; suit++)  /* a foundation's top back onto the tableau */
        if (up[suit] && fits(r, counts, klass[r->up_card[suit][up[suit] - 1]], 1))
            next[n++] = state - (1ULL << (UP_SHIFT + 4 * suit));
    /* the waste's and the reserve's tops: what is left, and the card */
    int top = waste ? 63 - __builtin_clzll(waste) : 0;
    uint64_t rests[2] = {state & ~(1ULL << top), state - (1ULL << RESERVE_SHIFT)};
    int cards[2] = {waste ? r->sequence[top] : -1, reserve ? r->reserve_top[reserve] : -1};
    for (int i = 0; i < 2; i++)  /* onto the tableau */
        if (cards[i] >= 0 && fits(r, counts, klass[cards[i]], 1))
            next[n++] = rests[i];
    if (stock)  /* draw: the next card of the sequence joins the waste */
        next[n++] = (state - (1ULL << STOCK_SHIFT)) | 1ULL << (r->sequence_len - stock);
    for (int suit = 0; suit < 4; suit++) {  /* a tableau card up */
        int card = up[suit] < FOUNDATION_CAP ? r->up_card[suit][up[suit]] : -1;
        if (card >= 0 && in & 1ULL << card && fits(r, counts, klass[card], -1))
            next[n++] = state + (1ULL << (UP_SHIFT + 4 * suit));
    }
    for (int i = 0; i < 2; i++) {  /* the waste's or the reserve's top up */
        int suit = cards[i] >= 0 ? card_suit(cards[i]) : 0;
        if (cards[i] >= 0 && up[suit] < FOUNDATION_CAP && r->up_card[suit][up[suit]] == cards[i])
            next[n++] = rests[i] + (1ULL << (UP_SHIFT + 4 * suit));
    }
    return n;
}

static bool won(uint64_t state)
{
    for (int suit = 0; suit < 4; suit++)
        if (up_count(state, suit) != FOUNDATION_CAP)
            return false;
    return true;
}

/* Add a relaxed position to a set of one search's, starting it afresh when full (or
 * where growing it finds no memory: forgetting what a set knows is always sound). The
 * sets start small and grow: a hint's short searches (and the beam's) would otherwise
 * touch 20 MB each for a few thousand keys. */
static void keep(Table *set, uint64_t state)
{
    if (table_add_growing(set, mix64(state)) == TABLE_FULL) {
        table_clear(set);
        table_add_growing(set, mix64(state));
    }
}

/* Relaxation._search: is no win reachable from `start` (neither lost nor open)? */
static bool search_lost(Relaxation *r, uint64_t start)
{
    int32_t count = 1, pending = 1, open_from = -1;
    r->order[0] = start;
    r->from[0] = -1;
    r->todo[0] = 0;
    table_add(&r->visited, mix64(start));
    bool gave_up = false;
    uint64_t next[MOST_FOLLOWING];
    while (pending && open_from < 0 && !gave_up) {
        int32_t at = r->todo[--pending];
        int n = following(r, r->order[at], next);
        for (int i = 0; i < n; i++) {
            uint64_t mixed = mix64(next[i]);
            if (won(next[i]) || table_has(&r->open, mixed)) {
                open_from = at;  /* a win: every position on the way to it is open */
                break;
            }
            if (table_has(&r->lost, mixed))
                continue;  /* nothing to find there */
            TableAdd added = table_add(&r->visited, mixed);
            if (added == TABLE_SEEN)
                continue;
            if (added == TABLE_FULL) {
                gave_up = true;
                break;
            }
            r->order[count] = next[i];
            r->from[count] = at;
            r->todo[pending++] = count++;
        }
    }
    for (int32_t i = 0; i < count; i++)  /* emptied key by key: most tests meet few */
        table_clear_around(&r->visited, mix64(r->order[i]));
    if (gave_up) {
        keep(&r->open, start);
        return false;
    }
    if (open_from >= 0) {
        for (int32_t at = open_from; at >= 0; at = r->from[at])
            keep(&r->open, r->order[at]);
        return false;
    }
    for (int32_t i = 0; i < count; i++)  /* everything reached from a lost position is lost */
        keep(&r->lost, r->order[i]);
    return true;
}

bool relaxation_lost(Relaxation *r, const Position *p)
{
    uint64_t start;
    if (p->stock.len > RELAXED_STOCK_LIMIT || !image(r, p, &start))
        return false;
    uint64_t mixed = mix64(start);
    if (table_has(&r->lost, mixed))
        return true;
    if (table_has(&r->open, mixed) || won(start))
        return false;
    return search_lost(r, start);
}
