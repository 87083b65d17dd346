/* Safe foundation moves (docs/solver.md, "Safe foundation moves"; settle.c plays them):
 * after every step the search plays, without branching, the foundation moves that cannot
 * matter. SETTLE: a card goes up when every card that could be built on it, through a
 * chain, is up (SearchTables.children): nothing can ever be put on it again, so a winning
 * line's remaining moves of it are relocations and its last move up, and putting it up now
 * only uncovers cards sooner: sound for proofs of loss. SETTLE_NARROW: the direct rule
 * (SearchTables.narrow_children), which finds wins sooner but does not hold where cards
 * come back from the foundations; SETTLE_EAGER: every foundation move
 * (SearchTables.eager_foundations). Neither is sound for proofs of loss. */
#include "frames.h"

static bool by_children(Search *s, const Position *start, const Limits *limits, double deadline)
{
    (void)start, (void)limits, (void)deadline;
    s->rule = s->t->children_of;
    return true;
}

static bool by_narrow_children(Search *s, const Position *start, const Limits *limits,
                               double deadline)
{
    (void)start, (void)limits, (void)deadline;
    s->rule = s->t->narrow_children_of;
    return true;
}

static bool every_move(Search *s, const Position *start, const Limits *limits, double deadline)
{
    (void)start, (void)limits, (void)deadline;
    s->rule = NULL;
    return true;
}

static bool full(const Limits *limits) { return !limits->narrow; }

static bool narrow(const Limits *limits) { return limits->narrow && !limits->eager; }

static bool eager(const Limits *limits) { return limits->narrow && limits->eager; }

const Reduction SETTLE = {
    .name = "safe moves", .sound_for_loss = true, .wanted = full, .prepare = by_children};
const Reduction SETTLE_NARROW = {.name = "safe moves, direct rule", .sound_for_loss = false,
                                 .wanted = narrow, .prepare = by_narrow_children};
const Reduction SETTLE_EAGER = {.name = "every foundation move", .sound_for_loss = false,
                                .wanted = eager, .prepare = every_move};
