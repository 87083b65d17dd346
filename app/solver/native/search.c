/* The depth-first search (see search.h). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "search.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrangements.h"
#include "arrays.h"
#include "hash.h"
#include "jitter.h"
#include "keys.h"
#include "relaxation.h"
#include "scores.h"
#include "settle.h"
#include "table.h"

/* ------------------------------------------------------------------- the search */

enum {
    NO_USE = -1,               /* a child that obligates no pile */
    TIME_CHECK_EVERY = 512,    /* positions between looks at the clock, as in Python */
    /* A child's line: the obligated move or the moves before it (MAX_BEFORE; with the
     * rejoin one more), the move, one card taken back down by either at most, so at most
     * MAX_CARDS + 1 safe moves. */
    LINE_CAP = 3 + MAX_BEFORE + MAX_CARDS,
};

/* moves.Child: a move from the frame's position (PLAIN), an obligated move not yet
 * paired (OBLIGED; must_use: the pile the next move must use), a move played after the
 * frame's prefix, the expanded obligation (PAIR), or, up to run arrangement, a move
 * played after `clear` (CLEARED: the run on the moving card to a class sibling). With a
 * wrap an arranged child can have up to three moves before its own (ArrangedChild);
 * kept in 16 bytes, as they have a shape: `clear`, then `then` more cards from the same
 * pile onto the same pile, then `move`, then (REJOIN) all of them back onto the pile
 * they came from. */
typedef enum { CHILD_PLAIN, CHILD_OBLIGED, CHILD_PAIR, CHILD_CLEARED } ChildKind;

enum { REJOIN = 0x80, THEN_COUNT = 0x7f };

typedef struct {
    int16_t score;
    union {
        int8_t must_use;  /* CHILD_OBLIGED only */
        uint8_t then;     /* CHILD_CLEARED only: a count, and REJOIN */
    };
    uint8_t kind;
    Move move;
    Move clear;  /* CHILD_CLEARED only */
} Child;

/* search._Frame, without its position: the search keeps one position, `at`, the top
 * frame's, applying a child's moves to it and undoing them (a copy per child cost a
 * quarter of the time, and a copy per frame bounded the depth by memory). Its children
 * are kids[first .. first + count), its line (the moves from the parent: chosen and safe
 * ones) undos[line .. line + line_len), its prefix (expand's obligated move and the safe
 * moves after it) prefixes[prefix .. prefix + prefix_len). All three are stacks: the top
 * frame's segments are the last ones, so expand can grow them in place. */
typedef struct {
    size_t first, count, next;
    size_t line, line_len;
    size_t prefix, prefix_len;
    int8_t drawn;  /* NOT_DRAWN, or reached by a bare draw covering this card (deferred) */
    bool exposing_known;  /* drawn frames: `exposing` worked out (exposing_piles) */
    uint32_t exposing;
} Frame;

/* Frame.drawn when not reached by a bare draw; NOTHING_COVERED: the waste was empty
 * (search.NOT_DRAWN, search.NOTHING_COVERED). */
enum { NOT_DRAWN = -2, NOTHING_COVERED = -1 };

typedef struct {
    const Tables *t;
    int draw_score;
    bool narrow, jitter, arranged, defer_draws;
    SafeRule rule;               /* the safe moves settle plays */
    Random random;               /* the restart's jitter (when `jitter`) */
    Position at;                 /* the top frame's position */
    size_t max_depth;
    Frame *frames;
    size_t depth, frames_cap;
    Child *kids;
    size_t kids_len, kids_cap;
    Undo *undos;                 /* the frames' lines, as the moves with their undo records */
    size_t undos_len, undos_cap;
    Move *prefixes;
    size_t prefixes_len, prefixes_cap;
    Table seen;
    Relaxation *dead_end;        /* the relaxed tableau's test, or NULL (search._search) */
    long skipped;                /* Outcome.skipped */
    Move moves[MAX_MOVES];       /* scratch: the legal moves of the node being scored */
    int found_marks[MAX_MOVES];  /* scratch: scored_moves' seen_found and seen_empty */
    int empty_marks[MAX_MOVES];
    Child pairs[MAX_MOVES];      /* scratch: expand's children */
    double noisy[MAX_MOVES];     /* scratch: jittered's scores */
    ArrangedChild arranged_kids[MAX_ARRANGED_CHILDREN];  /* scratch: arranged_children's */
} Search;

static bool tableau_takes(const Tables *t, const Position *p, int index, int card)
{
    const TableauPile *pile = &p->tableau[index];
    if (!pile->len)
        return !(t->reserve_fills_empty && p->reserve.len);
    return stack_ok(t, pile->cards[pile->len - 1], card);
}

static void put_child(Child *out, int score, const Move *move, int must_use, ChildKind kind)
{
    out->score = (int16_t)score;
    out->must_use = (int8_t)must_use;
    out->kind = (uint8_t)kind;
    out->move = *move;
}

/* Add `mark` to the set marks[0 .. *len); false when it was there already. */
static bool mark_new(int *marks, int *len, int mark)
{
    for (int i = 0; i < *len; i++)
        if (marks[i] == mark)
            return false;
    marks[(*len)++] = mark;
    return true;
}

