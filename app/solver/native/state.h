/* Positions, legal moves and apply: a mirror of app/engine/state.py (State) and the
 * move values of app/engine/moves.py. The order of legal_moves() is the engine's. */
#ifndef SOLVER_NATIVE_STATE_H
#define SOLVER_NATIVE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "variants.h"

enum {
    MAX_CARDS = 104,      /* two decks: no pile, nor all of them together, holds more */
    FOUNDATION_CAP = 13,  /* a foundation is complete at 13 cards */
    BYTES_VERSION = 1,    /* State.to_bytes's format version */
    /* A bound on legal moves: every face-up tableau card to at most 16 piles, the tops
     * also to 16 foundations; waste and reserve tops anywhere; foundation tops back to
     * the tableau; draw or redeal. */
    MAX_MOVES = MAX_CARDS * MAX_PILES + MAX_PILES * MAX_PILES + 4 * MAX_PILES
              + MAX_PILES * MAX_PILES + 1,
    MOVE_TEXT_SIZE = 16,  /* "t15>t15x104" and its NUL fit */
    /* Room past the cards of a tableau pile (and of a run being moved), so that a run is
     * copied sixteen bytes at a time (copy_run) without reading or writing past the
     * array: what lies above a pile's length is never read as cards. */
    RUN_CHUNK = 16,
    PILE_ROOM = MAX_CARDS + RUN_CHUNK,
};

/* Pile kinds and move actions, as the engine names them. */
typedef enum { STOCK, WASTE, RESERVE, FOUNDATION, TABLEAU } PileKind;
typedef enum { MOVE, DRAW, REDEAL } Action;

typedef struct {
    uint8_t action;            /* Action */
    uint8_t src_kind, src;     /* PileKind and index (index 0 for waste and reserve) */
    uint8_t dst_kind, dst;
    uint8_t count;             /* cards moved, 1 unless a run moves */
} Move;

typedef struct {
    uint8_t len;
    uint8_t hidden;            /* face-down cards at the bottom */
    /* run_start's answer (0 for an empty pile), kept by apply and undo: the search asks
     * for runs on every pile at every expansion, and walking them was a tenth of it. */
    uint8_t run;
    uint8_t cards[PILE_ROOM];  /* bottom first; MAX_CARDS at most, the rest is room */
} TableauPile;

typedef struct {
    uint8_t len;
    uint8_t cards[FOUNDATION_CAP];
} FoundationPile;

typedef struct {
    uint8_t len;
    uint8_t cards[MAX_CARDS];  /* top last */
} CardStack;

/* State, field for field; the pile counts are the Tables'. */
typedef struct {
    TableauPile tableau[MAX_PILES];
    FoundationPile foundations[MAX_PILES];
    CardStack stock, waste, reserve;
    int16_t redeals_left;      /* -1: unlimited (None) */
    uint8_t base_rank;         /* 0: none (foundations start at Aces) */
    /* The solver's plain key by parts (keys.c plain_key), kept across moves: a child
     * changes one or two piles, and hashing all of them for every child cost a quarter
     * of the search. apply and undo mark what they touch stale. */
    uint64_t pile_hash[MAX_PILES];
    uint64_t piles_hash;       /* the pile hashes' sum: the same for the piles in any order */
    uint64_t stacks_hash;      /* the stock and the waste */
    /* What the foundations are, kept by apply and undo on every foundation move (the
     * foundations change rarely next to the piles, and settle and the key ask for these
     * on every child): the tops' part of the key (a multiset: the sum of each top's
     * top_hash) and the cards the foundations take next, as how many foundations take
     * each (`wants`) and as a set (`wanted_cards`, bit c: some foundation takes c). */
    uint64_t tops_hash;
    uint64_t wanted_cards;
    uint8_t wants[DECK];
    /* How many copies of each card the foundations hold, kept by apply and undo (the
     * safe-move test asks it for every child). */
    uint8_t copies_up[DECK];
    uint32_t stale;            /* bit i: tableau pile i; STALE_STACKS: stock and waste */
} Position;

enum {
    STALE_STACKS = 1u << MAX_PILES,
    STALE_ALL = (1u << (MAX_PILES + 1)) - 1,
};

/* Copy a run of `count` cards between arrays of PILE_ROOM (from offsets that leave
 * `count` cards within MAX_CARDS) in whole chunks: a fixed-size copy is a pair of
 * loads and stores, a variable-length one a library call, and runs are moved in every
 * search step. Writes up to RUN_CHUNK - 1 bytes past the run, into the room. */
static inline void copy_run(uint8_t *to, const uint8_t *from, int count)
{
    if (count == 1) {
        *to = *from;  /* most moves are of one card */
        return;
    }
    for (int k = 0; k < count; k += RUN_CHUNK)
        memcpy(to + k, from + k, RUN_CHUNK);
}

/* A foundation top's part of the key (0: an empty foundation, else the card + 1): random
 * words, filled by keys_init (keys.c) before any position is read. */
extern uint64_t top_hash[DECK + 1];

