/* The relaxed tableau's dead-end test: the game with the tableau relaxed to the cards it
 * holds and its piles' bottom classes, searched exhaustively from a position's image; a
 * position whose image cannot be won is lost (the argument is app/solver/relaxation.py's
 * docstring and docs/solver.md, "The relaxed tableau"). What one search's tests learn
 * (known lost, known open) it keeps, in bounded sets started afresh when full: an answer
 * may depend on the tests before it, but is never wrong. */
#ifndef SOLVER_NATIVE_RELAXATION_H
#define SOLVER_NATIVE_RELAXATION_H

#include <stdbool.h>

#include "state.h"

/* relaxation.STATE_LIMIT, MOST_STATES, BEAM_STATE_LIMIT and STOCK_LIMIT (a test compares
 * them). */
enum {
    RELAXED_STATE_LIMIT = 100000,
    RELAXED_MOST_STATES = 1 << 26,
    RELAXED_BEAM_STATE_LIMIT = 5000,
    RELAXED_STOCK_LIMIT = 8,
    RELAXED_CLOCK_EVERY = 1024,
};

typedef struct Relaxation Relaxation;

/* The test for one search from `root`, asked where the stock holds at most `stock_limit`
 * cards, each of its tests giving up at `state_limit` relaxed positions, keeping at most
 * `lost_limit` relaxed positions known lost and a quarter of that known open: `*out` is
 * NULL where the tables do not relax (Tables.relaxed) or the root is past the exact key's
 * bounds. false: out of memory. */
bool relaxation_new(const Tables *t, const Position *root, int stock_limit, int state_limit,
                    size_t lost_limit, Relaxation **out);
/* The known-lost bound of a search whose transposition table holds `table_size` keys:
 * LOST_LIMIT (relaxation.c), or an eighth of a larger table (a survey's). */
size_t relaxation_lost_limit(size_t table_size);
/* A test gives up (not shown lost) once `deadline` (a now_seconds() time; below 0: none)
 * has passed, looked at every RELAXED_CLOCK_EVERY relaxed positions: the search's own
 * deadline, which one test of 100,000 relaxed positions overran by 150 ms. */
void relaxation_set_deadline(Relaxation *r, double deadline);
/* Is `p`, a position of this search, shown lost? */
bool relaxation_lost(Relaxation *r, const Position *p);
void relaxation_free(Relaxation *r);

#endif
