/* The beam's kept positions (beam.c): an entry, a growing array of them, and the binary
 * heaps its candidates and best-first frontier are (each with its order, Before). */
#ifndef SOLVER_NATIVE_BEAM_HEAP_H
#define SOLVER_NATIVE_BEAM_HEAP_H

#include <stdbool.h>
#include <stddef.h>

#include "arrays.h"

/* A position kept by the beam: its score, its order (a candidate's: the order added; a
 * frontier entry's: `found`, the order met in its closure), its slot in the pool, its
 * line's last step. */
typedef struct {
    int score;
    long order;
    int slot;
    int step;
} Entry;

typedef struct {
    Entry *items;
    size_t len, cap;
} Entries;

static inline bool push(Entries *entries, Entry entry)
{
    if (!reserve_room((void **)&entries->items, &entries->cap, entries->len + 1, sizeof(Entry)))
        return false;
    entries->items[entries->len++] = entry;
    return true;
}

/* The heaps' orders: `a` comes out before `b`. */
typedef bool (*Before)(const Entry *a, const Entry *b);

static inline bool lower_candidate(const Entry *a, const Entry *b)  /* (score, -order) lower */
{
    return a->score < b->score || (a->score == b->score && a->order > b->order);
}

static inline bool better_frontier(const Entry *a, const Entry *b)  /* (-score, order) lower */
{
    return a->score > b->score || (a->score == b->score && a->order < b->order);
}

static inline void sift_up(Entries *h, size_t i, Before before)
{
    Entry e = h->items[i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!before(&e, &h->items[up]))
            break;
        h->items[i] = h->items[up];
        i = up;
    }
    h->items[i] = e;
}

static inline void sift_down(Entries *h, size_t i, Before before)
{
    Entry e = h->items[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->len)
            break;
        if (child + 1 < h->len && before(&h->items[child + 1], &h->items[child]))
            child++;
        if (!before(&h->items[child], &e))
            break;
        h->items[i] = h->items[child];
        i = child;
    }
    h->items[i] = e;
}

static inline bool heap_push(Entries *h, Entry entry, Before before)
{
    if (!push(h, entry))
        return false;
    sift_up(h, h->len - 1, before);
    return true;
}

static inline Entry heap_pop(Entries *h, Before before)
{
    Entry top = h->items[0];
    h->items[0] = h->items[--h->len];
    if (h->len)
        sift_down(h, 0, before);
    return top;
}


#endif
