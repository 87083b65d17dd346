/* What the search's files share (not for use outside the search): a child, a frame, the
 * search's state, and a reduction (the driver, search.c, runs a list of them). */
#ifndef SOLVER_NATIVE_FRAMES_H
#define SOLVER_NATIVE_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrangements.h"
#include "jitter.h"
#include "relaxation.h"
#include "search.h"
#include "settle.h"
#include "state.h"
#include "table.h"

enum {
    NO_USE = -1,               /* a child that obligates no pile */
    TIME_CHECK_EVERY = 512,    /* positions between looks at the clock */
    /* A child's line: the obligated move or the moves before it (MAX_BEFORE; with the
     * rejoin one more), the move, one card taken back down by either at most, so at most
     * MAX_CARDS + 1 safe moves. */
    LINE_CAP = 3 + MAX_BEFORE + MAX_CARDS,
    MAX_REDUCTIONS = 8,        /* the longest list (search.c) */
};

/* A child: a move from the frame's position (PLAIN), an obligated move not yet
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

/* A frame, without its position: the search keeps one position, `at`, the top
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

/* Frame.drawn when not reached by a bare draw; NOTHING_COVERED: the waste was empty. */
enum { NOT_DRAWN = -2, NOTHING_COVERED = -1 };

/* Every tableau pile, for follow_ups' `from`. */
static const uint32_t ALL_PILES = ~0u;

struct Reduction;
struct Search;

/* The hooks a reduction may have (Reduction, below). */
typedef int DropsHook(struct Search *s, Frame *frame, Child *out, double *noisy, int n);
typedef bool SkipsHook(struct Search *s, const Frame *frame, const Undo *line, int len);
typedef int ReachedHook(const struct Search *s, const Undo *line, int len);
typedef bool DeadEndHook(struct Search *s);
typedef bool GoesBackHook(const struct Search *s, const Undo *line, int len);

/* The list's hooks of each kind, in list order, gathered once before the search (the
 * loop calls these for every child: no look at a reduction without the hook). */
typedef struct {
    DropsHook *drops[MAX_REDUCTIONS];
    SkipsHook *skips[MAX_REDUCTIONS];
    ReachedHook *reached[MAX_REDUCTIONS];
    DeadEndHook *dead_end[MAX_REDUCTIONS];
    GoesBackHook *goes_back[MAX_REDUCTIONS];
    int drops_len, skips_len, reached_len, dead_end_len, goes_back_len;
    bool (*expands)(struct Search *s, Frame *frame);  /* the first list entry's with one */
} Hooks;

typedef struct Search {
    const Tables *t;
    int draw_score;
    /* Set by the list's reductions (prepare): what move generation and settle play by. */
    bool narrow;                 /* reduce_narrow.c: no chains of run splits, nothing back down */
    bool arranged;               /* reduce_arranged.c: positions up to run arrangement */
    bool passes_over;            /* reduce_passed_over.c: drawn frames drop children unplayed */
    bool obliges;                /* reduce_obligations.c: a split or emptying move is OBLIGED */
    bool twins_once;             /* reduce_same_targets.c: one of moves with the same key */
    bool jitter;
    SafeRule rule;               /* the safe moves settle plays (reduce_settle.c; else none) */
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
    Relaxation *dead_end;        /* the relaxed tableau's test, or NULL (reduce_relaxed.c) */
    long skipped;                /* Outcome.skipped */
    /* The list's hooks, each kind in list order (search.c gathers them). */
    const struct Reduction *reductions[MAX_REDUCTIONS];
    int reductions_len;
    Hooks hooks;
    Move moves[MAX_MOVES];       /* scratch: the legal moves of the node being scored */
    int found_marks[MAX_MOVES];  /* scratch: scored_moves' seen_found and seen_empty */
    int empty_marks[MAX_MOVES];
    Child pairs[MAX_MOVES];      /* scratch: expand's children */
    double noisy[MAX_MOVES];     /* scratch: the children's sort keys (noisy in a restart) */
    ArrangedChild arranged_kids[MAX_ARRANGED_CHILDREN];  /* scratch: arranged_children's */
} Search;

/* A reduction: what the search leaves out or plays without branching, with the argument
 * that no win is lost by it in its file's header. The driver calls each hook a reduction
 * has (NULL: it does not act there) at that point of its loop, in list order. */
typedef struct Reduction {
    const char *name;
    /* May the full search, whose exhaustion answers `unsolvable`, use it? */
    bool sound_for_loss;
    /* Before the search: set what it changes in the search (false: out of memory). */
    bool (*prepare)(Search *s, const Position *start, const Limits *limits, double deadline);
    /* A frame's children, once made (`n` of them in `out`, each with its score in
     * `noisy`): drop some unplayed, keeping the others (and their scores) in order;
     * returns how many are kept. Called once a frame, not once a child. */
    DropsHook *drops;
    /* An obligated child comes up: replace it by its pairs (false: out of memory). */
    bool (*expands)(Search *s, Frame *frame);
    /* A child played (`line`, safe moves included): true skips it, undone, uncounted. */
    SkipsHook *skips;
    /* A child played and counted: the new frame's `drawn` (NOT_DRAWN: not drawn). */
    ReachedHook *reached;
    /* A new position (the root too): true: lost, met but not expanded. */
    DeadEndHook *dead_end;
    /* A new frame: do its children skip the move straight back where `line` came from? */
    GoesBackHook *goes_back;
    void (*release)(Search *s);
} Reduction;

/* children.c: the frame's children, best first (scored_moves or, up to run arrangement,
 * arrangements.c's), less those a reduction drops. */
int children(Search *s, Frame *frame, const Move *last, Child *out);

static inline void put_child(Child *out, int score, const Move *move, int must_use,
                             ChildKind kind)
{
    out->score = (int16_t)score;
    out->must_use = (int8_t)must_use;
    out->kind = (uint8_t)kind;
    out->move = *move;
}

/* followups.c: the moves that use tableau pile `index` right after `last` uncovered it. */
int follow_ups(const Tables *t, Position *p, int index, const Move *last, bool narrow,
               uint32_t from, Child *out);

/* reduce_passed_over.c: in a frame reached by a bare draw, the piles whose runs could
 * leave a top settle takes, and a drawn frame's pairs less those `deferred` skips. */
uint32_t frame_exposing(Search *s, Frame *frame);
int played_pairs(Search *s, const Frame *frame, const Move *before, int n);
#ifdef SOLVER_CHECKS
void check_drawn_pairs(Search *s, const Frame *frame, const Move *move, int must_use, int n);
#endif

/* reduce_deferred.c: does a drawn frame skip this child? And a drawn position's key. */
bool deferred(Search *s, const Undo *line, int len, int covered);
uint64_t drawn_key(uint64_t key, int drawn);

/* The reductions (reduce_*.c). */
extern const Reduction SETTLE, SETTLE_NARROW, SETTLE_EAGER, SAME_TARGETS, OBLIGATIONS,
    NARROW_MOVES, STRAIGHT_BACK, STRAIGHT_BACK_LOOSE, DEFERRED_DRAWS, PASSED_OVER,
    RELAXED_DEAD_END, ARRANGED;

#endif
