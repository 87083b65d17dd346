/* The transposition table (see table.h). */
#include "table.h"

#include <stdlib.h>
#include <string.h>

/* The slots a table of `limit` keys needs: at most three quarters full. */
static size_t room_for(size_t limit)
{
    size_t slots = 16;
    while (slots / 4 * 3 < limit)
        slots *= 2;
    return slots;
}

static bool table_init_with(Table *table, size_t limit, size_t slots)
{
    table->slots = calloc(slots, sizeof *table->slots);
    table->mask = slots - 1;
    table->count = 0;
    table->limit = limit;
    table->zero = false;
    return table->slots != NULL;
}

bool table_init(Table *table, size_t limit)
{
    return table_init_with(table, limit, room_for(limit));
}

bool table_init_growing(Table *table, size_t limit)
{
    return table_init_with(table, limit, 16);
}

/* Twice the slots, every key placed again; false: out of memory (the table unchanged). */
static bool grow(Table *table)
{
    size_t slots = (table->mask + 1) * 2;
    uint64_t *bigger = calloc(slots, sizeof *bigger);
    if (!bigger)
        return false;
    for (size_t i = 0; i <= table->mask; i++) {
        uint64_t key = table->slots[i];
        if (!key)
            continue;
        size_t at = (size_t)key & (slots - 1);
        while (bigger[at])
            at = (at + 1) & (slots - 1);
        bigger[at] = key;
    }
    free(table->slots);
    table->slots = bigger;
    table->mask = slots - 1;
    return true;
}

TableAdd table_add_growing(Table *table, uint64_t key)
{
    size_t slots = table->mask + 1;
    if (table->count + 1 > slots / 4 * 3 && slots < room_for(table->limit)
        && !table_has(table, key) && !grow(table))
        return TABLE_FULL;
    return table_add(table, key);
}

TableAdd table_add(Table *table, uint64_t key)
{
    if (key == 0) {
        if (table->zero)
            return TABLE_SEEN;
        if (table->count >= table->limit)
            return TABLE_FULL;
        table->zero = true;
        table->count++;
        return TABLE_ADDED;
    }
    size_t i = (size_t)key & table->mask;
    for (; table->slots[i]; i = (i + 1) & table->mask)
        if (table->slots[i] == key)
            return TABLE_SEEN;
    if (table->count >= table->limit)
        return TABLE_FULL;
    table->slots[i] = key;
    table->count++;
    return TABLE_ADDED;
}

bool table_has(const Table *table, uint64_t key)
{
    if (key == 0)
        return table->zero;
    for (size_t i = (size_t)key & table->mask; table->slots[i]; i = (i + 1) & table->mask)
        if (table->slots[i] == key)
            return true;
    return false;
}

void table_clear(Table *table)
{
    memset(table->slots, 0, (table->mask + 1) * sizeof *table->slots);
    table->count = 0;
    table->zero = false;
}

void table_clear_around(Table *table, uint64_t key)
{
    if (key == 0) {
        table->count -= table->zero;
        table->zero = false;
        return;
    }
    /* From the key's home slot on: the key lies there or after, and where an earlier call
     * emptied a slot on the way, it emptied everything from there to the key too. */
    for (size_t i = (size_t)key & table->mask; table->slots[i]; i = (i + 1) & table->mask) {
        table->slots[i] = 0;
        table->count--;
    }
}

void table_free(Table *table)
{
    free(table->slots);
    table->slots = NULL;
}
