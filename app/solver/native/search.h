/* The depth-first search: a mirror of app/solver/search.py's _search (narrow or full,
 * with or without jitter, plain or up to run arrangement with arrangements.c). The
 * driver (search.c) and what it is built from are listed in docs/native-core.md. */
#ifndef SOLVER_NATIVE_SEARCH_H
#define SOLVER_NATIVE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

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
