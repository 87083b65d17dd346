/* The hashing both position keys are built from (keys.c's plain_key, arrangements.c's
 * arranged_key): sections of bytes chained through splitmix64's finaliser (interchangeable
 * parts are summed, not sorted). Static inline, so each file gets its own copy and the
 * hot key loops can inline them. */
#ifndef SOLVER_NATIVE_HASH_H
#define SOLVER_NATIVE_HASH_H

#include <stdint.h>
#include <string.h>

/* splitmix64's finaliser: a bijection that spreads every input bit over the word. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Every key starts from it (and plain_key hashes each pile from it). */
static const uint64_t SEED = 0x9e3779b97f4a7c15ULL;

/* One section of a key, chained onto `h`: a tag and the length first, so that sections
 * cannot run into each other, then the bytes eight at a time (the last word zero-padded).
 * mix64 is a bijection, so distinct sections collide only by chance, about 2^-64. */
static inline uint64_t section(uint64_t h, int tag, const uint8_t *bytes, int len)
{
    h = mix64(h ^ ((uint64_t)tag << 32 | (uint64_t)len));
    for (int i = 0; i < len; i += 8) {
        uint64_t word = 0;
        memcpy(&word, bytes + i, (size_t)(len - i < 8 ? len - i : 8));
        h = mix64(h ^ word);
    }
    return h;
}

/* section() over a pile's cards, where the array holds whole words (MAX_CARDS, 104, is a
 * multiple of 8): each word is one load, and the bytes past `len` in the last are masked
 * off, so the hash is section()'s exactly, without a variable-length copy per word (a
 * library call: a fifth of the key's time). */
static inline uint64_t cards_section(uint64_t h, int tag, const uint8_t *cards, int len)
{
    h = mix64(h ^ ((uint64_t)tag << 32 | (uint64_t)len));
    for (int i = 0; i < len; i += 8) {
        uint64_t word;
        memcpy(&word, cards + i, 8);
        if (len - i < 8) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            word &= ~0ull >> (64 - 8 * (len - i));  /* the first bytes are the low ones */
#else
            word = 0;
            for (int k = 0; k < len - i; k++)
                word |= (uint64_t)cards[i + k] << (8 * k);
#endif
        }
        h = mix64(h ^ word);
    }
    return h;
}

#endif
