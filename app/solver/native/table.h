/* The search's transposition table: the 64-bit position keys seen, open addressing with
 * linear probing, bounded by the caller.
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
    uint32_t *tags;   /* a tagged table's second part of each key, plus one (0: empty) */
    size_t mask;      /* slots - 1 */
    size_t count, limit;
    bool zero;
    bool growing;     /* a tagged table made growing */
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
/* A tagged table: each key a word and a 32-bit tag (below 2^32 - 1), both compared, so
 * that a key too long for one word stays exact; every word is a key, 0 too. Asked only
 * through the _tagged calls (and table_clear, table_free); `growing` as
 * table_init_growing, else as table_init. */
bool table_init_tagged(Table *table, size_t limit, bool growing);
/* table_add, or table_add_growing where the table was made growing. */
TableAdd table_add_tagged(Table *table, uint64_t word, uint32_t tag);
bool table_has_tagged(const Table *table, uint64_t word, uint32_t tag);
/* table_clear_around. */
void table_clear_around_tagged(Table *table, uint64_t word, uint32_t tag);
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
