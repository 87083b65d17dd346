/* MT19937 as CPython's _randommodule.c runs it (see jitter.h). */
#include "jitter.h"

static void init_genrand(Random *r, uint32_t seed)
{
    uint32_t *mt = r->state;
    mt[0] = seed;
    for (int i = 1; i < MT_SIZE; i++)
        mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = MT_SIZE;
}

/* random.seed(n) for an int n: init_by_array over n's 32-bit words, low word first; a
 * seed below 2**32 is one word (0 too). */
void random_seed(Random *r, uint32_t seed)
{
    uint32_t *mt = r->state;
    const uint32_t key[1] = {seed};
    const int key_len = 1;
    init_genrand(r, 19650218U);
    int i = 1, j = 0;
    for (int k = MT_SIZE > key_len ? MT_SIZE : key_len; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_SIZE) {
            mt[0] = mt[MT_SIZE - 1];
            i = 1;
        }
        if (j >= key_len)
            j = 0;
    }
    for (int k = MT_SIZE - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_SIZE) {
            mt[0] = mt[MT_SIZE - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;  /* a non-zero initial state */
}

static uint32_t genrand(Random *r)
{
    enum { M = 397 };
    const uint32_t upper = 0x80000000U, lower = 0x7fffffffU, matrix = 0x9908b0dfU;
    uint32_t *mt = r->state;
    if (r->index >= MT_SIZE) {
        int k = 0;
        for (; k < MT_SIZE - M; k++) {
            uint32_t y = (mt[k] & upper) | (mt[k + 1] & lower);
            mt[k] = mt[k + M] ^ (y >> 1) ^ ((y & 1U) ? matrix : 0U);
        }
        for (; k < MT_SIZE - 1; k++) {
            uint32_t y = (mt[k] & upper) | (mt[k + 1] & lower);
            mt[k] = mt[k + (M - MT_SIZE)] ^ (y >> 1) ^ ((y & 1U) ? matrix : 0U);
        }
        uint32_t y = (mt[MT_SIZE - 1] & upper) | (mt[0] & lower);
        mt[MT_SIZE - 1] = mt[M - 1] ^ (y >> 1) ^ ((y & 1U) ? matrix : 0U);
        r->index = 0;
    }
    uint32_t y = mt[r->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

double random_random(Random *r)
{
    uint32_t a = genrand(r) >> 5, b = genrand(r) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}
