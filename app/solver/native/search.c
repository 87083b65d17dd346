/* The search's driver (search.h): the frames, the budgets, the transposition table, and
 * the list of reductions it runs (those that want the search's limits, below), in the
 * space a reduction installs (plain, narrow or up to run arrangement: children.c). What each
 * reduction leaves out, and why no win is lost by it, is in its own file (reduce_*.c). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "search.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrays.h"
#include "frames.h"
#include "keys.h"

/* A new top frame at `at`, reached by `line` (the moves just applied, with their undo
 * records). */
static bool push_frame(Search *s, const Undo *line, int line_len, const Move *last, int drawn)
{
    if (!reserve_room((void **)&s->frames, &s->frames_cap, s->depth + 1, sizeof(Frame))
        || !reserve_room((void **)&s->undos, &s->undos_cap, s->undos_len + (size_t)line_len,
                         sizeof(Undo))
        || !reserve_room((void **)&s->kids, &s->kids_cap, s->kids_len + MAX_MOVES,
                         sizeof(Child)))
        return false;
    Frame *frame = &s->frames[s->depth];
    if (line_len)  /* a root with no safe moves: nothing to copy, and no array yet */
        memcpy(&s->undos[s->undos_len], line, (size_t)line_len * sizeof(Undo));
    frame->line = s->undos_len;
    frame->line_len = (size_t)line_len;
    s->undos_len += (size_t)line_len;
    frame->first = s->kids_len;
    frame->next = 0;
    frame->prefix = s->prefixes_len;
    frame->prefix_len = 0;
    frame->drawn = (int8_t)drawn;
    frame->exposing_known = false;
    frame->count = (size_t)children(s, frame, last, &s->kids[s->kids_len]);
    s->kids_len += frame->count;
    s->depth++;
    return true;
}

/* Take the top frame's line back off `at`, and the frame off the stacks. */
static void pop_frame(Search *s)
{
    Frame *frame = &s->frames[--s->depth];
    for (size_t i = frame->line_len; i-- > 0;)
        undo_move(s->t, &s->at, &s->undos[frame->line + i]);
    s->kids_len = frame->first;
    s->undos_len = frame->line;
    s->prefixes_len = frame->prefix;
}

static void undo_line(Search *s, const Undo *line, int len)
{
    for (int i = len; i-- > 0;)
        undo_move(s->t, &s->at, &line[i]);
}

/* The winning line: every frame's line, then `tail` and `finish`. */
static void won(Search *s, const Undo *tail, int tail_len, const Move *finish, int finish_len,
                Outcome *out)
{
    size_t len = s->undos_len + (size_t)tail_len + (size_t)(finish_len > 0 ? finish_len : 0);
    out->line = malloc((len ? len : 1) * sizeof(Move));
    if (!out->line) {
        out->verdict = NO_MEMORY;
        return;
    }
    for (size_t i = 0; i < s->undos_len; i++)
        out->line[i] = s->undos[i].move;
    for (int i = 0; i < tail_len; i++)
        out->line[s->undos_len + (size_t)i] = tail[i].move;
    if (finish_len > 0)
        memcpy(out->line + s->undos_len + tail_len, finish, (size_t)finish_len * sizeof(Move));
    out->line_len = len;
    out->verdict = SOLVED;
}

/* REJOIN's move: `count` cards from the pile `clear` moved cards to, back onto the pile
 * it took them from. */
static Move rejoin_move(const Move *clear, int count)
{
    Move move = {MOVE, TABLEAU, clear->dst, TABLEAU, clear->src, (uint8_t)count};
    return move;
}

