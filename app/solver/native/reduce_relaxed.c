/* The relaxed tableau's dead-end test (docs/solver.md, "The relaxed tableau"; the test
 * itself is relaxation.c): where it applies, a position with few cards left in the stock
 * that the relaxed game cannot win is met but not expanded. The relaxed game allows every
 * move the game does and more, so a position it loses the game loses too: sound for
 * proofs of loss. */
#include "frames.h"

static bool prepare(Search *s, const Position *start, const Limits *limits, double deadline)
{
    if (!relaxation_new(s->t, start, limits->relaxed_stock, limits->relaxed_states,
                        relaxation_lost_limit(limits->table_size), &s->dead_end))
        return false;
    if (s->dead_end)  /* NULL where the test does not apply (relaxation.h) */
        relaxation_set_deadline(s->dead_end, deadline);
    return true;
}

static bool dead_end(Search *s) { return s->dead_end && relaxation_lost(s->dead_end, &s->at); }

static void release(Search *s) { relaxation_free(s->dead_end); }

/* Asked for (Limits.relaxed), in the full search only. */
static bool wanted_when(const Limits *limits) { return !limits->narrow && limits->relaxed; }

const Reduction RELAXED_DEAD_END = {.name = "relaxed tableau", .sound_for_loss = true,
                                    .wanted = wanted_when, .prepare = prepare,
                                    .dead_end = dead_end, .release = release};
