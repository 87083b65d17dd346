/* The beam search by stock level (what it is for: app/solver/beam.py's docstring and
 * docs/solver.md, "The beam search"): each level keeps the `width` best positions met,
 * explores from each the moves that do not draw (up to `closure` new positions), and
 * draws from the best of them into the next level. It proves nothing: it answers a line
 * or nothing. */
#ifndef SOLVER_NATIVE_BEAM_H
#define SOLVER_NATIVE_BEAM_H

#include <stdbool.h>
#include <stddef.h>

#include "search.h"
#include "state.h"

typedef struct {
    int width;              /* positions kept per level */
    int closure;            /* new positions explored from each, at most */
    int endgame;            /* times the closure where nothing is left to draw (beam.ENDGAME) */
    long max_positions;     /* positions met, at most (at least 1) */
    double max_seconds;     /* below 0: no deadline; looked at after each closure and
                             * every DRAWS_BETWEEN_CLOCKS of a level's draws */
    bool best;              /* closures best first by the score, else depth first */
    bool single;            /* no run of two cards or more moved */
    bool relaxed;           /* positions the relaxed tableau shows lost are met, not kept */
    int weights[FEATURE_COUNT];  /* beam.WEIGHTS */
} BeamLimits;

typedef struct {
    Verdict verdict;        /* SOLVED, UNKNOWN (out of positions, time or beam), NO_MEMORY */
    Stop stop;              /* STOP_POSITIONS, STOP_DEADLINE, or STOP_NONE: the beam ran out */
    long positions;         /* positions met, each counted once */
    Move *line;             /* SOLVED: the winning line (free() it); else NULL */
    size_t line_len;
} BeamOutcome;

/* The beam search from `start`. Holds none of the GIL's objects: it may run with the GIL
 * released. */
void beam_run(const Tables *t, const Position *start, const BeamLimits *limits,
              BeamOutcome *out);

#endif
