/* The restarts' jitter: each child's score plus a draw of up to JITTER_SPREAD
 * (children.c), so that neighbouring classes of move mix. The draws are those of
 * random.Random(seed) (CPython's Mersenne Twister, seeded from an int as random.seed
 * does), so a restart's order can be reproduced from its seed in Python. */
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

/* How far a child's score may move (neighbouring classes mix). */
#define JITTER_SPREAD 12.0

#endif
