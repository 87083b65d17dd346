/* The depth-first search: narrow or full, with or without the restarts' jitter, plain or
 * up to run arrangement. Its driver (search.c) keeps the frames, the position and time
 * budgets and the transposition table, and runs a list of reductions (frames.h) at their
 * hooks, each reduction deciding from the limits whether the search wants it. The narrow
 * list (restarts, which prove nothing): the direct safe-move rule (or every foundation
 * move), same targets, obligations, narrow moves, the loose straight back. The full list,
 * every reduction in it sound for proofs of loss: safe moves, same targets, obligations,
 * straight back, then, as asked, deferred draws, passed over, the relaxed tableau and up
 * to run arrangement (Limits.without leaves any of them out, for the tests). Each
 * reduction's argument is in its file (reduce_*.c); docs/native-core.md has the map. */
#ifndef SOLVER_NATIVE_SEARCH_H
#define SOLVER_NATIVE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

/* What a search answers, and why an "unknown" stopped. */
typedef enum { SOLVED, UNSOLVABLE, UNKNOWN, NO_MEMORY } Verdict;
typedef enum { STOP_NONE, STOP_POSITIONS, STOP_DEADLINE, STOP_TABLE, STOP_DEPTH } Stop;

/* The default bound on the search's depth: it stops (STOP_DEPTH, "unknown") rather than
 * hold more frames, so that its memory is bounded by the table and the depth together (a
 * frame holds its remaining children and line, about 300 bytes: 2^20 frames, some
 * 300 MB). */
enum { DEFAULT_MAX_DEPTH = 1 << 20 };

typedef struct {
    long max_positions;   /* the most distinct positions met (at least 1) */
    double max_seconds;   /* below 0: no deadline */
    size_t table_size;    /* the most keys the transposition table holds (at least 1) */
    int draw_score;       /* SearchTables.draw_score (of SearchTables.restart(seed) in a restart) */
    bool narrow;          /* the narrow list: no chains of run splits, nothing back down */
    bool eager;           /* narrow and SearchTables.eager_foundations: settle plays every move up */
    uint32_t seed;        /* the restart's jitter, random.Random(seed); 0: none */
    size_t max_depth;     /* the most frames on the stack (at least 1) */
    bool arranged;        /* positions up to run arrangement (Tables.arranged only) */
    bool defer_draws;     /* deferred draws (full list): no tableau-only child after a bare draw */
    bool relaxed;         /* the relaxed tableau's dead-end test (full list) */
    int relaxed_stock;    /* the test only where the stock holds at most this */
    int relaxed_states;   /* a test gives up at this many relaxed positions */
    uint32_t without;     /* the full list's reductions left out: bit i, search_reduction(i) */
} Limits;

/* The full search's reductions, in list order, by index (NULL past the last): their
 * names, for Limits.without. */
const char *search_reduction(int index);

typedef struct {
    Verdict verdict;
    Stop stop;
    long positions;       /* distinct keys met, the start's among them */
    long children;        /* children played and keyed (new positions or met already) */
    long expansions;      /* obligated moves expanded into their follow-ups */
    long skipped;         /* children of drawn frames passed over unplayed (when made) */
    Move *line;           /* SOLVED: the winning line (free() it); else NULL */
    size_t line_len;
} Outcome;

/* A child of the full search's frame: its move, its score (scores.h; lowest tried first)
 * and, for an obligated move, the tableau pile the next move must use (else -1). */
typedef struct {
    int score;
    Move move;
    int must_use;
} ScoredMove;

/* The children a full search's frame at `p` makes, reached by `last` (NULL: none), in the
 * order made (the search sorts them stably by score): the legal moves worth trying, less
 * those with the key of one before them (same targets). Their count (at most MAX_MOVES),
 * or -1 when out of memory. What app.solver.plan.suggest reads. */
int search_children(const Tables *t, const Position *p, const Move *last, int draw_score,
                    ScoredMove *out);

/* One depth-first search from `start`, which is left as it is. Never holds the GIL's
 * objects: it may run with the GIL released. */
void search_run(const Tables *t, const Position *start, const Limits *limits, Outcome *out);

#endif