static bool straight_back(const Move *last, const Move *move)
{
    return last && last->action == MOVE && last->src_kind == move->dst_kind
        && last->src == move->dst && last->dst_kind == move->src_kind
        && last->dst == move->src && last->count == move->count;
}

/* A foundation move of scored_moves: its score, or -1 when it is not worth trying. */
static int foundation_score(Search *s, const Position *p, const Move *move, int *found_len)
{
    const FoundationPile *top = &p->foundations[move->dst];
    int source = move->src_kind * MAX_PILES + move->src;
    if (!mark_new(s->found_marks, found_len,
                  source * 64 + (top->len ? top->cards[top->len - 1] + 1 : 0)))
        return -1;  /* the same card onto an equal foundation */
    if (move->src_kind == TABLEAU) {
        const TableauPile *pile = &p->tableau[move->src];
        int left = pile->len - 1;
        /* also turns up or empties */
        return left == 0 || pile->hidden == left ? FOUNDATION_UNCOVERS : TO_FOUNDATION;
    }
    return move->src_kind == FOUNDATION ? -1 : TO_FOUNDATION;
}

/* A move between tableau piles of scored_moves: its score and obligation, or false. */
static bool tableau_score(const Tables *t, const Position *p, const Move *move, bool to_empty,
                          int *score, int *must_use)
{
    const TableauPile *pile = &p->tableau[move->src];
    int down = pile->hidden;
    *must_use = NO_USE;
    if (move->count != pile->len - down) {
        *score = to_empty ? SPLIT_TO_EMPTY : SPLIT_RUN;  /* splits a run */
        *must_use = move->src;
    } else if (down) {
        *score = TURN_UP + down;  /* turns a card up */
    } else if (to_empty) {
        return false;  /* whole pile to an empty pile: nothing changes */
    } else if (t->reserve_fills_empty && p->reserve.len) {
        *score = REFILLED;  /* the reserve refills it: progress */
    } else {
        *score = EMPTY_PILE;  /* empties a pile */
        *must_use = move->src;
    }
    return true;
}

/* scored_moves, as children: the legal moves worth trying with their
 * scores, an obligated move as an OBLIGED child. Returns how many went to `out`. */
static int scored_moves(Search *s, const Position *p, const Move *last, Child *out)
{
    const Tables *t = s->t;
    int n = legal_moves(t, p, s->moves), k = 0, found_len = 0, empty_len = 0;
    for (int i = 0; i < n; i++) {
        const Move *move = &s->moves[i];
        int score, must_use = NO_USE;
        if (move->action != MOVE) {
            score = move->action == DRAW ? s->draw_score : REDEAL_LAST;
        } else if (straight_back(last, move)) {
            continue;  /* straight back where it came from */
        } else if (move->dst_kind == FOUNDATION) {
            score = foundation_score(s, p, move, &found_len);
            if (score < 0)
                continue;
        } else {
            bool to_empty = !p->tableau[move->dst].len;
            int source = move->src_kind * MAX_PILES + move->src;
            if (to_empty && !mark_new(s->empty_marks, &empty_len, source * 128 + move->count))
                continue;  /* a second empty pile is the same position */
            if (move->src_kind == TABLEAU) {
                if (!tableau_score(t, p, move, to_empty, &score, &must_use))
                    continue;
            } else if (move->src_kind == FOUNDATION) {
                if (s->narrow)
                    continue;  /* the narrow search never takes cards back from foundations */
                score = FROM_FOUNDATION;
            } else {
                score = to_empty ? FROM_WASTE_TO_EMPTY : FROM_WASTE;  /* waste or reserve */
            }
        }
        put_child(&out[k++], score, move, must_use,
                  must_use == NO_USE ? CHILD_PLAIN : CHILD_OBLIGED);
    }
    return k;
}

/* Sort children by `keys` (their scores, or jittered's noisy ones), stably: as Python's
 * sort, and as sorting (noisy, n) pairs. Insertion sort: a few dozen children. */
static void sort_children(Child *out, double *keys, int n)
{
    for (int i = 1; i < n; i++) {
        Child child = out[i];
        double key = keys[i];
        int j = i;
        for (; j > 0 && keys[j - 1] > key; j--) {
            out[j] = out[j - 1];
            keys[j] = keys[j - 1];
        }
        out[j] = child;
        keys[j] = key;
    }
}

/* _search's kids up to run arrangement: arrangements.children, best first already. */
static int arranged_kids(Search *s, const Position *p, Child *out)
{
    int8_t want[DECK];
    wanted(s->t, p, want);
    int n = arranged_children(s->t, p, want, s->draw_score, s->arranged_kids);
    for (int i = 0; i < n; i++) {
        /* into Child's shape: the before list is a clear, a clear and `then`, or a clear,
         * `then` and the card up, the move the rejoin (arrangements.c, foundation_child) */
        const ArrangedChild *kid = &s->arranged_kids[i];
        int len = kid->before_len;
        put_child(&out[i], kid->score, len == 3 ? &kid->before[2] : &kid->move, NO_USE,
                  len ? CHILD_CLEARED : CHILD_PLAIN);
        if (len) {
            out[i].clear = kid->before[0];
            int then = len > 1 ? kid->before[1].count : 0;
            out[i].then = (uint8_t)(then | (len == 3 ? REJOIN : 0));
        }
    }
    return n;
}

static bool passed_over(Search *s, Frame *frame, const Child *child);

