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
    table->tags = NULL;
    table->growing = false;
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

/* A tagged key's home slot: the tag moves it, so that one word's tags spread. */
static size_t tagged_home(const Table *table, uint64_t word, uint32_t tag)
{
    return (size_t)(word ^ (uint64_t)tag * 0x9e3779b97f4a7c15ULL) & table->mask;
}

/* Twice the slots, every key placed again; false: out of memory (the table unchanged). */
static bool grow(Table *table)
{
    size_t slots = (table->mask + 1) * 2;
    uint64_t *bigger = calloc(slots, sizeof *bigger);
    uint32_t *tags = table->tags ? calloc(slots, sizeof *tags) : NULL;
    if (!bigger || (table->tags && !tags)) {
        free(bigger);
        return false;
    }
    Table grown = *table;
    grown.slots = bigger;
    grown.tags = tags;
    grown.mask = slots - 1;
    for (size_t i = 0; i <= table->mask; i++) {
        uint64_t key = table->slots[i];
        if (table->tags ? !table->tags[i] : !key)
            continue;
        size_t at = tags ? tagged_home(&grown, key, table->tags[i] - 1) : (size_t)key & grown.mask;
        while (tags ? tags[at] : bigger[at])
            at = (at + 1) & grown.mask;
        bigger[at] = key;
        if (tags)
            tags[at] = table->tags[i];
    }
    free(table->slots);
    free(table->tags);
    *table = grown;
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
    if (table->tags)
        memset(table->tags, 0, (table->mask + 1) * sizeof *table->tags);
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

bool table_init_tagged(Table *table, size_t limit, bool growing)
{
    if (!table_init_with(table, limit, growing ? 16 : room_for(limit)))
        return false;
    table->tags = calloc(table->mask + 1, sizeof *table->tags);
    table->growing = growing;
    if (!table->tags)
        table_free(table);
    return table->tags != NULL;
}

/* The slot holding the tagged key, or the empty slot where it would go. */
static size_t tagged_slot(const Table *table, uint64_t word, uint32_t tag)
{
    size_t i = tagged_home(table, word, tag);
    for (; table->tags[i]; i = (i + 1) & table->mask)
        if (table->slots[i] == word && table->tags[i] == tag + 1)
            break;
    return i;
}

TableAdd table_add_tagged(Table *table, uint64_t word, uint32_t tag)
{
    size_t slots = table->mask + 1;
    if (table->growing && table->count + 1 > slots / 4 * 3 && slots < room_for(table->limit)
        && !table_has_tagged(table, word, tag) && !grow(table))
        return TABLE_FULL;
    size_t i = tagged_slot(table, word, tag);
    if (table->tags[i])
        return TABLE_SEEN;
    if (table->count >= table->limit)
        return TABLE_FULL;
    table->slots[i] = word;
    table->tags[i] = tag + 1;
    table->count++;
    return TABLE_ADDED;
}

bool table_has_tagged(const Table *table, uint64_t word, uint32_t tag)
{
    return table->tags[tagged_slot(table, word, tag)] != 0;
}

void table_clear_around_tagged(Table *table, uint64_t word, uint32_t tag)
{
    /* As table_clear_around: from the key's home slot to the first empty one. */
    for (size_t i = tagged_home(table, word, tag); table->tags[i]; i = (i + 1) & table->mask) {
        table->tags[i] = 0;
        table->count--;
    }
}

void table_free(Table *table)
{
    free(table->slots);
    free(table->tags);
    table->slots = NULL;
    table->tags = NULL;
}
