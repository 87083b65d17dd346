/* The move scores the search's children and the children up to run arrangement
 * (arrangements.c) are sorted by. */
#ifndef SOLVER_NATIVE_SCORES_H
#define SOLVER_NATIVE_SCORES_H

/* Lowest tried first (a stable sort: equal scores keep the engine's order). A draw's
 * score is the rules' (app/solver/tables.py: DRAW_EARLY 15, DRAW_BEFORE_SPLITS 40,
 * DRAW_LAST 90); app.solver.plan.suggest reads these through search_children. */
enum {
    FOUNDATION_UNCOVERS = 0,  /* to a foundation, turning a card up or emptying a pile */
    TURN_UP = 1,              /* a whole face-up run off face-down cards, + how many: fewest first */
    CLEARED_FIRST = 2,        /* arranged: the run on the card to a class sibling, + the plain score */
    TURN_UP_TO_EMPTY = 3,     /* arranged: a base into an empty pile, + the face-down cards under it */
    REFILLED = 5,             /* empties a pile the reserve refills at once: nothing spent */
    TO_FOUNDATION = 10,       /* any other foundation move: seldom wrong */
    FROM_WASTE = 20,          /* the waste's (or reserve's) top onto a tableau card */
    ROOT_TO_TOP = 25,         /* arranged: a root onto a top of its parent class: frees a pile */
    EMPTY_PILE = 30,          /* the last face-up run onto another pile: kept for later */
    FROM_WASTE_TO_EMPTY = 40, /* the waste's top into an empty pile: spends it */
    SPLIT_RUN = 50,           /* part of a run onto another card: for what it uncovers */
    SPLIT_TO_EMPTY = 60,      /* part of a run into an empty pile: spends it as well */
    FROM_FOUNDATION = 70,     /* a card back from a foundation: undoes progress */
    FROM_FOUNDATION_TO_EMPTY = 75,  /* arranged: the same into an empty pile */
    REDEAL_LAST = 95,         /* the stock comes round again: after everything else */
    PAIRED = 0,               /* an obligated move's pairs: in their own order, in its place */
};

#endif
