/* The move scores the search's children and the children up to run arrangement
 * (arrangements.c) are sorted by. */
#ifndef SOLVER_NATIVE_SCORES_H
#define SOLVER_NATIVE_SCORES_H

/* Lowest tried first. The names app/solver/moves.py has too are the same scores there,
 * and it says why each sits where it does. The others: CLEARED_FIRST, the run on the card
 * goes to a class sibling first; TURN_UP_TO_EMPTY, a base into an empty pile; ROOT_TO_TOP,
 * a root (a whole pile) onto a top of its parent class, which frees a pile;
 * FROM_FOUNDATION_TO_EMPTY, a card back from a foundation into an empty pile (all up to
 * run arrangement); PAIRED, an obligated move's pairs, which take its place in their own
 * order. */
enum {
    FOUNDATION_UNCOVERS = 0,
    TURN_UP = 1,           /* + the face-down cards under the run */
    CLEARED_FIRST = 2,     /* + the plain score */
    TURN_UP_TO_EMPTY = 3,  /* + the face-down cards under the base */
    REFILLED = 5,
    TO_FOUNDATION = 10,
    FROM_WASTE = 20,
    ROOT_TO_TOP = 25,
    EMPTY_PILE = 30,
    FROM_WASTE_TO_EMPTY = 40,
    SPLIT_RUN = 50,
    SPLIT_TO_EMPTY = 60,
    FROM_FOUNDATION = 70,
    FROM_FOUNDATION_TO_EMPTY = 75,
    REDEAL_LAST = 95,
    PAIRED = 0,
};

#endif
