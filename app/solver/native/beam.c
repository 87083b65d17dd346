/* The beam search by stock level (see beam.h and app/solver/beam.py). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "beam.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrays.h"
#include "beam_heap.h"
#include "keys.h"
#include "relaxation.h"
#include "settle.h"
#include "table.h"

enum { DRAWS_BETWEEN_CLOCKS = 16 };  /* a level's draws between looks at the clock */

/* A line as a chain of steps: a step's moves are moves[first .. first + len), played
 * after its parent's (-1: none). Positions that extend a line share its steps. */
typedef struct {
    int parent;
    size_t first;
    int len;
} Step;

typedef struct {
    const Tables *t;
    const BeamLimits *limits;
    /* The positions, by slot, with how many entries hold each (a position can be a
     * candidate, a frontier entry and a level's root at once); a slot no entry holds is
     * free for the next. Entries keep slots, not positions: a position is some 2.5 KB,
     * and the pool grows by realloc. */
    Position *pool;
    int *refs;
    size_t pool_len, pool_cap;
    int *free_slots;
    size_t free_len;
    Step *steps;
    size_t steps_len, steps_cap;
    Move *moves;
    size_t moves_len, moves_cap;
    Table seen;
    long positions;
    long added;          /* candidates added so far: each one's order */
    Entries candidates;  /* the level's `width` best: a min-heap by (score, -order) */
    Entries frontier;    /* a stack (depth first) or a min-heap by (-score, order) (best) */
    Entries level, next_level, ranked;
    Relaxation *dead_end;  /* the relaxed tableau's test, or NULL */
    Move legal[MAX_MOVES];
} Beam;

/* A free slot, held once; -1: out of memory. */
static int slot_new(Beam *b)
{
    int slot;
    if (b->free_len) {
        slot = b->free_slots[--b->free_len];
    } else {
        size_t cap = b->pool_cap;
        if (!reserve_room((void **)&b->pool, &cap, b->pool_len + 1, sizeof(Position)))
            return -1;
        size_t refs_cap = b->pool_cap, free_cap = b->pool_cap;
        if (!reserve_room((void **)&b->refs, &refs_cap, cap, sizeof(int))
            || !reserve_room((void **)&b->free_slots, &free_cap, cap, sizeof(int)))
            return -1;
        b->pool_cap = cap;
        slot = (int)b->pool_len++;
    }
    b->refs[slot] = 1;
    return slot;
}

static void slot_release(Beam *b, int slot)
{
    if (--b->refs[slot] == 0)
        b->free_slots[b->free_len++] = slot;
}

/* A step of `move` (none: NULL) then the safe moves `safe[0 .. n)`, after `parent`;
 * -1: out of memory. */
static int step_new(Beam *b, int parent, const Move *move, const Move *safe, int n)
{
    int len = n + (move != NULL);
    if (!reserve_room((void **)&b->steps, &b->steps_cap, b->steps_len + 1, sizeof(Step))
        || !reserve_room((void **)&b->moves, &b->moves_cap, b->moves_len + (size_t)len + 1,
                 sizeof(Move)))  /* + 1: never an empty (NULL) arena */
        return -1;
    Move *to = &b->moves[b->moves_len];
    if (move)
        *to++ = *move;
    if (n)  /* the arena may be empty yet (NULL), and memcpy must not be handed NULL */
        memcpy(to, safe, (size_t)n * sizeof(Move));
    b->steps[b->steps_len] = (Step){parent, b->moves_len, len};
    b->moves_len += (size_t)len;
    return (int)b->steps_len++;
}

static size_t line_length(const Beam *b, int step)
{
    size_t len = 0;
    for (; step >= 0; step = b->steps[step].parent)
        len += (size_t)b->steps[step].len;
    return len;
}

/* The moves of the line ending at `step`, first to last, into `out` (line_length). */
static void line_moves(const Beam *b, int step, Move *out, size_t len)
{
    for (; step >= 0; step = b->steps[step].parent) {
        const Step *s = &b->steps[step];
        len -= (size_t)s->len;
        if (s->len)
            memcpy(out + len, &b->moves[s->first], (size_t)s->len * sizeof(Move));
    }
}

