/* The solver's position key, safe foundation moves, settle and the depth-first search:
 * a mirror of app/solver/moves.py (wanted_cards, safe_move, settle, scored_moves,
 * follow_ups, children, jittered, expand) and app/solver/search.py (_key_fn,
 * _finish_line, _search: narrow or full, with or without jitter, plain or up to run
 * arrangement with arrangements.c). */
#ifndef SOLVER_NATIVE_SEARCH_H
#define SOLVER_NATIVE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

/* _key_fn: tableau piles and same-suit foundations interchangeable, the stock by its
 * length with a single pass. Equal exactly when the Python key tuples are equal
 * (barring a 64-bit collision). */
uint64_t plain_key(const Tables *t, Position *p);  /* refreshes p's cached parts */
/* Fills the key's tables; once, before any search (the module's init). */
void keys_init(void);

/* The parts both keys share, refreshed where stale and mixed into one word: the
 * foundation tops (a multiset) and the stock and the waste. */
uint64_t shared_key_parts(const Tables *t, Position *p);

/* The weights of the arranged key's card multisets (arrangements.c): a root's, an
 * attached card's. Random words (splitmix64's, filled by keys_init). */
extern uint64_t root_weight[DECK], attached_weight[DECK];

/* The move scores of app/solver/moves.py (lowest tried first), by the same names: why
 * each sits where it does is said there. */
enum {
    FOUNDATION_UNCOVERS = 0,
    TURN_UP = 1,           /* + the face-down cards under the run */
    CLEARED_FIRST = 2,     /* + the plain score */
    TURN_UP_TO_EMPTY = 3,  /* + the face-down cards under the base */
    REFILLED = 5,
    TO_FOUNDATION = 10,
    FROM_WASTE = 20,
    ROOT_TO_TOP = 25,
    EMPTY_PILE = 30,
    FROM_WASTE_TO_EMPTY = 40,
    SPLIT_RUN = 50,
    SPLIT_TO_EMPTY = 60,
    FROM_FOUNDATION = 70,
    FROM_FOUNDATION_TO_EMPTY = 75,
    REDEAL_LAST = 95,
    PAIRED = 0,
};

/* wanted_cards: for each card the foundations take now, the first foundation taking it
 * (else -1). */
void wanted(const Tables *t, const Position *p, int8_t out[DECK]);

/* safe_move: the foundation move settle plays next, if any (eager: every one). */
bool safe_move(const Tables *t, Position *p, bool eager, Move *out);

/* settle: play safe moves until none is left; returns how many (at most MAX_CARDS),
 * written to `line` when it is not NULL. */
int settle(const Tables *t, Position *p, bool eager, Move *line);

/* A seeded random playout for the benchmark and the differential tests: at each of up
 * to `steps` positions legal_moves + plain_key, then apply move number rng % count
 * (core.Lcg in Python draws the same numbers). Returns the positions visited; the
 * final position is left in `p` and the keys' xor in `*keys`. */
long playout(const Tables *t, Position *p, uint64_t seed, long steps, uint64_t *keys);

/* The generator core.Lcg mirrors: a 64-bit LCG (Knuth's MMIX constants), high bits. */
static inline uint32_t lcg_next(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

/* What _search answers, and why an "unknown" stopped. */
typedef enum { SOLVED, UNSOLVABLE, UNKNOWN, NO_MEMORY } Verdict;
typedef enum { STOP_NONE, STOP_POSITIONS, STOP_DEADLINE, STOP_TABLE, STOP_DEPTH } Stop;

/* The default bound on the search's depth: it stops (STOP_DEPTH, "unknown") rather than
 * hold more frames, so that its memory is bounded by the table and the depth together (a
 * frame holds its remaining children and line, about 300 bytes: 2^20 frames, some
 * 300 MB). The Python search has no such bound; no search the tests compare nears it. */
enum { DEFAULT_MAX_DEPTH = 1 << 20 };

typedef struct {
    long max_positions;   /* the position budget, as _search's max_positions (at least 1) */
    double max_seconds;   /* below 0: no deadline */
    size_t table_size;    /* the most keys the transposition table holds (at least 1) */
    int draw_score;       /* SearchTables.draw_score (of SearchTables.restart(seed) in a restart) */
    bool narrow;          /* _search's narrow: no chains of run splits, nothing back down */
    bool eager;           /* narrow and SearchTables.eager_foundations: settle plays every move up */
    uint32_t seed;        /* the restart's jitter, random.Random(seed); 0: none */
    size_t max_depth;     /* the most frames on the stack (at least 1) */
    bool arranged;        /* positions up to run arrangement (Tables.arranged only) */
    bool defer_draws;     /* _search's defer_draws (never narrow): after a bare draw, no tableau-only child */
    bool relaxed;         /* _search's relaxed (never narrow): the relaxed tableau's dead-end test */
    int relaxed_stock;    /* _search's relaxed_stock: the test where the stock holds at most this */
    int relaxed_states;   /* _search's relaxed_states: a test gives up at this many relaxed positions */
} Limits;

typedef struct {
    Verdict verdict;
    Stop stop;
    long positions;       /* as _search counts them: distinct keys met */
    long children;        /* children played and keyed (new positions or met already) */
    long expansions;      /* obligated moves expanded into their follow-ups */
    long skipped;         /* children of drawn frames passed over unplayed (when made) */
    Move *line;           /* SOLVED: the winning line (free() it); else NULL */
    size_t line_len;
} Outcome;

/* _search(state, rules, max_positions, deadline, narrow, jitter): one depth-first search
 * from `start`, which is left as it is. Never holds the GIL's objects: it may run with
 * the GIL released. */
void search_run(const Tables *t, const Position *start, const Limits *limits, Outcome *out);

#endif