/* children (or, up to run arrangement, arranged_kids): best first; in a restart
 * (jittered) each score plus a draw of up to JITTER_SPREAD, drawn in the order the
 * moves came. In a frame reached by a bare draw, less the children passed over
 * (passed_over): dropped after the draws, so a restart draws the same numbers, and
 * before the sort, which is stable, so the others keep their order. */
static int children(Search *s, Frame *frame, const Move *last, Child *out)
{
    const Position *p = &s->at;
    int n = s->arranged ? arranged_kids(s, p, out) : scored_moves(s, p, last, out), kept = 0;
    bool drawn = frame->drawn != NOT_DRAWN && !s->arranged;
    for (int i = 0; i < n; i++) {
        double noisy = s->jitter ? out[i].score + random_random(&s->random) * JITTER_SPREAD
                                 : out[i].score;
        if (drawn && passed_over(s, frame, &out[i])) {
            s->skipped++;
            continue;
        }
        out[kept] = out[i];
        s->noisy[kept++] = noisy;
    }
    sort_children(out, s->noisy, kept);
    return kept;
}

static void put_pair(Child *out, int src_kind, int src, int dst_kind, int dst, int count)
{
    Move move = {MOVE, (uint8_t)src_kind, (uint8_t)src, (uint8_t)dst_kind, (uint8_t)dst,
                 (uint8_t)count};
    put_child(out, PAIRED, &move, NO_USE, CHILD_PAIR);
}

/* follow_ups' moves onto pile `index` from the other tableau piles in `from` (a run, or
 * any part of one, not straight back where `last` put it; narrow: only a whole face-up
 * run, no chains of splits). */
static int runs_onto(const Tables *t, const Position *p, int index, const Move *last,
                     bool narrow, uint32_t from, Child *out)
{
    const TableauPile *pile = &p->tableau[index];
    int back_pile = last->dst_kind == TABLEAU ? last->dst : -1, back_count = last->count, n = 0;
    /* the piles to look at, lowest first (a drawn frame's expansions look at few) */
    from &= ((1u << t->tableau_piles) - 1) & ~(1u << index);
    if (!pile->len) {
        if (t->reserve_fills_empty && p->reserve.len)
            return 0;  /* the reserve fills it */
        for (; from; from &= from - 1) {
            int j = __builtin_ctz(from);
            const TableauPile *other = &p->tableau[j];
            int size = other->len, low = other->hidden;
            if (!size)
                continue;
            int longest = t->runs_any ? size - run_start(t, other) : 1;  /* run_length(j) */
            if (narrow && longest != size - low)
                continue;  /* the run does not reach down to the face-down cards */
            for (int count = narrow ? longest : 1; count <= longest; count++)
                if (!(count == size && low == 0)  /* a whole pile into an empty one */
                    && !(j == back_pile && count == back_count))
                    put_pair(&out[n++], TABLEAU, j, TABLEAU, index, count);
        }
        return n;
    }
    /* Onto a card: where the tables build down, only every 13th count from the first that
     * could fit (Tables.first_fit) needs a look; else every count (first_fit is 1). A
     * count past the run (longest) is past the face-up cards too. */
    int parent = pile->cards[pile->len - 1], step = t->builds_down ? 13 : 1;
    const uint8_t *first_fit = &t->first_fit[parent * DECK];
    const bool *fits = &t->stack_ok[parent * DECK];
    for (; from; from &= from - 1) {
        int j = __builtin_ctz(from);
        const TableauPile *other = &p->tableau[j];
        int size = other->len;
        if (!size)
            continue;
        int count = first_fit[other->cards[size - 1]];
        int longest = t->runs_any ? size - run_start(t, other) : 1;  /* run_length(j) */
        if (count > longest || (narrow && longest != size - other->hidden))
            continue;
        for (; count <= longest; count += step)
            if ((!narrow || count == longest) && !(j == back_pile && count == back_count)
                && fits[other->cards[size - count]])
                put_pair(&out[n++], TABLEAU, j, TABLEAU, index, count);
    }
    return n;
}

/* Every tableau pile, for follow_ups' `from`. */
static const uint32_t ALL_PILES = ~0u;

/* moves._tops_onto: the waste's and the reserve's tops onto tableau pile `index` where it
 * takes them, and with `returns` the foundations' tops. */
static int tops_onto(const Tables *t, Position *p, int index, bool returns, Child *out)
{
    int n = 0;
    const CardStack *stacks[2] = {&p->waste, &p->reserve};
    const int kinds[2] = {WASTE, RESERVE};
    for (int s = 0; s < 2; s++)
        if (stacks[s]->len && tableau_takes(t, p, index, stacks[s]->cards[stacks[s]->len - 1]))
            put_pair(&out[n++], kinds[s], 0, TABLEAU, index, 1);
    for (int f = 0; returns && f < t->foundation_count; f++) {
        const FoundationPile *cards = &p->foundations[f];
        if (cards->len && tableau_takes(t, p, index, cards->cards[cards->len - 1]))
            put_pair(&out[n++], FOUNDATION, f, TABLEAU, index, 1);
    }
    return n;
}

/* moves._onto_moved: where single cards move, a card onto the one `last` moved, where it
 * went (from the tableau but pile `index`, whose top moves anywhere already; the waste,
 * the reserve, a foundation where cards return): the obligated move can be postponed to
 * just before such a move too. */
