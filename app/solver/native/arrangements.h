/* The full search up to run arrangement: a mirror of app/solver/arrangements.py (key,
 * normalize, children), for the variants it supports (Tables.arranged, which
 * tables_prepare checks). Building blocks for the search (search.c): none of them
 * searches. The module docstring of arrangements.py says why equal keys are won or
 * lost alike. */
#ifndef SOLVER_NATIVE_ARRANGEMENTS_H
#define SOLVER_NATIVE_ARRANGEMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

enum {
    /* normalize's moves: each empties a root's pile onto another pile that is not empty,
     * and no move fills an empty pile, so at most tableau_piles - 1 (one pile is left). */
    MAX_NORMALIZE = MAX_PILES - 1,
    /* arranged_children: a tableau card gives at most a foundation move (or the clear and
     * it), a move onto its parent class and one into an empty pile, but only the bottom
     * card of a pile's top run gives all three (an attached card has no parent move, a
     * root no empty-pile move); so 2 per card and 1 per pile. The waste and reserve tops
     * 3 each, a foundation top 2 (back to the tableau), then draw or redeal. */
    MAX_ARRANGED_CHILDREN = 2 * MAX_CARDS + MAX_PILES + 2 * 3 + 2 * MAX_PILES + 1,
};

/* A child of arrangements.children: `move` from the position itself, or, `cleared`,
 * from the position after `clear` (the run on the moving card to a class sibling, which
 * leaves the key alone): Python's (score, [clear], mid, move). */
typedef struct {
    int16_t score;
    bool cleared;
    Move clear;
    Move move;
} ArrangedChild;

/* arrangements.key(state, single_pass): equal exactly when the Python key tuples (before
 * hash) are equal, barring a 64-bit collision. */
uint64_t arranged_key(const Tables *t, Position *p);  /* refreshes p's kept parts */

/* arrangements.normalize: every root whose parent class has a top goes onto it, in
 * place; the moves, with their undo records, go to `line` (room for MAX_NORMALIZE).
 * Returns how many. */
int normalize(const Tables *t, Position *p, Undo *line);

/* arrangements.children(state, wanted, draw_score), in its order (stably sorted by
 * score): `want` is wanted()'s (search.h). `out` holds MAX_ARRANGED_CHILDREN; returns
 * how many. */
int arranged_children(const Tables *t, const Position *p, const int8_t want[DECK],
                      int draw_score, ArrangedChild *out);

#endif
