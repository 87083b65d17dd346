/* The plainest search, the solver's oracle: a mirror of app/solver/exhaustive.py (every
 * legal move in the engine's order, each position keyed by itself: the same verdict and
 * the same count of positions). */
#ifndef SOLVER_NATIVE_EXHAUSTIVE_H
#define SOLVER_NATIVE_EXHAUSTIVE_H

#include "search.h"
#include "state.h"

/* exhaustive(start, max_positions): SOLVED, UNSOLVABLE, UNKNOWN (the budget ran out) or
 * NO_MEMORY; `*positions`: the different positions met, the start among them. Holds
 * none of the GIL's objects. */
Verdict exhaustive_run(const Tables *t, const Position *start, long max_positions,
                       long *positions);

#endif
