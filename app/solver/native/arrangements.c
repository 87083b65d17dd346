/* The run-arrangement key and moves (see arrangements.h; the argument is the docstring
 * of app/solver/arrangements.py). The tables are arranged ones: tables_prepare has
 * checked what the comments here rely on. */
#include "arrangements.h"

#include <string.h>

#include "hash.h"
#include "keys.h"
#include "scores.h"

/* A card's role in its pile's top run, as children numbers them. */
enum { BASE, ROOT, ATTACHED };

/* A pile's top run starts at run_start (state.h), never below the face-down cards: its
 * card there is the pile's base where anything lies under it, else its root. */

/* top_of: for each class, the first pile whose top card is of it (else -1); returns the
 * first empty pile (else -1). */
static int tops_by_class(const Tables *t, const Position *p, int8_t top_of[DECK])
{
    int empty = -1;
    memset(top_of, -1, DECK);
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *pile = &p->tableau[j];
        if (!pile->len) {
            if (empty < 0)
                empty = j;
            continue;
        }
        int klass = t->klass[pile->cards[pile->len - 1]];
        if (top_of[klass] < 0)
            top_of[klass] = (int8_t)j;
    }
    return empty;
}

/* A pile whose top `card` builds on (the first, from top_of), else -1. */
static int parent_top(const Tables *t, const int8_t top_of[DECK], int card)
{
    int parent = t->parent_class[card];
    return parent < 0 ? -1 : top_of[parent];
}

static int top_class(const Tables *t, const TableauPile *pile)
{
    return t->klass[pile->cards[pile->len - 1]];
}

/* The first pile other than j whose top card is of class `klass`, else -1 (top_of gives
 * the first pile; only with a wrap can it be j's own). */
static int elsewhere(const Tables *t, const Position *p, const int8_t top_of[DECK], int klass,
                     int j)
{
    if (klass < 0)
        return -1;
    if (top_of[klass] != j)
        return top_of[klass];
    for (int i = j + 1; i < t->tableau_piles; i++)
        if (p->tableau[i].len && top_class(t, &p->tableau[i]) == klass)
            return i;
    return -1;
}

/* With a wrap, where pile j's own top is the only top of the class its card i needs: the
 * first other pile with cards (else -1), and in *k the lowest card above i whose card
 * below is of that pile's top class (the run from i to the top holds every class, and the
 * one wanted is not the caller's). */
static int split(const Tables *t, const Position *p, int j, int i, int *k)
{
    const TableauPile *pile = &p->tableau[j];
    for (int other = 0; other < t->tableau_piles; other++) {
        if (other == j || !p->tableau[other].len)
            continue;
        int wanted = top_class(t, &p->tableau[other]);
        for (*k = i + 1; *k < pile->len && t->klass[pile->cards[*k - 1]] != wanted; (*k)++)
            ;
        return other;
    }
    return -1;
}

/* ------------------------------------------------------------------------- key */

uint64_t arranged_key(const Tables *t, Position *p)
{
    /* The three multisets of the tableau (what lies under each pile's base, hashed with
     * its face-down count; the roots; the attached cards), summed rather than sorted:
     * a strong hash of each under-part and a random weight for each root and each
     * attached card (root_weight, attached_weight), so that two positions whose
     * multisets differ share the sum only by chance, about 2^-64. */
    uint64_t piles = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *pile = &p->tableau[j];
        if (!pile->len)
            continue;
        int k = run_start(t, pile);
        if (k)
            piles += cards_section(SEED, pile->hidden, pile->cards, k + 1);
        else
            piles += root_weight[pile->cards[0]];
        for (int i = k + 1; i < pile->len; i++)
            piles += attached_weight[pile->cards[i]];
    }
    /* The foundation tops, the stock and the waste as the plain key has them (kept in
     * the position), then the reserve's cards (the plain key has only their number) and
     * redeals left. */
    uint64_t h = mix64(mix64(SEED ^ piles) ^ shared_key_parts(t, p));
    h = section(h, 17, p->reserve.cards, p->reserve.len);
    uint8_t redeals[2] = {(uint8_t)(p->redeals_left & 0xff),
                          (uint8_t)((p->redeals_left >> 8) & 0xff)};
    return section(h, 18, redeals, 2);
}