static int onto_moved(const Tables *t, Position *p, int index, const Move *last, Child *out)
{
    int there = last->dst, n = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *other = &p->tableau[j];
        if (j != index && j != there && other->len > other->hidden
            && tableau_takes(t, p, there, other->cards[other->len - 1]))
            put_pair(&out[n++], TABLEAU, j, TABLEAU, there, 1);
    }
    return n + tops_onto(t, p, there, t->foundation_return, out + n);
}

/* follow_ups: the moves that use tableau pile `index` right after `last` uncovered it:
 * its top to a foundation (or, where single cards move, anywhere), or something onto it.
 * `narrow` counts only where runs move (single cards relocate card by card). Runs come
 * onto it from the piles in `from` only (ALL_PILES: follow_ups in full). */
static int follow_ups(const Tables *t, Position *p, int index, const Move *last,
                      bool narrow, uint32_t from, Child *out)
{
    narrow = narrow && t->runs_any;
    const TableauPile *pile = &p->tableau[index];
    bool empty_takes = !(t->reserve_fills_empty && p->reserve.len);
    int n = 0;
    if (pile->len) {
        int top = pile->cards[pile->len - 1];
        for (int f = 0; is_wanted(t, p, top) && f < t->foundation_count; f++)
            if (foundation_takes(t, p, f, top)) {
                put_pair(&out[n++], TABLEAU, index, FOUNDATION, f, 1);
                break;
            }
        for (int j = 0; !t->runs_any && j < t->tableau_piles; j++) {
            const TableauPile *other = &p->tableau[j];
            if (j != index
                && (other->len ? stack_ok(t, other->cards[other->len - 1], top) : empty_takes))
                put_pair(&out[n++], TABLEAU, index, TABLEAU, j, 1);
        }
    }
    n += runs_onto(t, p, index, last, narrow, from, out + n);
    n += tops_onto(t, p, index, t->foundation_return && !narrow, out + n);
    if (!t->runs_any)
        n += onto_moved(t, p, index, last, out + n);
    return n;
}

/* The top frame's child at `at` replaced by expand's `n` pairs (s->pairs), in place. */
static bool replace_child(Search *s, Frame *frame, size_t at, int n)
{
    if (!reserve_room((void **)&s->kids, &s->kids_cap, s->kids_len + (size_t)n, sizeof(Child)))
        return false;
    memmove(&s->kids[at + (size_t)n], &s->kids[at + 1], (s->kids_len - at - 1) * sizeof(Child));
    memcpy(&s->kids[at], s->pairs, (size_t)n * sizeof(Child));
    s->kids_len = s->kids_len + (size_t)n - 1;
    frame->count = frame->count + (size_t)n - 1;
    return true;
}

/* Would could_settle look further after tableau move `move`, played after `before`
 * (the frame's one-move prefix, or NULL)? Its answer for a move between tableau piles,
 * read off the piles as the two moves would leave them, without playing them: true
 * when the reserve would refill the pile `move` leaves, else when that pile's new top
 * is one settle takes (safe_tableau_top). Where `before` emptied a pile the reserve
 * refills, it answers true: not worked out here, the child is played. */
static bool top_left_could_settle(Search *s, const Move *before, const Move *move)
{
    const Tables *t = s->t;
    Position *p = &s->at;
    const TableauPile *pile = &p->tableau[move->src];
    int len = pile->len;
    const TableauPile *from = NULL;  /* `before`'s source, when it put cards on this pile */
    if (before) {
        const TableauPile *left = &p->tableau[before->src];
        if (before->action != MOVE || before->src_kind != TABLEAU || before->dst_kind != TABLEAU
            || (before->count == left->len && t->reserve_fills_empty && p->reserve.len))
            return true;
        if (before->src == move->src) {
            len -= before->count;  /* the cards left under are the pile's own */
        } else if (before->dst == move->src) {
            from = left;
            len += before->count;
        }
    }
    int rest = len - move->count;
    if (!rest)
        return t->reserve_fills_empty && p->reserve.len;
    if (t->reserve_fills_empty && rest == 1 && p->reserve.len)
        return false;
    int at = rest - 1;  /* the new top (turned up if it was face down) */
    int top = at < pile->len ? pile->cards[at]
                             : from->cards[from->len - before->count + (at - pile->len)];
    return is_wanted(t, p, top) && safe_to_foundation(t, p, s->rule, top);
}

/* The card a bare draw covered, as search._search takes it (the waste top before it). */
static int covered_by(const Position *p, const Undo *draw)
{
    int under = (int)p->waste.len - (int)draw->drawn - 1;
    return under >= 0 ? p->waste.cards[under] : NOTHING_COVERED;
}

/* The piles whose top run, lifted in part or in whole, would leave a top that settle
 * takes, or an empty pile the reserve refills (a superset: every card the lifted runs
 * can uncover is looked at). In a frame reached by a bare draw, the runs from the other
 * piles onto a pile an obligated move uncovered give pairs that played_pairs would all
 * drop; expand does not make them. Worked out once per frame, at its position, where
 * its children are made and its obligated moves expanded. */
