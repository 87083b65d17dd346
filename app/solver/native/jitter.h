/* The restarts' jitter: a mirror of moves.jittered and of the random.Random(seed) it
 * draws from (CPython's Mersenne Twister, seeded from an int as random.seed does), so a
 * native restart shuffles its children exactly as the Python one. */
#ifndef SOLVER_NATIVE_JITTER_H
#define SOLVER_NATIVE_JITTER_H

#include <stdint.h>

enum { MT_SIZE = 624 };

typedef struct {
    uint32_t state[MT_SIZE];
    int index;
} Random;

/* random.Random(seed) for 0 <= seed < 2**32. */
void random_seed(Random *r, uint32_t seed);
/* random.Random.random(): a double in [0, 1) with 53 random bits. */
double random_random(Random *r);

/* moves._JITTER: how far a child's score may move (neighbouring classes mix). */
#define JITTER_SPREAD 12.0

#endif
