/* The relaxed tableau's dead-end test (see relaxation.h and app/solver/relaxation.py).
 *
 * A relaxed position is one 64-bit word and the bottoms, exact (no hash): the word says
 * which cards of the search's waste sequence are in the waste, the stock and reserve
 * lengths, and how many cards of each suit are up. The waste sequence is the root's
 * waste, bottom first, then its stock in the order it is drawn: with one pass, every
 * waste card of the search is one of them, and the waste is those its mask names, in that
 * order. The bottoms are a code: the sum, over the piles, of 5 to the power of the
 * bottom's class (a base-5 digit a class, with at most 4 piles). The tables hold each
 * word through mix64 (a bijection: still exact), which spreads its bits for their
 * probing, with the bottoms' code as the key's tag (table.h). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime, for a test's deadline */
#include "relaxation_parts.h"

#include <stdlib.h>
#include <time.h>

#include "arrays.h"
#include "hash.h"

static int up_count(uint64_t state, int suit) { return (int)(state >> (UP_SHIFT + 4 * suit)) & 15; }
static int stock_len(uint64_t state) { return (int)(state >> STOCK_SHIFT) & 63; }
static int reserve_len(uint64_t state) { return (int)(state >> RESERVE_SHIFT) & 15; }
static uint64_t waste_mask(uint64_t state) { return state & ((1ULL << SEQUENCE_BITS) - 1); }

/* The tableau's cards of each class (`counts`), its bottoms by class (`below`), how many
 * cards and bottoms in all, and the bottoms' code (the top of the file). */
typedef struct {
    int counts[BOTTOMS_MOST_CLASSES], below[BOTTOMS_MOST_CLASSES];  /* zeroed each time */
    int cards, piles;
    uint32_t code;
} Tableau;

/* The tops of class `klass`: its cards but those with a card on them. */
static int tops(const Relaxation *r, const Tableau *tab, int klass)
{
    int child = r->child[klass];
    return tab->counts[klass] - tab->counts[child] + tab->below[child];
}

/* The bounds every move `following` lists is checked against: can the tableau be laid
 * out with `change` cards of `klass` more (`bottom` of them bottoms)? If so, `*bottoms` is
 * its bottoms' code after.
 * Only what the change touches is looked at: every relaxed position met keeps the bounds
 * (the image of a real one does, and each move is checked), and a change of class k's
 * cards or bottoms moves no bound but k's own and the tops of k and of its parent class,
 * so a look at every class would give the same answer. */
static bool fits(const Relaxation *r, Tableau *tab, int klass, int change, int bottom,
                 uint32_t *bottoms)
{
    tab->counts[klass] += change;
    tab->below[klass] += bottom;
    int piles = tab->piles + bottom, cards = tab->cards + change;
    bool fit = tab->below[klass] >= 0 && tab->below[klass] <= tab->counts[klass]
               && tops(r, tab, klass) >= 0 && tops(r, tab, r->parent[klass]) >= 0
               && piles <= r->t->tableau_piles && (piles > 0 || cards == 0);
    tab->counts[klass] -= change;
    tab->below[klass] -= bottom;
    *bottoms = tab->code + (uint32_t)(bottom * (int64_t)r->power[klass]);
    return fit;
}

/* The image of a position of the search, or false where one of its waste cards is not
 * in the sequence (never, from the root's descendants). */
static bool image(const Relaxation *r, const Position *p, Relaxed *out)
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
    uint32_t code = 0;
    for (int i = 0; i < r->t->tableau_piles; i++)
        if (p->tableau[i].len)
            code += r->power[r->t->klass[p->tableau[i].cards[0]]];
    *out = (Relaxed){state, code};
    return true;
}

/* A bound on the moves of a relaxed position: two within the tableau a class, two a
 * foundation's return, two for the waste's and for the reserve's top, a draw, two a card
 * up from the tableau, the waste's and the reserve's top up. */
enum { MOST_FOLLOWING = 2 * DECK + 8 + 4 + 1 + 8 + 2 };

/* A relaxed position taken apart for `following`: the suits' counts up, the stock's,
 * reserve's and waste's state, the tableau's cards (`in`, a bit each) and its layout by
 * class, and whether a pile is empty and may take any card (the reserve being empty, as
 * it refills every empty pile at once). Each kind of move reads these rather than the
 * word, so that the moves can be listed by helpers of their own. */
typedef struct {
    uint64_t state, waste, in;
    uint32_t bottoms;
    int up[4], stock, reserve;
    Tableau tab;
    bool empty, takes_any;
} Unpacked;

/* The waste's and the reserve's tops, index 0 and 1: the word with the card gone, the
 * card (-1: none), and whether it may go to an empty pile. */
typedef struct {
    uint64_t rests[2];
    int cards[2];
    bool may_open[2];
} StackTops;