/* The top frame's next child, applied to `at` and settled; its line, to undo. */
static int play_child(Search *s, Frame *frame, Undo *line)
{
    const Tables *t = s->t;
    Child child = s->kids[frame->first + frame->next++];
    int len = 0;
    if (child.kind == CHILD_PAIR)
        for (; len < (int)frame->prefix_len; len++)
            apply_undoable(t, &s->at, &s->prefixes[frame->prefix + (size_t)len], &line[len]);
    int settled = len;  /* the position after the prefix is settled */
    Move then = child.clear;
    if (child.kind == CHILD_CLEARED) {
        apply_undoable(t, &s->at, &child.clear, &line[len++]);
        then.count = child.then & THEN_COUNT;
        if (then.count)
            apply_undoable(t, &s->at, &then, &line[len++]);
    }
    apply_undoable(t, &s->at, &child.move, &line[len++]);
    if (child.kind == CHILD_CLEARED && child.then & REJOIN) {
        Move rejoin = rejoin_move(&child.clear, child.clear.count + then.count);
        apply_undoable(t, &s->at, &rejoin, &line[len++]);
    }
    if (s->space->settles(t, &s->at, line + settled, len - settled, s->rule))
        len += settle_undoable(t, &s->at, s->rule, line + len);
    return len;
}

static uint64_t key_of(Search *s) { return s->space->key(s->t, &s->at); }

/* The reductions' hooks at each point of the loop, in list order (gather_hooks). */
static bool skipped(Search *s, const Frame *frame, const Undo *line, int len)
{
    for (int r = 0; r < s->hooks.skips_len; r++)
        if (s->hooks.skips[r](s, frame, line, len))
            return true;
    return false;
}

static int reached(const Search *s, const Undo *line, int len)
{
    int drawn = NOT_DRAWN;
    for (int r = 0; r < s->hooks.reached_len && drawn == NOT_DRAWN; r++)
        drawn = s->hooks.reached[r](s, line, len);
    return drawn;
}

static bool dead_end(Search *s)
{
    for (int r = 0; r < s->hooks.dead_end_len; r++)
        if (s->hooks.dead_end[r](s))
            return true;
    return false;
}

static bool goes_back(const Search *s, const Undo *line, int len)
{
    for (int r = 0; r < s->hooks.goes_back_len; r++)
        if (s->hooks.goes_back[r](s, line, len))
            return true;
    return false;
}

static bool expanded(Search *s, Frame *frame)
{
    /* an obligated child with no reduction to expand it is a plain one (plain_obligations) */
    return s->hooks.expands(s, frame);
}

/* What the loop does after a child is played. */
typedef enum { NEXT, PUSH, STOP } Step;

/* A new position met (counted, not won): is the search to stop, to go on with the next
 * child (a dead end), or to push a frame for it? */
static Step met(Search *s, const Limits *limits, double deadline, Outcome *out)
{
    if (out->positions >= limits->max_positions) {
        out->stop = STOP_POSITIONS;
        return STOP;
    }
    if (deadline >= 0 && out->positions % TIME_CHECK_EVERY == 0 && now_seconds() > deadline) {
        out->stop = STOP_DEADLINE;
        return STOP;
    }
    if (dead_end(s))  /* met, not expanded */
        return NEXT;
    if (s->depth >= s->max_depth) {
        out->stop = STOP_DEPTH;
        return STOP;
    }
    return PUSH;
}

/* The top frame's next child played: skipped, met already, or new (then won, a dead end,
 * the end of a budget, or a new frame). */
static Step step(Search *s, Frame *frame, const Limits *limits, double deadline, Outcome *out)
{
    Undo line[LINE_CAP];
    Move finish[MAX_CARDS];
    int len = play_child(s, frame, line);
    if (skipped(s, frame, line, len)) {
        undo_line(s, line, len);
        return NEXT;
    }
    out->children++;
    int drawn = reached(s, line, len);
    uint64_t key = key_of(s);
    TableAdd added = table_add(&s->seen, drawn != NOT_DRAWN ? drawn_key(key, drawn) : key);
    if (added == TABLE_FULL) {
        out->stop = STOP_TABLE;
        return STOP;
    }
    Step next = NEXT;
    if (added != TABLE_SEEN) {
        out->positions++;
        int finish_len = is_won(s->t, &s->at) ? 0 : finish_line(s->t, &s->at, finish);
        if (finish_len >= 0) {
            won(s, line, len, finish, finish_len, out);
            return STOP;
        }
        next = met(s, limits, deadline, out);
    }
    if (next == PUSH) {
        Move chosen = s->kids[frame->first + frame->next - 1].move;  /* kids may move */
        bool back = goes_back(s, line, len);
        if (!push_frame(s, line, len, back ? &chosen : NULL, drawn)) {
            out->verdict = NO_MEMORY;
            return STOP;
        }
    } else if (next == NEXT) {
        undo_line(s, line, len);
    }
    return next;
}

