/* Checks on the tables handed over from Python, and what follows from them. */
#include "variants.h"

const char *tables_prepare(Tables *t)
{
    if (t->decks < 1 || t->decks > 2)
        return "decks must be 1 or 2";
    if (t->tableau_piles < 1 || t->tableau_piles > MAX_PILES)
        return "tableau_piles must be 1 to 16";
    if (t->foundation_count != 4 * t->decks)
        return "foundation_count must be 4 per deck";
    if (t->draw < 1)
        return "draw must be at least 1";
    for (int card = 0; card < DECK; card++)
        if (t->found_next[card] >= DECK && t->found_next[card] != NO_CARD)
            return "found_next holds a card id above 51";
    for (int target = 0; target < DECK; target++) {
        Accepted *takes = &t->accepted_by[target];
        takes->count = 0;
        for (int moving = 0; moving < DECK; moving++)
            if (stack_ok(t, target, moving))
                takes->cards[takes->count++] = (uint8_t)moving;
    }
    return 0;
}
