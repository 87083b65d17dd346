/* The relaxed tableau's test for one search, built from its root (see relaxation.h and
 * relaxation.c): the waste sequence, the stock's and reserve's cards at each length, the
 * suits' cards up, the classes, and the tables of relaxed positions. */
#include "relaxation_parts.h"

#include <stdlib.h>

static int first_rank_of(const Position *p) { return first_rank(p) - 1; }

size_t relaxation_lost_limit(size_t table_size)
{
    return table_size / 8 > LOST_LIMIT ? table_size / 8 : LOST_LIMIT;
}

/* The waste sequence (the root's waste, bottom first, then its stock in the order it is
 * drawn) and each card's place in it: the waste mask's bits name these cards. */
static void sequence_prepare(Relaxation *r, const Position *root)
{
    int waste = root->waste.len, stock = root->stock.len;
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
}

/* The cards a relaxed position's lengths and counts stand for: the stock and the reserve
 * only shrink from the top, and the foundations grow a suit's cards in order, so a length
 * or a count names its cards (a bit each) and a top card. */
static void lengths_prepare(Relaxation *r, const Position *root)
{
    for (int len = 1; len <= root->stock.len; len++)
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
}

/* The classes' parents and children and how many classes; false where the bottoms' code
 * would not fit (relaxation.applies says no: Tables.relaxed is false then). */
static bool classes_prepare(Relaxation *r, const Tables *t)
{
    for (int card = 0; card < DECK; card++) {
        int klass = t->klass[card];
        r->parent[klass] = t->parent_class[card];
        r->child[t->parent_class[card]] = (int8_t)klass;
        if (klass >= r->classes)
            r->classes = klass + 1;
    }
    if (r->classes > BOTTOMS_MOST_CLASSES || t->tableau_piles > BOTTOMS_MOST_PILES)
        return false;
    for (int k = 0, power = 1; k < r->classes; k++, power *= BOTTOMS_BASE)
        r->power[k] = (uint32_t)power;
    return true;
}

/* One test's buffers (up to `state_limit` positions) and the sets kept across tests. */
static bool buffers_alloc(Relaxation *r, int state_limit, size_t lost_limit)
{
    r->order = malloc((size_t)state_limit * sizeof *r->order);
    r->from = malloc((size_t)state_limit * sizeof *r->from);
    r->todo = malloc((size_t)state_limit * sizeof *r->todo);
    return r->order && r->from && r->todo
           && table_init_tagged(&r->visited, (size_t)state_limit, false)
           && table_init_tagged(&r->lost, lost_limit, true)
           && table_init_tagged(&r->open, lost_limit / OPEN_SHARE, true);
}

bool relaxation_new(const Tables *t, const Position *root, int stock_limit, int state_limit,
                    size_t lost_limit, Relaxation **out)
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
    r->stock_limit = stock_limit;
    r->deadline = -1;
    sequence_prepare(r, root);
    lengths_prepare(r, root);
    if (!classes_prepare(r, t)) {
        relaxation_free(r);  /* relaxation.applies says no (Tables.relaxed is false) */
        return true;
    }
    if (!buffers_alloc(r, state_limit, lost_limit)) {
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