static Move tableau_move(int src_kind, int src, int dst_kind, int dst, int count)
{
    Move move = {MOVE, (uint8_t)src_kind, (uint8_t)src, (uint8_t)dst_kind, (uint8_t)dst,
                 (uint8_t)count};
    return move;
}

/* -------------------------------------------------------------------- children */

static ArrangedChild *put(ArrangedChild *out, int *n, int score, Move move)
{
    ArrangedChild *child = &out[(*n)++];
    memset(child, 0, sizeof *child);
    child->score = (int16_t)score;
    child->move = move;
    return child;
}

/* One more move before the child's own (its before list). */
static void before(ArrangedChild *child, Move move)
{
    child->before[child->before_len++] = move;
}

/* Pile j's card i to foundation f, at once when it is the top card, else after the run on
 * it goes to a class sibling (key unchanged). With a wrap that sibling can be the run's
 * own top, and the only one (split). */
static void foundation_child(const Tables *t, const Position *p, const int8_t top_of[DECK],
                             int empty, int j, int i, int f, bool uncovers, ArrangedChild *out,
                             int *n)
{
    const TableauPile *pile = &p->tableau[j];
    int len = pile->len, klass = t->klass[pile->cards[i]];
    int score = uncovers ? FOUNDATION_UNCOVERS : TO_FOUNDATION;
    Move up = tableau_move(TABLEAU, j, FOUNDATION, f, 1);
    if (i == len - 1) {
        put(out, n, score, up);
        return;
    }
    score += CLEARED_FIRST;
    int sibling = elsewhere(t, p, top_of, klass, j);
    if (sibling >= 0) {
        before(put(out, n, score, up), tableau_move(TABLEAU, j, TABLEAU, sibling, len - i - 1));
        return;
    }
    if (top_class(t, pile) != klass)
        return;  /* no sibling anywhere: the card cannot be cleared */
    int k, other = split(t, p, j, i, &k);
    if (other >= 0) {
        /* The run from card k onto the other pile's top takes the sibling there; the
         * rest of the run on the card follows it. */
        ArrangedChild *child = put(out, n, score, up);
        before(child, tableau_move(TABLEAU, j, TABLEAU, other, len - k));
        before(child, tableau_move(TABLEAU, j, TABLEAU, other, k - i - 1));
    } else if (i && empty >= 0) {
        /* Every card in play is in this pile, on the card's parent: the run from the
         * first sibling above the card to an empty pile, the rest of the run on the card
         * onto it, the card up, and the empty pile's cards back onto the parent. */
        int s = i + 1;
        while (t->klass[pile->cards[s]] != klass)
            s++;
        ArrangedChild *child = put(out, n, score, tableau_move(TABLEAU, empty, TABLEAU, j,
                                                                len - i - 1));
        before(child, tableau_move(TABLEAU, j, TABLEAU, empty, len - s));
        before(child, tableau_move(TABLEAU, j, TABLEAU, empty, s - i - 1));
        before(child, up);
    }
}

/* The children of one tableau pile's top-run cards, from the run's bottom card up: the
 * order equal scores keep. */
static void pile_children(const Tables *t, const Position *p, const int8_t want[DECK],
                          const int8_t top_of[DECK], int empty, int j, uint64_t done[3],
                          ArrangedChild *out, int *n)
{
    const TableauPile *pile = &p->tableau[j];
    int len = pile->len, k = run_start(t, pile);
    for (int i = k; i < len; i++) {
        int card = pile->cards[i], count = len - i;
        int role = i == k ? (k ? BASE : ROOT) : ATTACHED;
        if (role != BASE) {
            /* Equal cards in equal roles give the same key successors (a base's pile is
             * its own, so two bases are never alike). */
            uint64_t bit = 1ULL << card;
            if (done[role] & bit)
                continue;
            done[role] |= bit;
        }
        if (want[card] >= 0)  /* a base turns up what is under it; a root empties its pile */
            foundation_child(t, p, top_of, empty, j, i, want[card], role != ATTACHED, out, n);
        if (role != ATTACHED) {
            /* a base turns up or uncovers what lies under it; a root frees its pile */
            int score = role == BASE ? TURN_UP + pile->hidden : ROOT_TO_TOP;
            int parent = t->parent_class[card];
            int target = elsewhere(t, p, top_of, parent, j);
            if (target >= 0) {
                put(out, n, score, tableau_move(TABLEAU, j, TABLEAU, target, count));
            } else if (parent >= 0 && top_class(t, pile) == parent) {
                /* A wrap: the only such top is this run's own. Another pile's top takes
                 * the run from a card above first (key unchanged), then the card goes
                 * onto the top that run carried there. */
                int above, other = split(t, p, j, i, &above);
                if (other >= 0)
                    before(put(out, n, score, tableau_move(TABLEAU, j, TABLEAU, other, above - i)),
                           tableau_move(TABLEAU, j, TABLEAU, other, len - above));
            }
        }
        if (role != ROOT && empty >= 0)
            put(out, n, role == BASE ? TURN_UP_TO_EMPTY + pile->hidden : SPLIT_TO_EMPTY,
                tableau_move(TABLEAU, j, TABLEAU, empty, count));
    }
}

