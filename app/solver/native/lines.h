/* Shorter winning lines: a mirror of app/solver/lines.py's shorten() (the argument that
 * the shorter line still wins is there and in docs/solver.md, "Shorter lines"). The same
 * walk over the same moves in the same order, so the same line. */
#ifndef SOLVER_NATIVE_LINES_H
#define SOLVER_NATIVE_LINES_H

#include <stdbool.h>

#include "state.h"

typedef enum { SHORTEN_DONE, SHORTEN_ILLEGAL, SHORTEN_NO_MEMORY } ShortenResult;

/* lines.shorten(start, line, deadline) over native positions: writes the shorter line to
 * `out` (room for `len` moves) and its length to `*out_len`. `max_seconds`: below 0 no
 * deadline. SHORTEN_ILLEGAL: line[*out_len] is not a legal move where it is
 * played (nothing is written then). Holds none of the GIL's objects. */
ShortenResult shorten_line(const Tables *t, const Position *start, const Move *line, int len,
                           double max_seconds, Move *out, int *out_len);

#endif
