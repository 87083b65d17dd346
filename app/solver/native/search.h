/* The solver's position key, safe foundation moves and settle: a mirror of
 * app/solver/search.py (_key_fn, _wanted, _safe_move, settle). The depth-first search
 * itself comes next (docs/native-core.md). */
#ifndef SOLVER_NATIVE_SEARCH_H
#define SOLVER_NATIVE_SEARCH_H

#include <stdint.h>

#include "state.h"

/* _key_fn: tableau piles and same-suit foundations interchangeable, the stock by its
 * length with a single pass. Equal exactly when the Python key tuples are equal
 * (barring a 64-bit collision). */
uint64_t plain_key(const Tables *t, const Position *p);

/* _safe_move: the foundation move settle plays next, if any (eager: every one). */
bool safe_move(const Tables *t, const Position *p, bool eager, Move *out);

/* settle: play safe moves until none is left; returns how many (at most MAX_CARDS),
 * written to `line` when it is not NULL. */
int settle(const Tables *t, Position *p, bool eager, Move *line);

/* A seeded random playout for the benchmark and the differential tests: at each of up
 * to `steps` positions legal_moves + plain_key, then apply move number rng % count
 * (core.Lcg in Python draws the same numbers). Returns the positions visited; the
 * final position is left in `p` and the keys' xor in `*keys`. */
long playout(const Tables *t, Position *p, uint64_t seed, long steps, uint64_t *keys);

/* The generator core.Lcg mirrors: a 64-bit LCG (Knuth's MMIX constants), high bits. */
static inline uint32_t lcg_next(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

#endif