/* The waste's and the reserve's tops: up, onto a parent top, into an empty pile. */
static void stack_children(const Tables *t, const Position *p, const int8_t want[DECK],
                           const int8_t top_of[DECK], int empty, ArrangedChild *out, int *n)
{
    const CardStack *stacks[2] = {&p->waste, &p->reserve};
    const int kinds[2] = {WASTE, RESERVE};
    for (int s = 0; s < 2; s++) {
        if (!stacks[s]->len)
            continue;
        int card = stacks[s]->cards[stacks[s]->len - 1];
        if (want[card] >= 0)
            put(out, n, TO_FOUNDATION, tableau_move(kinds[s], 0, FOUNDATION, want[card], 1));
        int target = parent_top(t, top_of, card);
        if (target >= 0)
            put(out, n, FROM_WASTE, tableau_move(kinds[s], 0, TABLEAU, target, 1));
        if (empty >= 0)
            put(out, n, FROM_WASTE_TO_EMPTY, tableau_move(kinds[s], 0, TABLEAU, empty, 1));
    }
}

/* The foundations' tops back onto a parent top or into an empty pile, where the house
 * rule lets them return; a top card already met on another foundation (two decks) once. */
static void return_children(const Tables *t, const Position *p, const int8_t top_of[DECK],
                            int empty, ArrangedChild *out, int *n)
{
    uint64_t returned = 0;  /* the foundation tops already given their moves */
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        if (!pile->len)
            continue;
        int card = pile->cards[pile->len - 1];
        if (returned >> card & 1)
            continue;
        returned |= 1ULL << card;
        int target = parent_top(t, top_of, card);
        if (target >= 0)
            put(out, n, FROM_FOUNDATION, tableau_move(FOUNDATION, f, TABLEAU, target, 1));
        if (empty >= 0)
            put(out, n, FROM_FOUNDATION_TO_EMPTY, tableau_move(FOUNDATION, f, TABLEAU, empty, 1));
    }
}

/* By score, stably: equal scores keep the order the children were made in (an insertion
 * sort: the lists are short). */
static void sort_by_score(ArrangedChild *out, int n)
{
    for (int i = 1; i < n; i++) {
        ArrangedChild child = out[i];
        int j = i;
        for (; j > 0 && out[j - 1].score > child.score; j--)
            out[j] = out[j - 1];
        out[j] = child;
    }
}

int arranged_children(const Tables *t, const Position *p, const int8_t want[DECK],
                      int draw_score, ArrangedChild *out)
{
    int8_t top_of[DECK];
    int empty = tops_by_class(t, p, top_of), n = 0;
    uint64_t done[3] = {0, 0, 0};  /* by role: the cards already given their moves */
    for (int j = 0; j < t->tableau_piles; j++)
        if (p->tableau[j].len)
            pile_children(t, p, want, top_of, empty, j, done, out, &n);
    stack_children(t, p, want, top_of, empty, out, &n);
    if (t->foundation_return)
        return_children(t, p, top_of, empty, out, &n);
    /* Draw, else redeal while redeals are left (redeals_left > 0) or unlimited (-1); the
     * same Move values as legal_moves gives. */
    if (p->stock.len || (p->waste.len && p->redeals_left != 0)) {
        Move move = {p->stock.len ? DRAW : REDEAL, 0, 0, 0, 0, 1};
        put(out, &n, p->stock.len ? draw_score : REDEAL_LAST, move);
    }
    sort_by_score(out, n);
    return n;
}
