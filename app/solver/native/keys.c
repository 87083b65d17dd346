/* The position keys' shared parts and the plain key (see keys.h). */
#include "keys.h"

#include <stdlib.h>

#include "hash.h"

typedef char cards_are_whole_words[MAX_CARDS % 8 == 0 ? 1 : -1];

uint64_t root_weight[DECK], attached_weight[DECK];

void keys_init(void)
{
    for (int top = 0; top <= DECK; top++)  /* state.h top_hash */
        top_hash[top] = mix64(SEED + (uint64_t)top);
    uint64_t x = 0x2545f4914f6cdd1dULL;  /* splitmix64: add the golden gamma, mix */
    for (int card = 0; card < DECK; card++) {
        root_weight[card] = mix64(x += SEED);
        attached_weight[card] = mix64(x += SEED);
    }
}

/* The key's parts, each as plain_key keeps it in the position. */
static uint64_t pile_key(const TableauPile *pile)
{
    return cards_section(SEED, pile->hidden, pile->cards, pile->len);
}

static uint64_t stacks_key(const Tables *t, const Position *p)
{
    /* With one pass, the stock is always a prefix of the dealt stock: its length. */
    uint64_t h = t->single_pass ? section(SEED, 2, &p->stock.len, 1)
                                : cards_section(SEED, 3, p->stock.cards, p->stock.len);
    return cards_section(h, 4, p->waste.cards, p->waste.len);
}

#ifdef SOLVER_CHECKS
static uint64_t tops_key(const Tables *t, const Position *p)
{
    /* The foundations' tops as a multiset: each top (0 for an empty foundation) hashed,
     * and the hashes summed. */
    uint64_t tops = 0;
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        tops += top_hash[pile->len ? pile->cards[pile->len - 1] + 1 : 0];
    }
    return tops;
}
#endif

#ifdef SOLVER_CHECKS
/* The cards some foundation takes next (wanted(...)[card] >= 0), worked out from the
 * foundations: what Position.wanted_cards, kept by apply and undo, must be. */
static uint64_t wanted_set(const Tables *t, const Position *p)
{
    uint64_t cards = 0;
    bool empty = false;
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        if (!pile->len)
            empty = true;
        else if (pile->len < FOUNDATION_CAP && t->found_next[pile->cards[pile->len - 1]] != NO_CARD)
            cards |= 1ull << t->found_next[pile->cards[pile->len - 1]];
    }
    for (int suit = 0; empty && suit < 4; suit++)
        cards |= 1ull << (suit * 13 + first_rank(p) - 1);
    return cards;
}

#include <stdio.h>
/* Built with -DSOLVER_CHECKS: every part the position says is fresh is what it would be
 * worked out again (apply marks what it changes stale, undo puts the parts back). */
static void check_fresh(const Tables *t, const Position *p)
{
    uint64_t sum = 0;
    bool fresh = true;
    for (int i = 0; i < t->tableau_piles; i++) {
        sum += p->pile_hash[i];
        fresh = fresh && ((p->stale & (1u << i)) || p->pile_hash[i] == pile_key(&p->tableau[i]));
    }
    fresh = fresh && sum == p->piles_hash
         && ((p->stale & STALE_STACKS) || p->stacks_hash == stacks_key(t, p))
         && p->tops_hash == tops_key(t, p) && p->wanted_cards == wanted_set(t, p);
    if (!fresh) {
        fprintf(stderr, "SOLVER_CHECKS: a key part kept fresh is not the position's\n");
        abort();
    }
}
#endif

uint64_t shared_key_parts(const Tables *t, Position *p)
{
#ifdef SOLVER_CHECKS
    check_fresh(t, p);
#endif
    if (p->stale & STALE_STACKS) {
        p->stacks_hash = stacks_key(t, p);
        p->stale &= ~STALE_STACKS;
    }
    return mix64(p->tops_hash ^ mix64(p->stacks_hash));
}

uint64_t plain_key(const Tables *t, Position *p)
{
#ifdef SOLVER_CHECKS
    check_fresh(t, p);
#endif
    /* Refresh the parts a move changed since (Position.stale). The piles are a multiset
     * (each with its face-down count): their hashes are summed, which needs no sort and
     * follows a changed pile by two additions. Each pile's hash is a strong 64-bit one,
     * so two different multisets share a sum only by chance. */
    for (int i = 0; p->stale & ((1u << t->tableau_piles) - 1); i++)
        if (p->stale & (1u << i)) {
            uint64_t fresh = pile_key(&p->tableau[i]);
            p->piles_hash += fresh - p->pile_hash[i];
            p->pile_hash[i] = fresh;
            p->stale &= ~(1u << i);
        }
    uint64_t h = mix64(mix64(SEED ^ p->piles_hash) ^ shared_key_parts(t, p));
    uint8_t counters[3] = {p->reserve.len, (uint8_t)(p->redeals_left & 0xff),
                           (uint8_t)((p->redeals_left >> 8) & 0xff)};
    return section(h, 5, counters, 3);
}