static uint32_t exposing_piles(Search *s)
{
    const Tables *t = s->t;
    Position *p = &s->at;
    uint64_t takeable = 0;  /* cards settle would play from a tableau top */
    for (uint64_t want = p->wanted_cards; want; want &= want - 1) {
        int card = __builtin_ctzll(want);
        if (safe_to_foundation(t, p, s->rule, card))
            takeable |= 1ull << card;
    }
    bool refills = t->reserve_fills_empty && p->reserve.len;
    uint32_t piles = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *pile = &p->tableau[j];
        int run = run_start(t, pile);
        bool exposes = pile->len && run == 0 && refills;
        for (int k = run > 0 ? run - 1 : 0; !exposes && k + 1 < pile->len; k++)
            exposes = takeable >> pile->cards[k] & 1;
        if (exposes)
            piles |= 1u << j;
    }
    return piles;
}

static uint32_t frame_exposing(Search *s, Frame *frame)
{
    if (!frame->exposing_known) {
        frame->exposing = exposing_piles(s);
        frame->exposing_known = true;
    }
    return frame->exposing;
}

#ifdef SOLVER_CHECKS
static bool deferred(Search *s, const Undo *line, int len, int covered);
/* Built with -DSOLVER_CHECKS: a child passed over unplayed (a pair after its one-move
 * prefix `before`, or a plain move: `before` NULL), played as play_child plays it, is
 * one `deferred` skips. */
static void check_dropped(Search *s, const Frame *frame, const Move *before, const Move *move)
{
    Undo line[LINE_CAP];
    int len = 0;
    if (before)
        apply_undoable(s->t, &s->at, before, &line[len++]);
    int settled = len;
    apply_undoable(s->t, &s->at, move, &line[len++]);
    if (could_settle(s->t, &s->at, line + settled, 1, s->rule))
        len += settle_undoable(s->t, &s->at, s->rule, line + len);
    bool skipped = deferred(s, line, len, frame->drawn);
    for (int i = len; i-- > 0;)
        undo_move(s->t, &s->at, &line[i]);
    if (!skipped) {
        fprintf(stderr, "SOLVER_CHECKS: a pair dropped unplayed is not one deferred skips\n");
        abort();
    }
}
#endif

/* A drawn frame's children s->pairs[0 .. n), played after `before` (the frame's one-move
 * prefix; NULL: none), less those whose line would move cards only between tableau piles
 * with nothing for settle to play after them (could_settle's look, worked out by
 * top_left_could_settle): `deferred` skips each of them, whatever it plays. How many
 * are left, in their order. */
static int played_pairs(Search *s, const Frame *frame, const Move *before, int n)
{
    (void)frame;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const Move *move = &s->pairs[i].move;
        if (move->action == MOVE && move->src_kind == TABLEAU && move->dst_kind == TABLEAU
            && !top_left_could_settle(s, before, move)) {
#ifdef SOLVER_CHECKS
            check_dropped(s, frame, before, move);
#endif
            s->skipped++;
        } else {
            s->pairs[kept++] = s->pairs[i];
        }
    }
    return kept;
}

/* In a frame reached by a bare draw: does obligated move `move` (peeks() holds: it
 * turns nothing up, refills nothing) certainly leave no pair for the search to play,
 * known without a look at the piles it moves? So it does where runs move and the pile
 * keeps a card, `under`, and nothing could use it: no foundation takes it (nor settles
 * it), neither the waste's nor the reserve's top nor a foundation's (returns) goes on
 * it, no exposing pile but the two the move touches could give a run, and no part of
 * the pile the run went onto but the run itself would go back onto it. Then the pairs
 * expand would make are only ones skipped unplayed. Any doubt answers false and the
 * move is expanded, its pairs filtered (played_pairs). */
static bool leaves_no_pairs(Search *s, Frame *frame, const Move *move)
{
    const Tables *t = s->t;
    Position *p = &s->at;
    const TableauPile *from = &p->tableau[move->src], *onto = &p->tableau[move->dst];
    int left = from->len - move->count;
    if (!t->runs_any || left <= 0)
        return false;  /* where single cards move, `under` itself goes anywhere */
    int under = from->cards[left - 1];
    if (is_wanted(t, p, under))
        return false;
    const bool *fits = &t->stack_ok[under * DECK];
    if ((p->waste.len && fits[p->waste.cards[p->waste.len - 1]])
        || (p->reserve.len && fits[p->reserve.cards[p->reserve.len - 1]]))
        return false;
    for (int f = 0; t->foundation_return && f < t->foundation_count; f++) {
        const FoundationPile *cards = &p->foundations[f];
        if (cards->len && fits[cards->cards[cards->len - 1]])
            return false;
    }
    uint32_t others = ~(1u << move->src | 1u << move->dst);
    if (frame_exposing(s, frame) & others)
        return false;
    /* The pile the run went onto, as the move leaves it: any count of its face-up cards
     * (more than its run) but the run's own that runs_onto would try onto `under`. */
    int size = onto->len + move->count, step = t->builds_down ? 13 : 1;
    int moved_from = left - onto->len;  /* `from` index of a moved card, less its index there */
    for (int count = t->first_fit[under * DECK + from->cards[from->len - 1]];
         count <= size - onto->hidden; count += step) {
        int at = size - count;
        int card = at < onto->len ? onto->cards[at] : from->cards[moved_from + at];
        if (count != move->count && fits[card])
            return false;
    }
    return true;
}

