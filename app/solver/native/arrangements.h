/* The full search up to run arrangement: its key and children, for the variants where
 * app/solver/arrangements.py says the argument holds (Tables.arranged, which
 * tables_prepare checks). Building blocks for the search (search.c): none of them
 * searches. The module docstring of arrangements.py says why equal keys are won or
 * lost alike. */
#ifndef SOLVER_NATIVE_ARRANGEMENTS_H
#define SOLVER_NATIVE_ARRANGEMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

enum {
    /* arranged_children: a tableau card gives at most a foundation move (or the clear and
     * it), a move onto its parent class and one into an empty pile, but only the bottom
     * card of a pile's top run gives all three (an attached card has no parent move, a
     * root no empty-pile move); so 2 per card and 1 per pile. The waste and reserve tops
     * 3 each, a foundation top 2 (back to the tableau), then draw or redeal. */
    MAX_ARRANGED_CHILDREN = 2 * MAX_CARDS + MAX_PILES + 2 * 3 + 2 * MAX_PILES + 1,
};

/* A child up to run arrangement: `move`, from the position itself or after the
 * `before_len` moves of `before`. One, the clear: the run on the moving card to a class
 * sibling, which leaves the key alone. Two or three only with a wrap, where a run can
 * hold the only top a move needs (see arrangements.py, "With a wrap"). */
enum { MAX_BEFORE = 3 };

typedef struct {
    int16_t score;
    uint8_t before_len;
    Move before[MAX_BEFORE];
    Move move;
} ArrangedChild;

/* The key up to run arrangement: each pile's base with what lies under it, the roots and
 * the attached cards, as multisets; the foundations, stock and waste as the plain key has
 * them; the reserve's cards and the redeals left. Equal exactly when those parts are
 * equal, barring a 64-bit collision. */
uint64_t arranged_key(const Tables *t, Position *p);  /* refreshes p's kept parts */

/* The children up to run arrangement, stably sorted by score (equal scores in the order
 * they are made): `want` is wanted()'s (settle.h). `out` holds MAX_ARRANGED_CHILDREN;
 * returns how many. */
int arranged_children(const Tables *t, const Position *p, const int8_t want[DECK],
                      int draw_score, ArrangedChild *out);

#endif
