/* Checks on the tables handed over from Python (see variants.h). */
#include "variants.h"

const char *tables_check(const Tables *t)
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
    return 0;
}