/* Only the level's lines are needed past a level: each becomes one step of a fresh
 * arena, and the steps of the positions dropped go. */
static bool compact_lines(Beam *b, Entries *level)
{
    Step *steps = NULL;
    Move *moves = NULL;
    size_t steps_cap = 0, moves_cap = 0, moves_len = 0;
    for (size_t i = 0; i < level->len; i++) {
        size_t len = line_length(b, level->items[i].step);
        if (!reserve_room((void **)&steps, &steps_cap, i + 1, sizeof(Step))
            || !reserve_room((void **)&moves, &moves_cap, moves_len + len + 1, sizeof(Move))) {
            free(steps);
            free(moves);
            return false;
        }
        line_moves(b, level->items[i].step, moves + moves_len, len);
        steps[i] = (Step){-1, moves_len, (int)len};
        moves_len += len;
        level->items[i].step = (int)i;
    }
    free(b->steps);
    free(b->moves);
    b->steps = steps;
    b->moves = moves;
    b->steps_len = level->len;
    b->steps_cap = steps_cap;
    b->moves_len = moves_len;
    b->moves_cap = moves_cap;
    return true;
}

/* A new candidate: kept while fewer than `width` are, or in place of the lowest when higher
 * (a later entry of an equal score is lower: ties go to the first added). */
static bool candidate_add(Beam *b, int score, int slot, int step)
{
    Entry entry = {score, ++b->added, slot, step};
    Entries *h = &b->candidates;
    if (h->len < (size_t)b->limits->width) {
        if (!heap_push(h, entry, lower_candidate))
            return false;
        b->refs[slot]++;
    } else if (lower_candidate(&h->items[0], &entry)) {
        slot_release(b, h->items[0].slot);
        h->items[0] = entry;
        sift_down(h, 0, lower_candidate);
        b->refs[slot]++;
    }
    return true;
}

