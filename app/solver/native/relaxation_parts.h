/* What the relaxed tableau's files share (relaxation.c, its test; relaxation_new.c, its
 * tables built from a root): a relaxed position and one test's state. Not for use outside
 * them (relaxation.h is). */
#ifndef SOLVER_NATIVE_RELAXATION_PARTS_H
#define SOLVER_NATIVE_RELAXATION_PARTS_H

#include "relaxation.h"
#include "table.h"

enum {
    SEQUENCE_BITS = 38,        /* the waste mask: bits 0-37 */
    STOCK_SHIFT = 38,          /* the stock length: 6 bits */
    RESERVE_SHIFT = 44,        /* the reserve length: 4 bits */
    UP_SHIFT = 48,             /* four suits' counts up, 4 bits each */
    MAX_STOCK = 63,
    MAX_RESERVE = 15,
    /* The bottoms' code's base, and its bounds (relaxation.applies): a digit a class, at
     * most 4 piles, a code below 2^32 - 1. */
    BOTTOMS_BASE = 5,
    BOTTOMS_MOST_PILES = 4,
    BOTTOMS_MOST_CLASSES = 13,
    /* The relaxed positions known lost one search keeps at least before it starts the
     * set afresh; it keeps a quarter of its bound known open. */
    LOST_LIMIT = 1 << 20,
    OPEN_SHARE = 4,
};

/* A relaxed position. */
typedef struct {
    uint64_t word;
    uint32_t bottoms;
} Relaxed;

/* The test for one search: one relaxed game and what its tests found. */
struct Relaxation {
    const Tables *t;
    int stock_limit;                     /* asked only where the stock holds at most this many */
    double deadline;                     /* a test gives up past it (below 0: none) */
    int sequence_len, root_waste, root_stock;
    uint8_t sequence[SEQUENCE_BITS];     /* the waste sequence's cards */
    int8_t sequence_index[DECK];         /* each card's place in it, or -1 */
    uint64_t stock_cards[MAX_STOCK + 1]; /* the cards of a stock of each length (a bit each) */
    uint64_t reserve_cards[MAX_RESERVE + 1];
    uint8_t reserve_top[MAX_RESERVE + 1];  /* the reserve's top card at each length */
    uint64_t up_cards[4][FOUNDATION_CAP + 1]; /* a suit's cards with so many up */
    uint8_t up_card[4][FOUNDATION_CAP];  /* a suit's card to go up with so many up */
    int classes;
    int8_t parent[DECK];                 /* each class's parent class */
    int8_t child[DECK];                  /* the class whose parent each class is */
    uint32_t power[DECK];                /* BOTTOMS_BASE to the power of each class */
    Table visited, lost, open;           /* met by one test; known lost; known open */
    Relaxed *order;                      /* the relaxed positions met, in order met */
    int32_t *from;                       /* where in `order` each was reached from (-1: start) */
    int32_t *todo;                       /* those still to look at (a stack: depth first) */
};

#endif
