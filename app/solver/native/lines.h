/* Shorter winning lines: the line is replayed once, noting each position's exact bytes,
 * then walked from the start, from each position to the latest position of the line that
 * one legal move reaches. Every step is a legal move and the walk ends where the line
 * does, so the shorter line wins too (docs/solver.md, "Shorter lines"). */
#ifndef SOLVER_NATIVE_LINES_H
#define SOLVER_NATIVE_LINES_H

#include <stdbool.h>

#include "state.h"

typedef enum { SHORTEN_DONE, SHORTEN_ILLEGAL, SHORTEN_NO_MEMORY } ShortenResult;

/* `line` from `start` shortened: writes the shorter line to `out` (room for `len` moves)
 * and its length to `*out_len`. `max_seconds`: below 0 no deadline. SHORTEN_ILLEGAL:
 * line[*out_len] is not a legal move where it is played (nothing is written then). Holds
 * none of the GIL's objects. */
ShortenResult shorten_line(const Tables *t, const Position *start, const Move *line, int len,
                           double max_seconds, Move *out, int *out_len);

#endif
