/* What the search and the beam both need besides positions: growing arrays and the clock
 * their deadlines read. */
#ifndef SOLVER_NATIVE_ARRAYS_H
#define SOLVER_NATIVE_ARRAYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

/* Room for `need` items in a growing array, doubling (false: out of memory; the array is
 * then as it was). */
static inline bool reserve_room(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t grown = *cap ? *cap : 64;
    while (grown < need)
        grown *= 2;
    void *moved = realloc(*items, grown * size);
    if (!moved)
        return false;
    *items = moved;
    *cap = grown;
    return true;
}

/* Seconds on the monotonic clock (needs _POSIX_C_SOURCE 199309L before any include). */
static inline double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
