/* The transposition table (see table.h). */
#include "table.h"

#include <stdlib.h>
#include <string.h>

bool table_init(Table *table, size_t limit)
{
    size_t slots = 16;
    while (slots / 4 * 3 < limit)
        slots *= 2;
    table->slots = calloc(slots, sizeof *table->slots);
    table->mask = slots - 1;
    table->count = 0;
    table->limit = limit;
    table->zero = false;
    return table->slots != NULL;
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