#ifdef SOLVER_CHECKS
/* For the checks below: obligated move `move` (peeks() holds) expanded in full, from
 * every pile, and filtered by played_pairs, into s->pairs; how many are left (the
 * search's `skipped` count is left as it was). `settles`: the peek leaves a top settle
 * takes (expand would then play the move rather than peek). */
static int filtered_expansion(Search *s, const Frame *frame, const Move *move, int must_use,
                              bool *settles)
{
    long skipped = s->skipped;
    Peek peek;
    peek_move(s->t, &s->at, move, &peek);
    *settles = safe_tableau_top(s->t, &s->at, move->src, s->rule);
    int n = follow_ups(s->t, &s->at, must_use, move, s->narrow, ALL_PILES, s->pairs);
    peek_back(&s->at, move, &peek);
    n = played_pairs(s, frame, move, n);
    s->skipped = skipped;
    return n;
}

/* Built with -DSOLVER_CHECKS: a drawn frame's pairs, made from the exposing piles only
 * and less those passed over, are the full expansion's less those. */
static void check_drawn_pairs(Search *s, const Frame *frame, const Move *move, int must_use, int n)
{
    Child made[MAX_MOVES];
    memcpy(made, s->pairs, (size_t)n * sizeof(Child));
    bool settles;
    int full = filtered_expansion(s, frame, move, must_use, &settles);
    bool same = full == n;
    for (int i = 0; same && i < n; i++)
        same = s->pairs[i].kind == made[i].kind && move_equal(&s->pairs[i].move, &made[i].move)
            && s->pairs[i].move.count == made[i].move.count;
    if (!same) {
        fprintf(stderr, "SOLVER_CHECKS: a drawn frame's pairs differ from the full expansion's\n");
        abort();
    }
    memcpy(s->pairs, made, (size_t)n * sizeof(Child));
}

/* Built with -DSOLVER_CHECKS: an expansion read from a peek gives the pairs that playing
 * the move in full, settling and undoing gives. */
static void check_expansion(Search *s, const Move *move, int must_use, uint32_t from, int n)
{
    Child peeked[MAX_MOVES];
    memcpy(peeked, s->pairs, (size_t)n * sizeof(Child));
    Undo mid[1 + MAX_CARDS];
    apply_undoable(s->t, &s->at, move, &mid[0]);
    int played = 1 + settle_undoable(s->t, &s->at, s->rule, mid + 1);
    int played_n = follow_ups(s->t, &s->at, must_use, move, s->narrow, from, s->pairs);
    for (int i = played; i-- > 0;)
        undo_move(s->t, &s->at, &mid[i]);
    bool same = played == 1 && played_n == n;
    for (int i = 0; same && i < n; i++)
        same = s->pairs[i].score == peeked[i].score && s->pairs[i].kind == peeked[i].kind
            && move_equal(&s->pairs[i].move, &peeked[i].move)
            && s->pairs[i].move.count == peeked[i].move.count;
    if (!same) {
        fprintf(stderr, "SOLVER_CHECKS: a peeked expansion differs from the played one\n");
        abort();
    }
    memcpy(s->pairs, peeked, (size_t)n * sizeof(Child));
}
#endif

#ifdef SOLVER_CHECKS
/* Built with -DSOLVER_CHECKS: an obligated move that leaves_no_pairs says leaves no pair,
 * expanded in full and its pairs filtered, leaves none. */
static void check_no_pairs(Search *s, const Frame *frame, const Move *move, int must_use)
{
    bool settles;
    int n = filtered_expansion(s, frame, move, must_use, &settles);
    if (settles || n) {
        fprintf(stderr, "SOLVER_CHECKS: an obligated move said to leave no pair leaves some\n");
        abort();
    }
}
#endif

/* In a frame reached by a bare draw: is `child` one `deferred` skips whatever it plays,
 * known without playing it? So is a plain move between tableau piles with nothing for
 * settle to play after it (top_left_could_settle), and an obligated move that leaves no
 * pair (leaves_no_pairs). Exact: the search is the same, only cheaper (most of a drawn
 * frame's children are of these kinds); children() drops them before they are sorted. */
static bool passed_over(Search *s, Frame *frame, const Child *child)
{
    const Move *move = &child->move;
    if (move->action != MOVE || move->src_kind != TABLEAU || move->dst_kind != TABLEAU)
        return false;
    if (child->kind == CHILD_PLAIN) {
        if (top_left_could_settle(s, NULL, move))
            return false;
#ifdef SOLVER_CHECKS
        check_dropped(s, frame, NULL, move);
#endif
        return true;
    }
    if (child->kind != CHILD_OBLIGED || !peeks(s->t, &s->at, move)
        || !leaves_no_pairs(s, frame, move))
        return false;
#ifdef SOLVER_CHECKS
    check_no_pairs(s, frame, move, child->must_use);
#endif
    return true;
}

/* expand: the top frame's next child, an obligated move, replaced in place by that move
 * paired with each of its follow-ups (the frame keeps the move and the safe moves after
 * it as its prefix). False: out of memory. */
