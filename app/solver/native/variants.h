/* The per-variant tables the core reads: a mirror of what app/engine/variants.py
 * (Variant and its lookup tables) and app/solver/tables.py (SearchTables) hold.
 *
 * Nothing here is typed per game: app/solver/core.py builds one Tables value from
 * each Variant and hands it over (module.c reads the Python arguments). */
#ifndef SOLVER_NATIVE_VARIANTS_H
#define SOLVER_NATIVE_VARIANTS_H

#include <stdbool.h>
#include <stdint.h>

enum {
    DECK = 52,        /* card ids are suit * 13 + rank - 1, as in app/engine/cards.py */
    MAX_PILES = 16,   /* the engine's pile ids go up to tableau-15 / foundation-15 */
    NO_CARD = 255,    /* found_next: a foundation topped by this card takes nothing */
};

/* The cards a tableau card takes (derived from stack_ok: Variant.accepted_by). */
typedef struct {
    uint8_t count;
    uint8_t cards[DECK];
} Accepted;

typedef struct {
    uint8_t decks;
    uint8_t tableau_piles;
    uint8_t foundation_count;
    uint8_t draw;                /* cards one draw turns over */
    bool runs_any;               /* Variant.runs == "any" (else single cards move) */
    bool reserve_fills_empty;
    bool foundation_return;
    bool single_pass;            /* Variant.redeals == 0: the stock is keyed by its length */
    bool stack_ok[DECK * DECK];  /* [target * 52 + moving]: may moving go on target */
    uint8_t found_next[DECK];    /* the card a foundation topped by this one takes, or NO_CARD */
    /* [card * 52 + child]: child could want card as its tableau parent (tables.SearchTables.children) */
    bool child[DECK * DECK];
    Accepted accepted_by[DECK];  /* filled in by tables_prepare */
    Accepted children_of[DECK];  /* the same for `child`: the cards that could want each one */
    /* The same for narrow searches (SearchTables.narrow_children): they prove nothing, so
     * they may play by a rule that is not a proof where foundation cards return. */
    bool narrow_child[DECK * DECK];
    Accepted narrow_children_of[DECK];
    /* The rule of a search without safe moves (the safe-move reduction left out): each
     * card waits for all its own copies to be up, so none is ever safe to put up (one is
     * the card going up); a deferred draw's look with cards returned may find one safe,
     * which only skips fewer children. */
    Accepted never_safe[DECK];
    /* Filled in by tables_prepare: every card builds on a card one rank above its own
     * (a King on an Ace where the build wraps), as in every game the engine has. Then
     * the ranks of a run go up by one from its top card, modulo 13, and the search finds
     * where in a run a card could go onto another without walking the run. */
    bool builds_down;
    /* Filled in by tables_prepare: some card builds on itself through a chain of cards
     * each on the last (a King on an Ace, round the whole cycle). */
    bool wraps;
    /* Where builds_down: [parent * 52 + top], the first count at which a run topped by
     * `top` could go onto `parent` (rank(parent) - rank(top), 13 for 0); the next ones are
     * 13 apart. Else 1 (every count is tried). */
    uint8_t first_fit[DECK * DECK];
    /* The run-arrangement tables (app/solver/arrangements.py), meaningful only where
     * `arranged` (arrangements.supports): the class of each card (_classes()[0]) and the
     * class of the cards it builds on (_classes()[1], -1: none). */
    bool arranged;
    uint8_t klass[DECK];
    int8_t parent_class[DECK];
    /* The relaxed tableau's dead-end test applies (relaxation.applies; it reads klass and
     * parent_class, which are then handed over too). */
    bool relaxed;
} Tables;

/* Check the tables handed over and derive the rest: NULL, or why they cannot be used.
 * Arranged tables must hold what arrangements.c relies on (see there). */
const char *tables_prepare(Tables *t);

static inline int card_rank(int card) { return card % 13 + 1; }
static inline int card_suit(int card) { return card / 13; }

/* SearchTables.waste_settles: settle plays the waste's top only where taking a card out
 * of the waste leaves every other one reachable as before (one card a draw, or no
 * redeal); drawing three with redeals, it shifts the threes of every later pass. */
static inline bool waste_settles(const Tables *t) { return t->draw == 1 || t->single_pass; }

static inline bool stack_ok(const Tables *t, int target, int moving)
{
    return t->stack_ok[target * DECK + moving];
}

#endif
