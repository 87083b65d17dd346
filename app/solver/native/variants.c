/* Checks on the tables handed over from Python, and what follows from them. */
#include "variants.h"

#include <string.h>

/* Does some card build, through a chain of cards each on the last, on itself (a wrap)?
 * Kahn's algorithm: take away cards nothing lies under, again and again. */
static bool builds_round(const Tables *t)
{
    bool gone[DECK] = {false};
    for (int left = DECK; left > 0;) {
        int taken = 0;
        for (int card = 0; card < DECK; card++) {
            if (gone[card])
                continue;
            bool on_something = false;
            for (int under = 0; under < DECK && !on_something; under++)
                on_something = !gone[under] && stack_ok(t, under, card);
            if (!on_something) {
                gone[card] = true;
                taken++;
            }
        }
        if (!taken)
            return true;
        left -= taken;
    }
    return false;
}

/* With a wrap: do the classes form one cycle under "builds on" (arrangements._one_cycle)?
 * Then a run that reaches its bottom card's parent class holds every class, which
 * arrangements.c's split relies on. */
static bool one_cycle(const Tables *t)
{
    int8_t parent_of[DECK];
    memset(parent_of, -1, sizeof parent_of);
    int classes = 0;
    for (int card = 0; card < DECK; card++) {
        int klass = t->klass[card];
        if (t->parent_class[card] < 0)
            return false;
        classes += parent_of[klass] < 0;
        parent_of[klass] = t->parent_class[card];
    }
    int start = t->klass[0], here = start, steps = 0;
    do {
        here = parent_of[here];
        steps++;
    } while (here >= 0 && here != start && steps <= classes);
    return here == start && steps == classes;
}

/* What arrangements.c relies on, as arrangements.supports and _classes make it: runs
 * move whole, every card builds on exactly the cards of its parent class (on none when
 * it has none), and either no wrap (so a run never reaches a card of its bottom card's
 * parent class, nor of its own class) or one deck whose classes form one cycle (so a run
 * that does holds every class: arrangements.c, split). No move is from a pile to itself
 * (arrangements.c, elsewhere). */
static const char *arranged_check(const Tables *t)
{
    if (!t->runs_any)
        return "arranged tables need runs of any length";
    for (int card = 0; card < DECK; card++)
        if (t->klass[card] >= DECK || t->parent_class[card] >= DECK || t->parent_class[card] < -1)
            return "a card class is not a class";
    for (int card = 0; card < DECK; card++)
        for (int under = 0; under < DECK; under++)
            if (stack_ok(t, under, card) != (t->klass[under] == t->parent_class[card]))
                return "a card builds on cards outside its parent class";
    if (t->wraps && (t->decks != 1 || !one_cycle(t)))
        return "arranged tables with a wrap need one deck and classes in one cycle";
    return 0;
}

/* The sizes and the foundations' next cards: what the tables built from them index by. */
static const char *sizes_check(const Tables *t)
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

/* The cards each card takes on it (stack_ok as lists, for move generation). */
static void accepted_prepare(Tables *t)
{
    for (int target = 0; target < DECK; target++) {
        Accepted *takes = &t->accepted_by[target];
        takes->count = 0;
        for (int moving = 0; moving < DECK; moving++)
            if (stack_ok(t, target, moving))
                takes->cards[takes->count++] = (uint8_t)moving;
    }
}

/* The children and the narrow children of each card, as lists. */
static void children_prepare(Tables *t)
{
    for (int card = 0; card < DECK; card++) {
        Accepted *wanting = &t->children_of[card], *narrow = &t->narrow_children_of[card];
        wanting->count = narrow->count = 0;
        for (int m = 0; m < DECK; m++) {
            if (t->child[card * DECK + m])
                wanting->cards[wanting->count++] = (uint8_t)m;
            if (t->narrow_child[card * DECK + m])
                narrow->cards[narrow->count++] = (uint8_t)m;
        }
    }
}

/* Does every card build only on cards one rank above its own (a King on an Ace where
 * the build wraps)? The search relies on it to find where in a run a card could go
 * without walking the run (variants.h). */
static bool builds_down_of(const Tables *t)
{
    for (int target = 0; target < DECK; target++)
        for (int moving = 0; moving < DECK; moving++)
            if (stack_ok(t, target, moving) && card_rank(moving) % 13 != card_rank(target) - 1)
                return false;
    return true;
}

/* first_fit (variants.h): where builds_down, the first count at which a run topped by
 * `top` could go onto `parent`, their ranks' difference modulo 13 (13 for 0); else 1,
 * every count being tried. Needs t->builds_down. */
static void first_fit_prepare(Tables *t)
{
    for (int parent = 0; parent < DECK; parent++)
        for (int top = 0; top < DECK; top++) {
            int first = ((card_rank(parent) - card_rank(top)) % 13 + 13) % 13;
            t->first_fit[parent * DECK + top] = (uint8_t)(!t->builds_down ? 1 : first ? first : 13);
        }
}

const char *tables_prepare(Tables *t)
{
    const char *bad = sizes_check(t);
    if (bad)
        return bad;
    accepted_prepare(t);
    children_prepare(t);
    t->builds_down = builds_down_of(t);
    t->wraps = builds_round(t);
    for (int card = 0; card < DECK; card++)
        t->never_safe[card] = (Accepted){.count = 1, .cards = {(uint8_t)card}};
    first_fit_prepare(t);
    return t->arranged ? arranged_check(t) : 0;
}
