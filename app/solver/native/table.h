/* The search's transposition table: the 64-bit position keys seen (search.py's `seen`
 * set), open addressing with linear probing, bounded by the caller.
 *
 * It holds at most `limit` keys; a key that finds it full is reported (TABLE_FULL), and
 * the search then answers "unknown": dropping keys instead would let it revisit
 * positions without end, and evicting them could only cost time, but a table that stops
 * recording cannot prove anything, so it stops. The slots are the power of two at or
 * above 4/3 of the limit (at most three quarters full): 11 to 21 bytes per key. */
#ifndef SOLVER_NATIVE_TABLE_H
#define SOLVER_NATIVE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *slots;  /* 0: empty (key 0 itself is kept in `zero`) */
    size_t mask;      /* slots - 1 */
    size_t count, limit;
    bool zero;
} Table;

typedef enum { TABLE_ADDED, TABLE_SEEN, TABLE_FULL } TableAdd;

/* false: out of memory (nothing to free then). */
bool table_init(Table *table, size_t limit);
TableAdd table_add(Table *table, uint64_t key);
/* A table started small, for table_add_growing, which doubles its slots as keys come, up
 * to the room `limit` needs: the same keys held and the same answers as table_init's
 * table, without touching memory a small search never fills. table_add_growing also
 * answers TABLE_FULL where growing runs out of memory. */
bool table_init_growing(Table *table, size_t limit);
TableAdd table_add_growing(Table *table, uint64_t key);
/* Is `key` in the table? */
bool table_has(const Table *table, uint64_t key);
/* Empty the table, keeping its room and limit. */
void table_clear(Table *table);
/* Take `key` out, with every key from its home slot up to an empty one: calling it for
 * every key the table holds empties it, without writing all its slots (where it holds
 * few). Nothing else may be asked of the table until every key has been taken out. */
void table_clear_around(Table *table, uint64_t key);
void table_free(Table *table);

#endif
