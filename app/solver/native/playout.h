/* The benchmark's seeded random playout (bench/core.py and the tests walk the engine with
 * the same generator, so both make the same choices). */
#ifndef SOLVER_NATIVE_PLAYOUT_H
#define SOLVER_NATIVE_PLAYOUT_H

#include <stdint.h>

#include "state.h"

/* A seeded random playout for the benchmark and the differential tests: at each of up
 * to `steps` positions legal_moves + plain_key, then apply move number rng % count
 * (lcg_next). Returns the positions visited; the final position is left in `p` and the
 * keys' xor in `*keys`. */
long playout(const Tables *t, Position *p, uint64_t seed, long steps, uint64_t *keys);

/* The generator: a 64-bit LCG (Knuth's MMIX constants), high bits. */
static inline uint32_t lcg_next(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

#endif