static bool expand(Search *s, Frame *frame)
{
    const Tables *t = s->t;
    size_t at = frame->first + frame->next;
    Move move = s->kids[at].move;
    int must_use = s->kids[at].must_use;
    /* The frame's earlier prefix is spent (its pairs came before this placeholder). */
    s->prefixes_len = frame->prefix;
    if (!reserve_room((void **)&s->prefixes, &s->prefixes_cap, s->prefixes_len + 1 + MAX_CARDS,
                      sizeof(Move)))
        return false;
    int n;
    bool drawn = frame->drawn != NOT_DRAWN && !s->arranged;
    if (!s->arranged && peeks(t, &s->at, &move)) {
        /* Most obligated moves turn nothing up, refill nothing, and leave no safe move
         * (could_settle's look, for such a move: the new top of the pile it left): their
         * follow-ups are read from the piles moved for a look (peek_move), the position
         * is not played and undone in full. */
        /* After a bare draw, runs onto the pile only from the piles that could leave a
         * top settle takes: the others' pairs would all be skipped unplayed. */
        uint32_t from = drawn ? frame_exposing(s, frame) | 1u << move.dst : ALL_PILES;
        Peek peek;
        peek_move(t, &s->at, &move, &peek);
        bool settles = safe_tableau_top(t, &s->at, move.src, s->rule);
        if (!settles)
            n = follow_ups(t, &s->at, must_use, &move, s->narrow, from, s->pairs);
        peek_back(&s->at, &move, &peek);
        if (!settles) {
            s->prefixes[frame->prefix] = move;
            frame->prefix_len = 1;
            s->prefixes_len += 1;
#ifdef SOLVER_CHECKS
            check_expansion(s, &move, must_use, from, n);
#endif
            if (drawn) {
                n = played_pairs(s, frame, &move, n);
#ifdef SOLVER_CHECKS
                check_drawn_pairs(s, frame, &move, must_use, n);
#endif
            }
            return replace_child(s, frame, at, n);
        }
    }
    /* The pairs are built at `mid`, the frame's position after the move and settle:
     * played on `at` and undone after (a copy per expansion cost 3% of the search). */
    Undo mid[1 + MAX_CARDS];
    int before = s->at.tableau[must_use].len;
    apply_undoable(t, &s->at, &move, &mid[0]);
    int played = 1;
    if (s->arranged || could_settle(t, &s->at, mid, 1, s->rule))
        played += settle_undoable(t, &s->at, s->rule, mid + 1);
    for (int i = 0; i < played; i++)
        s->prefixes[frame->prefix + (size_t)i] = mid[i].move;
    frame->prefix_len = (size_t)played;
    s->prefixes_len += frame->prefix_len;
    /* mid.tableau[must_use] != state.tableau[must_use][:-count]: the move took the top
     * cards off must_use, and safe moves only take cards off piles, so the pile is as
     * the move left it unless it is shorter. */
    if (played > 1 && s->at.tableau[must_use].len != before - move.count) {
        put_child(s->pairs, PAIRED, &move, NO_USE, CHILD_PLAIN);  /* the uncovered card went up */
        n = 1;
    } else {
        n = follow_ups(t, &s->at, must_use, &move, s->narrow, ALL_PILES, s->pairs);
    }
    for (int i = played; i-- > 0;)
        undo_move(t, &s->at, &mid[i]);
    if (drawn && played == 1)
        n = played_pairs(s, frame, &move, n);
    else if (drawn && n == 1 && s->pairs[0].kind == CHILD_PLAIN)
        n = played_pairs(s, frame, NULL, n);  /* the move alone, played as a plain child */
    return replace_child(s, frame, at, n);
}

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
    if (s->arranged || could_settle(t, &s->at, line + settled, len - settled, s->rule))
        len += settle_undoable(t, &s->at, s->rule, line + len);
    return len;
}

static uint64_t key_of(Search *s)
{
    return s->arranged ? arranged_key(s->t, &s->at) : plain_key(s->t, &s->at);
}

/* search._reversible: would playing the child's move straight back give its parent
 * exactly (no safe moves after it, no card turned up, no reserve refill)? Only then do
 * its children skip that move (docs/solver.md, "Straight back"). */
static bool reversible(const Search *s, const Undo *line, int len)
{
    if (len != 1)
        return false;
    const Move *move = &line[0].move;
    return !(move->action == MOVE && move->src_kind == TABLEAU
             && (line[0].refilled || s->at.tableau[move->src].hidden != line[0].hidden));
}

/* search._deferred: after a bare draw that covered `covered`, is this child skipped? So
 * it is when its line moves cards only from tableau piles, the reserve or foundations
 * (returns) onto tableau piles or foundations and, where it puts a card up, `covered` was
 * not safe at any point of the line: bounded by its safety at `at` with each card up as
 * many more times as the line returned cards (the same moves played before the draw
 * reach the same position: docs/solver.md, "Deferred draws"). */
static bool deferred(Search *s, const Undo *line, int len, int covered)
{
    bool up = false;
    int returned = 0;
    for (int i = 0; i < len; i++) {
        const Move *move = &line[i].move;
        if (move->action != MOVE)
            return false;
        if (move->src_kind == FOUNDATION && move->dst_kind == TABLEAU)
            returned++;
        else if (move->src_kind != TABLEAU && move->src_kind != RESERVE)
            return false;
        else if (move->dst_kind == FOUNDATION)
            up = true;
        else if (move->dst_kind != TABLEAU)
            return false;
    }
    return !(up && covered >= 0 && safe_with(s->t, &s->at, s->rule, covered, returned));
}