static int ranked_order(const void *x, const void *y)  /* best first, ties first added */
{
    const Entry *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int score_of(const Beam *b, const Position *p)
{
    int found[FEATURE_COUNT], value = 0;
    beam_features(b->t, p, found);
    for (int i = 0; i < FEATURE_COUNT; i++)
        value += b->limits->weights[i] * found[i];
    return value;
}

/* The position's draw or redeal (legal_moves lists it last), if it has one. */
static bool level_move(Beam *b, const Position *p, Move *out)
{
    int n = legal_moves(b->t, p, b->legal);
    if (!n || b->legal[n - 1].action == MOVE)
        return false;
    *out = b->legal[n - 1];
    return true;
}

static void won(Beam *b, int step, BeamOutcome *out)
{
    size_t len = line_length(b, step);
    out->line = malloc((len ? len : 1) * sizeof(Move));
    if (!out->line) {
        out->verdict = NO_MEMORY;
        return;
    }
    line_moves(b, step, out->line, len);
    out->line_len = len;
    out->verdict = SOLVED;
}

/* `move` applied to the position in `from`, then settled (settle's moves, not eager),
 * and keyed. Where the key is new, the position is copied to a slot of its own; then
 * the moves are undone in place (most children were met already: two thirds on Rainbow,
 * and a copy of each cost a fifth of the beam). Returns the new position's slot, or -1
 * where the key was met already, or -2 (out of memory); *step is its line. */
static int met(Beam *b, int from, int from_step, const Move *move, int *step)
{
    const Tables *t = b->t;
    Undo undo[1 + MAX_CARDS];
    Move safe[MAX_CARDS];
    Position *p = &b->pool[from];
    apply_undoable(t, p, move, &undo[0]);
    int n = 0;
    while (safe_move(t, p, false, &safe[n])) {
        apply_undoable(t, p, &safe[n], &undo[1 + n]);
        n++;
    }
    TableAdd added = table_add(&b->seen, plain_key(t, p));
    int slot = added == TABLE_ADDED ? slot_new(b) : added == TABLE_SEEN ? -1 : -2;
    p = &b->pool[from];  /* slot_new may have moved the pool */
    if (slot >= 0) {
        b->pool[slot] = *p;
        b->positions++;
        *step = step_new(b, from_step, move, safe, n);
        if (*step < 0)
            slot = -2;
    } else if (added == TABLE_ADDED) {
        slot = -2;
    }
    for (int i = n + 1; i-- > 0;)
        undo_move(t, p, &undo[i]);
    return slot;  /* TABLE_FULL (-2) never: the table is sized to the budget */
}

static void release_all(Beam *b, Entries *entries)
{
    for (size_t i = 0; i < entries->len; i++)
        slot_release(b, entries->items[i].slot);
    entries->len = 0;
}

/* Does a closure try this move? Draws end a level and foundation cards do not return
 * within one; with limits->single, runs move one card at a time. */
static bool closure_tries(const BeamLimits *limits, const Move *move)
{
    if (move->action != MOVE || move->src_kind == FOUNDATION)
        return false;
    return !(limits->single && move->count > 1);
}

/* One move of a closure from `at`: its position, where new, becomes a candidate and
 * joins the frontier (`order`: a heap, or NULL: a stack), `*found` counting it, unless
 * the relaxed tableau finds it lost. False: the search ends (`out` says why). */
static bool closure_step(Beam *b, const Entry *at, const Move *move, Before order, long *found,
                         BeamOutcome *out)
{
    int step;
    int slot = met(b, at->slot, at->step, move, &step);
    if (slot == -2)
        return out->verdict = NO_MEMORY, false;
    if (slot < 0)
        return true;
    ++*found;
    if (is_won(b->t, &b->pool[slot])) {
        won(b, step, out);
        return false;
    }
    if (b->dead_end && relaxation_lost(b->dead_end, &b->pool[slot])) {
        slot_release(b, slot);  /* met, neither kept nor explored */
    } else {
        Entry child = {score_of(b, &b->pool[slot]), *found, slot, step};
        if (!candidate_add(b, child.score, slot, step)
            || !(order ? heap_push(&b->frontier, child, order) : push(&b->frontier, child)))
            return out->verdict = NO_MEMORY, false;
    }
    if (b->positions >= b->limits->max_positions) {
        out->stop = STOP_POSITIONS;
        return false;
    }
    return true;
}

/* One root's closure: positions met from `root` by moves that do not draw, up to the
 * cap, each a candidate. False: the search ends (`out` says why). */
static bool closure(Beam *b, const Entry *root, double deadline, BeamOutcome *out)
{
    const BeamLimits *limits = b->limits;
    Before order = limits->best ? better_frontier : NULL;
    Move unused;
    long cap = level_move(b, &b->pool[root->slot], &unused)
                   ? limits->closure
                   : (long)limits->closure * limits->endgame;
    b->refs[root->slot]++;
    if (!push(&b->frontier, (Entry){root->score, 0, root->slot, root->step}))
        return out->verdict = NO_MEMORY, false;
    long found = 0;
    while (b->frontier.len && found < cap) {
        Entry at = order ? heap_pop(&b->frontier, order) : b->frontier.items[--b->frontier.len];
        /* b->legal stays as it is until the loop ends: nothing in it lists moves */
        int n = legal_moves(b->t, &b->pool[at.slot], b->legal);
        for (int i = 0; i < n; i++)
            if (closure_tries(limits, &b->legal[i])
                && !closure_step(b, &at, &b->legal[i], order, &found, out))
                return false;
        slot_release(b, at.slot);
    }
    release_all(b, &b->frontier);
    if (deadline >= 0 && now_seconds() > deadline) {
        out->stop = STOP_DEADLINE;
        return false;
    }
    return true;
}

/* The next level: from the candidates, best first, each one's draw (or redeal). False:
 * the search ends. */
static bool next_level(Beam *b, double deadline, BeamOutcome *out)
{
    Entries *ranked = &b->ranked, *level = &b->next_level;
    ranked->len = 0;
    for (size_t i = 0; i < b->candidates.len; i++)
        if (!push(ranked, b->candidates.items[i]))
            return out->verdict = NO_MEMORY, false;
    qsort(ranked->items, ranked->len, sizeof(Entry), ranked_order);
    level->len = 0;
    for (size_t i = 0; i < ranked->len; i++) {
        if (deadline >= 0 && i % DRAWS_BETWEEN_CLOCKS == DRAWS_BETWEEN_CLOCKS - 1
            && now_seconds() > deadline) {
            out->stop = STOP_DEADLINE;  /* a wide level's draws, each tested, take long */
            return false;
        }
        const Entry *from = &ranked->items[i];
        Move move;
        if (!level_move(b, &b->pool[from->slot], &move))
            continue;
        int step;
        int slot = met(b, from->slot, from->step, &move, &step);
        if (slot == -2)
            return out->verdict = NO_MEMORY, false;
        if (slot < 0)
            continue;
        if (is_won(b->t, &b->pool[slot])) {
            won(b, step, out);
            return false;
        }
        if (b->dead_end && relaxation_lost(b->dead_end, &b->pool[slot]))
            slot_release(b, slot);  /* met, not kept */
        else if (!push(level, (Entry){0, 0, slot, step}))
            return out->verdict = NO_MEMORY, false;
        if (b->positions >= b->limits->max_positions) {
            out->stop = STOP_POSITIONS;
            return false;
        }
    }
    release_all(b, &b->candidates);
    release_all(b, &b->level);
    Entries swap = b->level;
    b->level = b->next_level;
    b->next_level = swap;
    return compact_lines(b, &b->level) || (out->verdict = NO_MEMORY, false);
}

static void beam_free(Beam *b)
{
    table_free(&b->seen);
    free(b->pool);
    free(b->refs);
    free(b->free_slots);
    free(b->steps);
    free(b->moves);
    free(b->candidates.items);
    free(b->frontier.items);
    free(b->level.items);
    free(b->next_level.items);
    free(b->ranked.items);
    relaxation_free(b->dead_end);
    free(b);
}

void beam_run(const Tables *t, const Position *start, const BeamLimits *limits,
              BeamOutcome *out)
{
    double deadline = limits->max_seconds < 0 ? -1 : now_seconds() + limits->max_seconds;
    memset(out, 0, sizeof *out);
    out->verdict = UNKNOWN;
    out->stop = STOP_NONE;
    out->positions = 1;
    Beam *b = calloc(1, sizeof *b);
    if (!b || !table_init(&b->seen, (size_t)limits->max_positions + 1)) {
        out->verdict = NO_MEMORY;
        if (b)
            beam_free(b);
        return;
    }
    b->t = t;
    b->limits = limits;
    int first = slot_new(b), step = -1;
    if (first >= 0) {
        Move safe[MAX_CARDS];
        b->pool[first] = *start;
        step = step_new(b, -1, NULL, safe, settle(t, &b->pool[first], false, safe));
    }
    if (step < 0 || !push(&b->level, (Entry){0, 0, first, step})) {
        out->verdict = NO_MEMORY;
        beam_free(b);
        return;
    }
    b->positions = 1;
    if (is_won(t, &b->pool[first])) {
        won(b, step, out);
        beam_free(b);
        return;
    }
    table_add(&b->seen, plain_key(t, &b->pool[first]));
    if (limits->relaxed
        && !relaxation_new(t, &b->pool[first], RELAXED_STOCK_LIMIT, RELAXED_BEAM_STATE_LIMIT,
                           relaxation_lost_limit(0), &b->dead_end)) {
        out->verdict = NO_MEMORY;
        beam_free(b);
        return;
    }
    if (b->dead_end && relaxation_lost(b->dead_end, &b->pool[first])) {
        beam_free(b);  /* lost already: nothing to keep (out says unknown, 1 position) */
        return;
    }
    bool going = true;
    while (going && b->level.len) {
        b->candidates.len = 0;
        b->added = 0;
        for (size_t i = 0; going && i < b->level.len; i++) {
            Entry *root = &b->level.items[i];
            root->score = score_of(b, &b->pool[root->slot]);
            going = candidate_add(b, root->score, root->slot, root->step)
                        ? closure(b, root, deadline, out)
                        : (out->verdict = NO_MEMORY, false);
        }
        if (going)
            going = next_level(b, deadline, out);
    }
    out->positions = b->positions;
    beam_free(b);
}
