/* The move scores of app/solver/moves.py, which the search's children and the children
 * up to run arrangement (arrangements.c) are sorted by. */
#ifndef SOLVER_NATIVE_SCORES_H
#define SOLVER_NATIVE_SCORES_H

/* Lowest tried first, by the same names as in moves.py: why each sits where it does is
 * said there. */
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