/* The search's loop over the frames, from the root frame pushed. */
static void run(Search *s, const Limits *limits, double deadline, Outcome *out)
{
    while (s->depth) {
        Frame *frame = &s->frames[s->depth - 1];
        if (frame->next >= frame->count) {
            pop_frame(s);
        } else if (s->kids[frame->first + frame->next].kind == CHILD_OBLIGED) {
            out->expansions++;
            if (!expanded(s, frame)) {
                out->verdict = NO_MEMORY;
                return;
            }
        } else if (step(s, frame, limits, deadline, out) == STOP) {
            return;
        }
    }
    out->verdict = UNSOLVABLE;
}

/* Every reduction, in list order: each decides from the limits whether a search wants
 * it (Reduction.wanted). A narrow search (restarts, which prove nothing) gets the direct
 * safe-move rule (or, eager, every foundation move), same targets, obligations, narrow
 * moves and the loose straight back; the full one the sound safe-move rule, same
 * targets, obligations, the exact straight back, then, as asked, deferred draws, their
 * children passed over, the relaxed tableau's test and positions up to run arrangement.
 * Each list orders its hooks: settle's rule first, the twins dropped as children are
 * made, the expansion of obligations, the skips after play, the dead-end test. */
static const Reduction *const LIST[] = {
    &SETTLE,         &SETTLE_NARROW, &SETTLE_EAGER,     &SAME_TARGETS,
    &OBLIGATIONS,    &NARROW_MOVES,  &STRAIGHT_BACK,    &STRAIGHT_BACK_LOOSE,
    &DEFERRED_DRAWS, &PASSED_OVER,   &RELAXED_DEAD_END, &ARRANGED,
};
enum { LIST_LEN = sizeof LIST / sizeof LIST[0] };

/* The full search's reductions are those sound for proofs of loss, in list order;
 * Limits.without's bit i leaves the i-th out (the differential tests switch each off
 * alone). Their names, by index (NULL past the last). */
const char *search_reduction(int index)
{
    for (int i = 0; i < LIST_LEN; i++)
        if (LIST[i]->sound_for_loss && index-- == 0)
            return LIST[i]->name;
    return NULL;
}

/* The search's list: the reductions it wants, less those left out. A full search, whose
 * exhaustion is a proof, never lists one that is not sound for proofs of loss, whatever
 * that one wants (tests/solver/test_native_layout.py). */
static int search_list(const Limits *limits, const Reduction **list)
{
    int n = 0, sound = 0;
    for (int i = 0; i < LIST_LEN; i++) {
        const Reduction *reduction = LIST[i];
        bool left_out = reduction->sound_for_loss ? limits->without >> sound++ & 1
                                                  : !limits->narrow;
        if (!left_out && (!reduction->wanted || reduction->wanted(limits)) && n < MAX_REDUCTIONS)
            list[n++] = reduction;
    }
    return n;
}

/* Where no reduction expands obligated moves, they are plain children (a drops hook, first
 * of them, so that the reductions' drops see them as such). */
static int plain_obligations(Search *s, Frame *frame, Child *out, double *noisy, int n)
{
    (void)s, (void)frame, (void)noisy;
    for (int i = 0; i < n; i++)
        if (out[i].kind == CHILD_OBLIGED) {
            out[i].kind = CHILD_PLAIN;
            out[i].must_use = NO_USE;
        }
    return n;
}

/* The hooks an obligated move's expansion asks: the first list entry's of each. */
static void gather_expansion(Hooks *h, const Reduction *reduction)
{
    if (reduction->expands && !h->expands)
        h->expands = reduction->expands;
    if (reduction->pair_sources && !h->pair_sources)
        h->pair_sources = reduction->pair_sources;
    if (reduction->thin_pairs && !h->thin_pairs)
        h->thin_pairs = reduction->thin_pairs;
    if (reduction->twin && !h->twin)
        h->twin = reduction->twin;
}

