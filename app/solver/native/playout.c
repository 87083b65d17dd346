/* The benchmark's seeded random playout (see playout.h). */
#include "playout.h"

#include "keys.h"

long playout(const Tables *t, Position *p, uint64_t seed, long steps, uint64_t *keys)
{
    Move moves[MAX_MOVES];
    uint64_t rng = seed;
    long positions = 0;
    *keys = 0;
    for (long step = 0; step < steps; step++) {
        int n = legal_moves(t, p, moves);
        *keys ^= plain_key(t, p);
        positions++;
        if (!n)
            break;
        apply_move(t, p, &moves[lcg_next(&rng) % (uint32_t)n]);
    }
    return positions;
}