/* State.from_bytes: 0 on success, else why the bytes are refused (nothing is read
 * past `size`). The variant name is skipped: the Tables say which game it is. */
const char *position_read(const Tables *t, const uint8_t *data, size_t size, Position *out);
/* State.to_bytes: the bytes' length; writes nothing past `cap` (call with cap 0 to size). */
size_t position_write(const Tables *t, const char *name, size_t name_len, const Position *p,
                      uint8_t *out, size_t cap);

static inline int first_rank(const Position *p) { return p->base_rank ? p->base_rank : 1; }
bool is_won(const Tables *t, const Position *p);
/* What the beam's score reads of a position, in the order beam.WEIGHTS
 * (app/solver/beam.py) weighs them. */
enum {
    FEATURE_ON_FOUNDATIONS, FEATURE_FACE_DOWN, FEATURE_IN_WASTE, FEATURE_IN_RESERVE,
    FEATURE_EMPTY_PILES, FEATURE_OUT_OF_SEQUENCE, FEATURE_BURIED, FEATURE_COUNT,
};
void beam_features(const Tables *t, const Position *p, int out[FEATURE_COUNT]);
bool foundation_takes(const Tables *t, const Position *p, int index, int card);
/* engine run_start: the index of the lowest card of a non-empty pile's top run (going
 * down while each card builds on the one under it, never into the face-down cards). The
 * one run rule: run_length, the search and the arrangement moves read it (through the
 * pile's copy of its answer, TableauPile.run, which apply and undo keep). */
static inline int find_run_start(const Tables *t, const TableauPile *pile)
{
    int k = pile->len - 1;
    while (k > pile->hidden && stack_ok(t, pile->cards[k - 1], pile->cards[k]))
        k--;
    return k < 0 ? 0 : k;
}

/* The same, as the pile keeps it (TableauPile.run). */
static inline int run_start(const Tables *t, const TableauPile *pile)
{
    (void)t;
    return pile->run;
}

static inline int run_length(const Tables *t, const Position *p, int index)
{
    const TableauPile *pile = &p->tableau[index];
    if (!pile->len)
        return 0;
    if (!t->runs_any)
        return 1;
    return pile->len - run_start(t, pile);
}

/* State.legal_moves, in its order; `out` holds MAX_MOVES. Returns how many. */
int legal_moves(const Tables *t, const Position *p, Move *out);
/* State.apply(move, auto_finish=False, validate=False), in place: `move` must be legal. */
void apply_move(const Tables *t, Position *p, const Move *move);
/* Foundation f's share of what the position keeps of the foundations (tops_hash, wants,
 * wanted_cards), added (sign 1) or taken away (-1); apply.c, and position_read. */
void foundation_share(const Tables *t, Position *p, int f, int sign);

/* What undo_move needs to take a move back (the search applies and undoes in place
 * rather than copying a position per child). */
typedef struct {
    Move move;
    uint8_t drawn;          /* DRAW: the cards it turned over */
    uint8_t hidden;         /* from the tableau: the source pile's face-down count before */
    bool refilled;          /* from the tableau: the reserve refilled the emptied pile */
    uint8_t src_run, dst_run;  /* tableau piles: TableauPile.run before */
    int16_t redeals_left;   /* REDEAL: before it */
    /* The key's kept parts before the move (Position.stale, and the hashes the move can
     * make stale), put back by undo_move: the position is then exactly as it was, so what
     * was fresh is fresh again. Marking them stale instead had the search hash every pile
     * a child touched twice, once for the child and again for its next sibling. */
    uint32_t stale;
    uint64_t src_hash, dst_hash;  /* tableau piles: Position.pile_hash */
    uint64_t stacks_hash;
} Undo;

/* apply_move, recording in `undo` how to take it back. */
void apply_undoable(const Tables *t, Position *p, const Move *move, Undo *undo);
/* Take back the last move applied (the one `undo` recorded): `p` is as it was before. */
void undo_move(const Tables *t, Position *p, const Undo *undo);

/* A look at the piles after a tableau-to-tableau move that turns nothing up and refills
 * nothing (peeks() says which): peek_move moves the cards and keeps the two piles' run
 * starts, and nothing else (no undo record, nothing marked stale: the key's parts, the
 * foundations and the stacks are untouched, and the piles' hashes are not read before
 * peek_back). The search's expansions look at the follow-ups of an obligated move this
 * way, where playing and undoing it in full was a third of their cost. */
typedef struct {
    uint8_t src_len, src_run, dst_len, dst_run;
} Peek;
bool peeks(const Tables *t, const Position *p, const Move *move);
void peek_move(const Tables *t, Position *p, const Move *move, Peek *peek);
void peek_back(Position *p, const Move *move, const Peek *peek);

/* str(Move) and Move.parse (false: not a move text). */
void move_text(const Move *move, char out[MOVE_TEXT_SIZE]);
bool move_parse(const char *text, Move *out);
bool move_equal(const Move *a, const Move *b);
/* Is `move` among the position's legal moves? `scratch`: room for MAX_MOVES moves. */
bool is_legal(const Tables *t, const Position *p, const Move *move, Move *scratch);

#endif
