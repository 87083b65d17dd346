/* Keys, safe moves, settle and the benchmark playout (see search.h). */
#include "search.h"

#include <string.h>

/* ------------------------------------------------------------------------- keys */

/* splitmix64's finaliser: a bijection that spreads every input bit over the word. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static const uint64_t SEED = 0x9e3779b97f4a7c15ULL;

/* One section of the key, chained onto `h`: a tag and the length first, so that sections
 * cannot run into each other, then the bytes eight at a time (the last word zero-padded).
 * mix64 is a bijection, so distinct sections collide only by chance, about 2^-64. */
static uint64_t section(uint64_t h, int tag, const uint8_t *bytes, int len)
{
    h = mix64(h ^ ((uint64_t)tag << 32 | (uint64_t)len));
    for (int i = 0; i < len; i += 8) {
        uint64_t word = 0;
        memcpy(&word, bytes + i, (size_t)(len - i < 8 ? len - i : 8));
        h = mix64(h ^ word);
    }
    return h;
}

/* Insertion sorts: a handful of values each. */
static void sort_words(uint64_t *words, int n)
{
    for (int i = 1; i < n; i++) {
        uint64_t word = words[i];
        int j = i;
        for (; j > 0 && words[j - 1] > word; j--)
            words[j] = words[j - 1];
        words[j] = word;
    }
}

static void sort_bytes(uint8_t *bytes, int n)
{
    for (int i = 1; i < n; i++) {
        uint8_t byte = bytes[i];
        int j = i;
        for (; j > 0 && bytes[j - 1] > byte; j--)
            bytes[j] = bytes[j - 1];
        bytes[j] = byte;
    }
}

uint64_t plain_key(const Tables *t, const Position *p)
{
    /* sorted(zip(hidden, tableau)): each pile's own hash, the hashes sorted. */
    uint64_t piles[MAX_PILES];
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        piles[i] = section(SEED, pile->hidden, pile->cards, pile->len);
    }
    sort_words(piles, t->tableau_piles);
    uint64_t h = SEED;
    for (int i = 0; i < t->tableau_piles; i++)
        h = mix64(h ^ piles[i]);
    /* sorted(f[-1] if f else -1): the tops shifted up by one, 0 for an empty foundation. */
    uint8_t tops[MAX_PILES];
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        tops[f] = pile->len ? (uint8_t)(pile->cards[pile->len - 1] + 1) : 0;
    }
    sort_bytes(tops, t->foundation_count);
    h = section(h, 1, tops, t->foundation_count);
    if (t->single_pass)
        h = section(h, 2, &p->stock.len, 1);  /* the length alone */
    else
        h = section(h, 3, p->stock.cards, p->stock.len);
    h = section(h, 4, p->waste.cards, p->waste.len);
    uint8_t counters[3] = {p->reserve.len, (uint8_t)(p->redeals_left & 0xff),
                           (uint8_t)((p->redeals_left >> 8) & 0xff)};
    return section(h, 5, counters, 3);
}

/* ------------------------------------------------------------------- safe moves */

/* _wanted: for each card the foundations take now, the first foundation taking it. */
static void wanted(const Tables *t, const Position *p, int8_t out[DECK])
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

/* Rules.on_foundations: how many copies of `card` are on the foundations. */
static int on_foundations(const Tables *t, const Position *p, int card)
{
    int position = ((card_rank(card) - first_rank(p)) % 13 + 13) % 13;
    int copies = 0;
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        if (pile->len && card_suit(pile->cards[0]) == card_suit(card) && pile->len > position)
            copies++;
    }
    return copies;
}

/* Rules.safe_to_foundation: every card that could want `card` as a parent is up. */
static bool safe_to_foundation(const Tables *t, const Position *p, int card)
{
    for (int m = 0; m < DECK; m++)
        if (t->child[card * DECK + m] && on_foundations(t, p, m) != t->decks)
            return false;
    return true;
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

bool safe_move(const Tables *t, const Position *p, bool eager, Move *out)
{
    int8_t want[DECK];
    wanted(t, p, want);
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        if (!pile->len || pile->hidden >= pile->len)
            continue;
        int top = pile->cards[pile->len - 1];
        if (want[top] < 0)
            continue;
        /* Emptying a pile refills it from the reserve: not provably harmless, so skip. */
        if (t->reserve_fills_empty && pile->len == 1 && p->reserve.len)
            continue;
        if (eager || safe_to_foundation(t, p, top)) {
            to_foundation(out, TABLEAU, i, want[top]);
            return true;
        }
    }
    const CardStack *stacks[2] = {&p->waste, &p->reserve};
    const int kinds[2] = {WASTE, RESERVE};
    for (int s = 0; s < 2; s++) {
        if (!stacks[s]->len)
            continue;
        int top = stacks[s]->cards[stacks[s]->len - 1];
        if (want[top] >= 0 && (eager || safe_to_foundation(t, p, top))) {
            to_foundation(out, kinds[s], 0, want[top]);
            return true;
        }
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

/* --------------------------------------------------------------------- playout */

long playout(const Tables *t, Position *p, uint64_t seed, long steps, uint64_t *keys)
{
    Move moves[MAX_MOVES];
    uint64_t rng = seed;
    long positions = 0;
    *keys = 0;
    for (long step = 0; step < steps; step++) {
        int n = legal_moves(t, p, moves);
        *keys ^= plain_key(t, p);
        positions++;
        if (!n)
            break;
        apply_move(t, p, &moves[lcg_next(&rng) % (uint32_t)n]);
    }
    return positions;
}
