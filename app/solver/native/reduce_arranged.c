/* Positions up to run arrangement (docs/solver.md, "Positions up to run arrangement";
 * the key and the children are arrangements.c's): the key keeps what lies under each
 * pile's top run exactly and otherwise only which cards are roots and which attached, as
 * multisets; the children are arranged_children's, settled after every child. Equal
 * keys are won or lost alike (a run moved between equal parents leaves the key alone;
 * every other move changes it the same way from any arrangement with that key:
 * app/solver/arrangements.py's docstring), and the children reach every successor's key:
 * sound for proofs of loss, where Tables.arranged says it applies. */
#include "frames.h"

static bool prepare(Search *s, const Position *start, const Limits *limits, double deadline)
{
    (void)start, (void)limits, (void)deadline;
    s->space = &ARRANGED_SPACE;  /* children.c: its key, its children, settle after each */
    return true;
}

static bool wanted_when(const Limits *limits) { return limits->arranged; }

const Reduction ARRANGED = {.name = "up to run arrangement", .sound_for_loss = true,
                            .wanted = wanted_when, .prepare = prepare};
