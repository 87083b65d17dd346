/* The run-arrangement key, normal form and moves (see arrangements.h); each function
 * names the one of app/solver/arrangements.py it mirrors. The tables are arranged ones:
 * tables_prepare has checked what the comments here rely on. */
#include "arrangements.h"

#include <string.h>

#include "hash.h"
#include "search.h"  /* the move scores */

/* A card's role in its pile's top run, as children numbers them. */
enum { BASE, ROOT, ATTACHED };

/* _run_base is state.c's run_start. (Python walks down to the pile's bottom, through its
 * table of piles, then takes the larger of that and the face-down count: the same index,
 * since the walk only stops early at a card that does not build on the one under it.) */

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

/* top_of.get(parent[card], -1): a pile whose top `card` builds on. */
static int parent_top(const Tables *t, const int8_t top_of[DECK], int card)
{
    int parent = t->parent_class[card];
    return parent < 0 ? -1 : top_of[parent];
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

/* ------------------------------------------------------------------- normalize */

static Move tableau_move(int src_kind, int src, int dst_kind, int dst, int count)
{
    Move move = {MOVE, (uint8_t)src_kind, (uint8_t)src, (uint8_t)dst_kind, (uint8_t)dst,
                 (uint8_t)count};
    return move;
}

/* The first pile (lowest index) whose top card is of class `klass` (the caller knows
 * one is). */
static int first_top_of(const Tables *t, const Position *p, int klass)
{
    int j = 0;
    for (; j + 1 < t->tableau_piles; j++)
        if (p->tableau[j].len && t->klass[p->tableau[j].cards[p->tableau[j].len - 1]] == klass)
            break;
    return j;
}

int normalize(const Tables *t, Position *p, Undo *line)
{
    /* The cap is never what stops it (MAX_NORMALIZE, arrangements.h): it only bounds the
     * line by construction. */
    int n = 0;
    while (n < MAX_NORMALIZE) {
        /* The roots (piles that are one run from their bottom card up, nothing face
         * down) and the classes the tops are of, as bit sets: tops_by_class's table
         * is needed only for the root that moves (first_top_of). */
        uint16_t roots = 0;
        uint64_t top_classes = 0;
        for (int j = 0; j < t->tableau_piles; j++) {
            const TableauPile *pile = &p->tableau[j];
            if (!pile->len)
                continue;
            top_classes |= 1ull << t->klass[pile->cards[pile->len - 1]];
            if (!pile->hidden && run_start(t, pile) == 0)
                roots |= (uint16_t)(1u << j);
        }
        int moved = -1;
        for (int j = 0; roots && j < t->tableau_piles && moved < 0; j++) {
            if (!(roots >> j & 1))
                continue;
            const TableauPile *pile = &p->tableau[j];
            /* Never j itself: without a wrap a run's top is not of its bottom's parent
             * class. */
            int parent = t->parent_class[pile->cards[0]];
            if (parent >= 0 && (top_classes >> parent & 1)) {
                Move move = tableau_move(TABLEAU, j, TABLEAU, first_top_of(t, p, parent),
                                         pile->len);
                apply_undoable(t, p, &move, &line[n++]);
                moved = j;
            }
        }
        if (moved < 0)
            break;  /* no root has a parent top: the normal form */
    }
    return n;
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

/* The children of one tableau pile's top-run cards, in the order Python appends them. */
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
        bool uncovers = role != ATTACHED;  /* a base turns up what is under it; a root
                                              empties its pile */
        int f = want[card];
        if (f >= 0) {
            if (count == 1) {
                put(out, n, uncovers ? FOUNDATION_UNCOVERS : TO_FOUNDATION,
                    tableau_move(TABLEAU, j, FOUNDATION, f, 1));
            } else {
                /* The run on the card goes to a class sibling first (key unchanged); never
                 * pile j itself (no wrap: a run's top is not of the class of a card under
                 * it). */
                int sibling = top_of[t->klass[card]];
                if (sibling >= 0) {
                    int score = (uncovers ? FOUNDATION_UNCOVERS : TO_FOUNDATION) + CLEARED_FIRST;
                    ArrangedChild *child = put(out, n, score,
                                               tableau_move(TABLEAU, j, FOUNDATION, f, 1));
                    child->cleared = true;
                    child->clear = tableau_move(TABLEAU, j, TABLEAU, sibling, count - 1);
                }
            }
        }
        if (role != ATTACHED) {
            int target = parent_top(t, top_of, card);
            if (target >= 0)  /* a base turns up or uncovers what lies under it; a root
                                 frees its pile */
                put(out, n, role == BASE ? TURN_UP + pile->hidden : ROOT_TO_TOP,
                    tableau_move(TABLEAU, j, TABLEAU, target, count));
        }
        if (role != ROOT && empty >= 0)
            put(out, n, role == BASE ? TURN_UP_TO_EMPTY + pile->hidden : SPLIT_TO_EMPTY,
                tableau_move(TABLEAU, j, TABLEAU, empty, count));
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
    const CardStack *stacks[2] = {&p->waste, &p->reserve};
    const int kinds[2] = {WASTE, RESERVE};
    for (int s = 0; s < 2; s++) {
        if (!stacks[s]->len)
            continue;
        int card = stacks[s]->cards[stacks[s]->len - 1];
        if (want[card] >= 0)
            put(out, &n, TO_FOUNDATION, tableau_move(kinds[s], 0, FOUNDATION, want[card], 1));
        int target = parent_top(t, top_of, card);
        if (target >= 0)
            put(out, &n, FROM_WASTE, tableau_move(kinds[s], 0, TABLEAU, target, 1));
        if (empty >= 0)
            put(out, &n, FROM_WASTE_TO_EMPTY, tableau_move(kinds[s], 0, TABLEAU, empty, 1));
    }
    if (t->foundation_return) {
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
                put(out, &n, FROM_FOUNDATION, tableau_move(FOUNDATION, f, TABLEAU, target, 1));
            if (empty >= 0)
                put(out, &n, FROM_FOUNDATION_TO_EMPTY,
                    tableau_move(FOUNDATION, f, TABLEAU, empty, 1));
        }
    }
    /* Draw, else redeal while redeals are left (redeals_left > 0) or unlimited (-1); the
     * same Move values as legal_moves gives. */
    if (p->stock.len || (p->waste.len && p->redeals_left != 0)) {
        Move move = {p->stock.len ? DRAW : REDEAL, 0, 0, 0, 0, 1};
        put(out, &n, p->stock.len ? draw_score : REDEAL_LAST, move);
    }
    /* out.sort(key=score): stable, as Python's sort. */
    for (int i = 1; i < n; i++) {
        ArrangedChild child = out[i];
        int j = i;
        for (; j > 0 && out[j - 1].score > child.score; j--)
            out[j] = out[j - 1];
        out[j] = child;
    }
    return n;
}
