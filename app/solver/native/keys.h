/* The solver's position keys: the plain key and the parts it shares with the key up to
 * run arrangement (arrangements.c). docs/solver.md, "The position key". */
#ifndef SOLVER_NATIVE_KEYS_H
#define SOLVER_NATIVE_KEYS_H

#include <stdint.h>

#include "state.h"

/* The plain key: tableau piles and same-suit foundations interchangeable, the stock by
 * its length with a single pass. Equal exactly when the positions are equal up to that
 * (barring a 64-bit collision). */
uint64_t plain_key(const Tables *t, Position *p);  /* refreshes p's cached parts */
/* Fills the key's tables; once, before any search (the module's init). */
void keys_init(void);

/* The parts both keys share, refreshed where stale and mixed into one word: the
 * foundation tops (a multiset) and the stock and the waste. */
uint64_t shared_key_parts(const Tables *t, Position *p);

/* The weights of the arranged key's card multisets (arrangements.c): a root's, an
 * attached card's. Random words (splitmix64's, filled by keys_init). */
extern uint64_t root_weight[DECK], attached_weight[DECK];

#endif