/* The cards out of the tableau (up, in the stock, the reserve or the waste) as bits. */
static uint64_t cards_out(const Relaxation *r, const Unpacked *u)
{
    uint64_t out = 0;
    for (int suit = 0; suit < 4; suit++)
        out |= r->up_cards[suit][u->up[suit]];
    out |= r->stock_cards[u->stock] | r->reserve_cards[u->reserve];
    for (uint64_t bits = u->waste; bits; bits &= bits - 1)
        out |= 1ULL << r->sequence[__builtin_ctzll(bits)];
    return out;
}

static void unpack(const Relaxation *r, Relaxed at, Unpacked *u)
{
    uint64_t state = at.word;
    u->state = state;
    u->bottoms = at.bottoms;
    for (int suit = 0; suit < 4; suit++)
        u->up[suit] = up_count(state, suit);
    u->stock = stock_len(state);
    u->reserve = reserve_len(state);
    u->waste = waste_mask(state);
    u->in = ~cards_out(r, u) & ((1ULL << DECK) - 1);  /* the tableau */
    u->tab = (Tableau){{0}, {0}, 0, 0, at.bottoms};
    for (uint64_t bits = u->in; bits; bits &= bits - 1, u->tab.cards++)
        u->tab.counts[r->t->klass[__builtin_ctzll(bits)]]++;
    uint32_t digits = at.bottoms;  /* class k's digit is worth r->power[k], BOTTOMS_BASE^k */
    for (int k = 0; k < r->classes; k++, digits /= BOTTOMS_BASE) {
        u->tab.below[k] = (int)(digits % BOTTOMS_BASE);
        u->tab.piles += u->tab.below[k];
    }
    /* A pile is empty, and (once the reserve is empty, which refills every empty pile at
     * once) may take any card or run. */
    u->empty = u->tab.piles < r->t->tableau_piles;
    u->takes_any = u->empty && !u->reserve;
}

/* Moves within the tableau, a class at a time. */
static int within_tableau(const Relaxation *r, Unpacked *u, Relaxed *next, int n)
{
    uint32_t after;
    for (int k = 0; k < r->classes; k++) {
        /* a whole pile onto a top of its bottom's parent class */
        if (u->tab.below[k] && tops(r, &u->tab, r->parent[k])
            && fits(r, &u->tab, k, 0, -1, &after))
            next[n++] = (Relaxed){u->state, after};
        /* a run from a card not a bottom into an empty pile */
        if (u->takes_any && u->tab.counts[k] > u->tab.below[k]
            && fits(r, &u->tab, k, 0, 1, &after))
            next[n++] = (Relaxed){u->state, after};
    }
    return n;
}

/* A foundation's top back onto the tableau: onto a top, or into an empty pile. */
static int foundation_returns(const Relaxation *r, Unpacked *u, Relaxed *next, int n)
{
    uint32_t after;
    for (int suit = 0; suit < 4; suit++) {
        if (!u->up[suit])
            continue;
        int card = r->up_card[suit][u->up[suit] - 1];
        for (int bottom = 0; bottom <= (u->takes_any ? 1 : 0); bottom++)
            if (fits(r, &u->tab, r->t->klass[card], 1, bottom, &after))
                next[n++] = (Relaxed){u->state - (1ULL << (UP_SHIFT + 4 * suit)), after};
    }
    return n;
}

static StackTops stack_tops(const Relaxation *r, const Unpacked *u)
{
    int top = u->waste ? 63 - __builtin_clzll(u->waste) : 0;
    StackTops s = {
        {u->state & ~(1ULL << top), u->state - (1ULL << RESERVE_SHIFT)},
        {u->waste ? r->sequence[top] : -1, u->reserve ? r->reserve_top[u->reserve] : -1},
        {u->takes_any, u->empty},
    };
    return s;
}

/* The waste's and the reserve's tops onto the tableau: onto a top, or into an empty pile. */
static int stack_tops_down(const Relaxation *r, Unpacked *u, const StackTops *s, Relaxed *next,
                           int n)
{
    uint32_t after;
    for (int i = 0; i < 2; i++)
        for (int bottom = 0; s->cards[i] >= 0 && bottom <= (s->may_open[i] ? 1 : 0); bottom++)
            if (fits(r, &u->tab, r->t->klass[s->cards[i]], 1, bottom, &after))
                next[n++] = (Relaxed){s->rests[i], after};
    return n;
}

/* A tableau card up, with a card under it or none. */
static int tableau_ups(const Relaxation *r, Unpacked *u, Relaxed *next, int n)
{
    const uint8_t *klass = r->t->klass;
    uint32_t after;
    for (int suit = 0; suit < 4; suit++) {
        int card = u->up[suit] < FOUNDATION_CAP ? r->up_card[suit][u->up[suit]] : -1;
        if (card < 0 || !(u->in & 1ULL << card) || !tops(r, &u->tab, klass[card]))
            continue;
        for (int bottom = 0; bottom >= -1; bottom--)  /* a card under it, or none */
            if (fits(r, &u->tab, klass[card], -1, bottom, &after))
                next[n++] = (Relaxed){u->state + (1ULL << (UP_SHIFT + 4 * suit)), after};
    }
    return n;
}

