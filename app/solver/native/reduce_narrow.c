/* The narrow restarts' moves (Limits.narrow: the narrow space, children.c; docs/solver.md, "Safe foundation
 * moves", "Narrow restarts"): no card back down from a foundation, and where runs move, an
 * obligated move is paired only with a whole face-up run onto what it uncovered (no chains
 * of run splits). It finds wins sooner, and leaves out moves a win can need: not sound for
 * proofs of loss (a narrow search that runs out answers `unknown`, plan.py). */
#include "frames.h"

static bool prepare(Search *s, const Position *start, const Limits *limits, double deadline)
{
    (void)start, (void)limits, (void)deadline;
    s->space = &NARROW_SPACE;  /* children.c: its moves and follow-ups */
    return true;
}

static bool wanted_when(const Limits *limits) { return limits->narrow; }

const Reduction NARROW_MOVES = {.name = "narrow moves", .sound_for_loss = false,
                                .wanted = wanted_when, .prepare = prepare};