/* Each kind of hook of the list, in list order, into s->hooks. */
static void gather_hooks(Search *s)
{
    Hooks *h = &s->hooks;
    for (int r = 0; r < s->reductions_len; r++)
        gather_expansion(h, s->reductions[r]);
    if (!h->expands)
        h->drops[h->drops_len++] = plain_obligations;
    for (int r = 0; r < s->reductions_len; r++) {
        const Reduction *reduction = s->reductions[r];
        if (reduction->drops)
            h->drops[h->drops_len++] = reduction->drops;
        if (reduction->skips)
            h->skips[h->skips_len++] = reduction->skips;
        if (reduction->reached)
            h->reached[h->reached_len++] = reduction->reached;
        if (reduction->dead_end)
            h->dead_end[h->dead_end_len++] = reduction->dead_end;
        if (reduction->goes_back)
            h->goes_back[h->goes_back_len++] = reduction->goes_back;
    }
}

static void search_free(Search *s)
{
    for (int r = 0; r < s->reductions_len; r++)
        if (s->reductions[r]->release)
            s->reductions[r]->release(s);
    table_free(&s->seen);
    free(s->frames);
    free(s->kids);
    free(s->undos);
    free(s->prefixes);
    free(s);
}

/* The search's state before its root: the table, the list's reductions prepared (false:
 * out of memory). */
static bool search_init(Search *s, const Tables *t, const Position *start,
                        const Limits *limits, double deadline)
{
    size_t limit = limits->table_size;
    if ((size_t)limits->max_positions < limit)
        limit = (size_t)limits->max_positions + 1;  /* never more keys than positions */
    if (!table_init(&s->seen, limit))
        return false;
    s->t = t;
    s->draw_score = limits->draw_score;
    s->max_depth = limits->max_depth;
    s->rule = t->never_safe;  /* a list without a safe-move rule plays nothing unbranched */
    s->space = &PLAIN_SPACE;  /* unless a reduction installs another */
    s->reductions_len = search_list(limits, s->reductions);
    for (int r = 0; r < s->reductions_len; r++)
        if (s->reductions[r]->prepare && !s->reductions[r]->prepare(s, start, limits, deadline))
            return false;
    gather_hooks(s);
    s->jitter = limits->seed != 0;
    if (s->jitter)
        random_seed(&s->random, limits->seed);
    return true;
}

void search_run(const Tables *t, const Position *start, const Limits *limits, Outcome *out)
{
    double deadline = limits->max_seconds < 0 ? -1 : now_seconds() + limits->max_seconds;
    memset(out, 0, sizeof *out);
    out->verdict = UNKNOWN;
    out->positions = 1;
    Search *s = calloc(1, sizeof *s);
    if (!s || !search_init(s, t, start, limits, deadline)) {
        out->verdict = NO_MEMORY;
        if (s)
            search_free(s);
        return;
    }
    Undo line[MAX_CARDS];
    Move finish[MAX_CARDS];
    Position *root = &s->at;
    *root = *start;
    int len = settle_undoable(t, root, s->rule, line);
    int finish_len = is_won(t, root) ? 0 : finish_line(t, root, finish);
    if (finish_len >= 0)
        won(s, line, len, finish, finish_len, out);
    else if (dead_end(s))
        out->verdict = UNSOLVABLE;
    else if (table_add(&s->seen, key_of(s)) == TABLE_FULL)
        out->stop = STOP_TABLE;
    else if (!push_frame(s, line, len, NULL, NOT_DRAWN))
        out->verdict = NO_MEMORY;
    else
        run(s, limits, deadline, out);
    out->skipped = s->skipped;
    search_free(s);
}

int search_children(const Tables *t, const Position *p, const Move *last, int draw_score,
                    ScoredMove *out)
{
    Search *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->t = t;
    s->draw_score = draw_score;
    s->space = &PLAIN_SPACE;
    s->at = *p;
    /* The hooks of a full search with these limits (nothing prepared: making children
     * reads none of the reductions' state). */
    s->reductions_len = search_list(&(Limits){.draw_score = draw_score}, s->reductions);
    gather_hooks(s);
    Child kids[MAX_MOVES];
    int n = s->space->make(s, &s->at, last, kids);
    for (int i = 0; i < n; i++)
        out[i] = (ScoredMove){.score = kids[i].score, .move = kids[i].move,
                              .must_use = kids[i].must_use};
    free(s);
    return n;
}