/* The waste's or the reserve's top up, where it is its suit's next card. */
static int stack_tops_up(const Relaxation *r, const Unpacked *u, const StackTops *s,
                         Relaxed *next, int n)
{
    for (int i = 0; i < 2; i++) {
        int suit = s->cards[i] >= 0 ? card_suit(s->cards[i]) : 0;
        if (s->cards[i] >= 0 && u->up[suit] < FOUNDATION_CAP
            && r->up_card[suit][u->up[suit]] == s->cards[i])
            next[n++] = (Relaxed){s->rests[i] + (1ULL << (UP_SHIFT + 4 * suit)), u->bottoms};
    }
    return n;
}

/* The relaxed positions one move from `at` (not won), those putting a card up last, so
 * that the depth-first search tries them first. The order of the kinds of move below
 * decides which relaxed positions a test meets before it gives up, so the search's
 * answers depend on it. */
static int following(const Relaxation *r, Relaxed at, Relaxed *next)
{
    Unpacked u;
    unpack(r, at, &u);
    int n = within_tableau(r, &u, next, 0);
    n = foundation_returns(r, &u, next, n);
    StackTops s = stack_tops(r, &u);
    n = stack_tops_down(r, &u, &s, next, n);
    if (u.stock)  /* draw: the next card of the sequence joins the waste */
        next[n++] = (Relaxed){(u.state - (1ULL << STOCK_SHIFT))
                                  | 1ULL << (r->sequence_len - u.stock),
                              at.bottoms};
    n = tableau_ups(r, &u, next, n);
    return stack_tops_up(r, &u, &s, next, n);
}

static bool won(Relaxed at)
{
    for (int suit = 0; suit < 4; suit++)
        if (up_count(at.word, suit) != FOUNDATION_CAP)
            return false;
    return true;
}

/* A relaxed position into a tagged table. */
static TableAdd add(Table *set, Relaxed at)
{
    return table_add_tagged(set, mix64(at.word), at.bottoms);
}

/* Add a relaxed position to a set of one search's, starting it afresh when full (or
 * where growing it finds no memory: forgetting what a set knows is always sound). The
 * sets start small and grow: a hint's short searches (and the beam's) would otherwise
 * touch 20 MB each for a few thousand keys. */
static void keep(Table *set, Relaxed at)
{
    if (add(set, at) == TABLE_FULL) {
        table_clear(set);
        add(set, at);
    }
}

static bool has(const Table *set, Relaxed at)
{
    return table_has_tagged(set, mix64(at.word), at.bottoms);
}

/* Is no win reachable from `start` (neither lost nor open)? */
static bool search_lost(Relaxation *r, Relaxed start)
{
    int32_t count = 1, pending = 1, open_from = -1;
    r->order[0] = start;
    r->from[0] = -1;
    r->todo[0] = 0;
    add(&r->visited, start);
    bool gave_up = false;
    Relaxed next[MOST_FOLLOWING];
    while (pending && open_from < 0 && !gave_up) {
        int32_t at = r->todo[--pending];
        int n = following(r, r->order[at], next);
        for (int i = 0; i < n; i++) {
            /* Met already: it was neither won, open nor lost then, and the two sets
             * change only once the test ends. Asked first: most are, and this set is
             * small where the others are large
             * (docs/decisions/0005-relaxed-test-asks-its-own-set-first.md). */
            if (has(&r->visited, next[i]))
                continue;
            if (won(next[i]) || has(&r->open, next[i])) {
                open_from = at;  /* a win: every position on the way to it is open */
                break;
            }
            if (has(&r->lost, next[i]))
                continue;  /* nothing to find there */
            if (add(&r->visited, next[i]) == TABLE_FULL
                || (r->deadline >= 0 && count % RELAXED_CLOCK_EVERY == 0
                    && now_seconds() > r->deadline)) {
                gave_up = true;
                break;
            }
            r->order[count] = next[i];
            r->from[count] = at;
            r->todo[pending++] = count++;
        }
    }
    for (int32_t i = 0; i < count; i++)  /* emptied key by key: most tests meet few */
        table_clear_around_tagged(&r->visited, mix64(r->order[i].word), r->order[i].bottoms);
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

void relaxation_set_deadline(Relaxation *r, double deadline) { r->deadline = deadline; }

bool relaxation_lost(Relaxation *r, const Position *p)
{
    Relaxed start;
    if (p->stock.len > r->stock_limit || !image(r, p, &start))
        return false;
    if (has(&r->lost, start))
        return true;
    if (has(&r->open, start) || won(start))
        return false;
    return search_lost(r, start);
}