/* Keys of positions reached by a bare draw, apart from the same positions reached
 * otherwise (their children are fewer). */
static const uint64_t DRAWN_MARK = 0x5851f42d4c957f2dULL;

/* The loop of _search over the frames, from the root frame pushed. */
static void run(Search *s, const Limits *limits, double deadline, Outcome *out)
{
    const Tables *t = s->t;
    Undo line[LINE_CAP];
    Move finish[MAX_CARDS];
    while (s->depth) {
        Frame *frame = &s->frames[s->depth - 1];
        if (frame->next >= frame->count) {
            pop_frame(s);
            continue;
        }
        if (s->kids[frame->first + frame->next].kind == CHILD_OBLIGED) {
            out->expansions++;
            if (!expand(s, frame)) {
                out->verdict = NO_MEMORY;
                return;
            }
            continue;
        }
        int len = play_child(s, frame, line);
        if (frame->drawn != NOT_DRAWN && deferred(s, line, len, frame->drawn)) {
            undo_line(s, line, len);
            continue;
        }
        out->children++;
        const Position *pos = &s->at;
        int drawn = NOT_DRAWN;
        if (s->defer_draws && len == 1 && line[0].move.action == DRAW)
            drawn = covered_by(pos, &line[0]);
        /* what a drawn position skips reads the card covered: keyed with it */
        TableAdd added = table_add(&s->seen, drawn != NOT_DRAWN
                                                 ? mix64(key_of(s) ^ DRAWN_MARK
                                                         ^ (uint64_t)(drawn + 2) << 56)
                                                 : key_of(s));
        if (added == TABLE_SEEN) {
            undo_line(s, line, len);
            continue;
        }
        if (added == TABLE_FULL) {
            out->stop = STOP_TABLE;
            return;
        }
        out->positions++;
        int finish_len = is_won(t, pos) ? 0 : finish_line(t, pos, finish);
        if (finish_len >= 0) {
            won(s, line, len, finish, finish_len, out);
            return;
        }
        if (out->positions >= limits->max_positions) {
            out->stop = STOP_POSITIONS;
            return;
        }
        if (deadline >= 0 && out->positions % TIME_CHECK_EVERY == 0 && now_seconds() > deadline) {
            out->stop = STOP_DEADLINE;
            return;
        }
        if (s->dead_end && relaxation_lost(s->dead_end, pos)) {  /* met, not expanded */
            undo_line(s, line, len);
            continue;
        }
        if (s->depth >= s->max_depth) {
            out->stop = STOP_DEPTH;
            return;
        }
        Move chosen = s->kids[frame->first + frame->next - 1].move;  /* kids may move */
        /* A narrow search skips straight back after any step (search._search). */
        bool back = s->narrow || reversible(s, line, len);
        if (!push_frame(s, line, len, back ? &chosen : NULL, drawn)) {
            out->verdict = NO_MEMORY;
            return;
        }
    }
    out->verdict = UNSOLVABLE;
}

static void search_free(Search *s)
{
    table_free(&s->seen);
    relaxation_free(s->dead_end);
    free(s->frames);
    free(s->kids);
    free(s->undos);
    free(s->prefixes);
    free(s);
}

void search_run(const Tables *t, const Position *start, const Limits *limits, Outcome *out)
{
    double deadline = limits->max_seconds < 0 ? -1 : now_seconds() + limits->max_seconds;
    memset(out, 0, sizeof *out);
    out->verdict = UNKNOWN;
    out->positions = 1;
    Search *s = calloc(1, sizeof *s);
    size_t limit = limits->table_size;
    if ((size_t)limits->max_positions < limit)
        limit = (size_t)limits->max_positions + 1;  /* never more keys than positions */
    /* The relaxed tableau's test (search._search's `relaxed`, never narrow). */
    if (!s || !table_init(&s->seen, limit)
        || (limits->relaxed && !limits->narrow
            && !relaxation_new(t, start, limits->relaxed_stock, limits->relaxed_states,
                               relaxation_lost_limit(limits->table_size), &s->dead_end))) {
        out->verdict = NO_MEMORY;
        if (s)
            search_free(s);
        return;
    }
    if (s->dead_end)
        relaxation_set_deadline(s->dead_end, deadline);
    s->t = t;
    s->draw_score = limits->draw_score;
    s->max_depth = limits->max_depth;
    s->narrow = limits->narrow;
    s->arranged = limits->arranged;
    /* Narrow restarts prove nothing: they play by the narrow rule (tables.py). */
    s->rule = limits->eager ? NULL : limits->narrow ? t->narrow_children_of : t->children_of;
    s->defer_draws = limits->defer_draws && !limits->narrow;  /* as search._search */
    s->jitter = limits->seed != 0;
    if (s->jitter)
        random_seed(&s->random, limits->seed);
    Undo line[MAX_CARDS];
    Move finish[MAX_CARDS];
    Position *root = &s->at;
    *root = *start;
    int len = settle_undoable(t, root, s->rule, line);
    int finish_len = is_won(t, root) ? 0 : finish_line(t, root, finish);
    if (finish_len >= 0)
        won(s, line, len, finish, finish_len, out);
    else if (s->dead_end && relaxation_lost(s->dead_end, root))
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

