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
    MAX_REDUCTIONS = 8,        /* the longest list a search runs (search.c) */
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

/* The targets a frame's moves met so far, as same targets marks them (scored_moves keeps
 * one for each frame's moves). */
typedef struct {
    int found[MAX_MOVES], empty[MAX_MOVES];
    int found_len, empty_len;
} Targets;

/* The hooks a reduction may have (Reduction, below). */
typedef bool TwinHook(const Position *p, const Move *move, Targets *met);
typedef int DropsHook(struct Search *s, Frame *frame, Child *out, double *noisy, int n);
typedef bool SkipsHook(struct Search *s, const Frame *frame, const Undo *line, int len);
typedef int ReachedHook(const struct Search *s, const Undo *line, int len);
typedef bool DeadEndHook(struct Search *s);
typedef bool GoesBackHook(const struct Search *s, const Undo *line, int len);
typedef uint32_t PairSourcesHook(struct Search *s, Frame *frame, const Move *move);
typedef int ThinPairsHook(struct Search *s, const Frame *frame, const Move *before, int n,
                          int must_use, bool peeked);

/* The list's hooks of each kind, in list order, gathered once before the search (the
 * loop calls these for every child: no look at a reduction without the hook). Of the
 * hooks an obligated move's expansion asks (expands, pair_sources, thin_pairs) and of
 * twin, the first list entry's with one. */
typedef struct {
    DropsHook *drops[MAX_REDUCTIONS + 1];  /* + plain_obligations, where nothing expands */
    SkipsHook *skips[MAX_REDUCTIONS];
    ReachedHook *reached[MAX_REDUCTIONS];
    DeadEndHook *dead_end[MAX_REDUCTIONS];
    GoesBackHook *goes_back[MAX_REDUCTIONS];
    int drops_len, skips_len, reached_len, dead_end_len, goes_back_len;
    bool (*expands)(struct Search *s, Frame *frame);
    TwinHook *twin;
    PairSourcesHook *pair_sources;
    ThinPairsHook *thin_pairs;
} Hooks;

/* The moves and positions a search walks, chosen once before it (children.c): plain
 * (the full search), narrow (the restarts: no chains of run splits, nothing back down;
 * reduce_narrow.c installs it) or up to run arrangement (reduce_arranged.c). */
typedef struct Space {
    const char *name;
    /* The frame's children as made, in the order made, scored, obligated moves OBLIGED. */
    int (*make)(struct Search *s, const Position *p, const Move *last, Child *out);
    /* The moves that use tableau pile `index` right after `last` uncovered it
     * (follow_ups, followups.c, wide or narrow). */
    int (*follow_ups)(const Tables *t, Position *p, int index, const Move *last,
                      uint32_t from, Child *out);
    /* Is settle to look for safe moves after `moves`, played from a settled position? */
    bool (*settles)(const Tables *t, Position *p, const Undo *moves, int n, SafeRule rule);
    uint64_t (*key)(const Tables *t, Position *p);
} Space;

extern const Space PLAIN_SPACE, NARROW_SPACE, ARRANGED_SPACE;

typedef struct Search {
    const Tables *t;
    int draw_score;
    const Space *space;          /* PLAIN_SPACE unless a reduction installs another */
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
    Child pairs[MAX_MOVES];      /* scratch: expand's children */
    double noisy[MAX_MOVES];     /* scratch: the children's sort keys (noisy in a restart) */
    ArrangedChild arranged_kids[MAX_ARRANGED_CHILDREN];  /* scratch: arranged_children's */
} Search;

/* A reduction: what the search leaves out or plays without branching, with the argument
 * that no win is lost by it in its file's header. The driver calls each hook a reduction
 * has (NULL: it does not act there) at that point of its loop, in list order. */
typedef struct Reduction {
    const char *name;
    /* May the full search, whose exhaustion answers `unsolvable`, use it? The driver
     * lists one that may not only in a narrow search, whatever `wanted` says. */
    bool sound_for_loss;
    /* Does a search with these limits want it? (NULL: every search does.) */
    bool (*wanted)(const Limits *limits);
    /* Before the search: set what it changes in the search (false: out of memory). */
    bool (*prepare)(Search *s, const Position *start, const Limits *limits, double deadline);
    /* A move onto a foundation or into an empty pile, as the plain and narrow spaces make a
     * frame's children (after the straight-back test, before it is scored; `met`: the
     * frame's targets so far): true drops it, as if never made (before a restart's jitter
     * draws for the children). */
    TwinHook *twin;
    /* A frame's children, once made (`n` of them in `out`, each with its score in
     * `noisy`): drop some unplayed, keeping the others (and their scores) in order;
     * returns how many are kept. Called once a frame, not once a child. */
    DropsHook *drops;
    /* An obligated child comes up: replace it by its pairs (false: out of memory). */
    bool (*expands)(Search *s, Frame *frame);
    /* An obligated move `move` about to be paired without playing it (a peek): the piles
     * whose runs may pair with it (ALL_PILES: any). */
    PairSourcesHook *pair_sources;
    /* An obligated move's pairs made (s->pairs[0 .. n), after `before`, the frame's
     * one-move prefix, or NULL; `peeked`: made from a peek): thin them; how many are left,
     * in their order. */
    ThinPairsHook *thin_pairs;
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

/* children.c: the frame's children, best first (the space's), less those a reduction
 * drops (twin, drops). */
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

/* reduce_deferred.c: does a drawn frame skip this child? And a drawn position's key. */
bool deferred(Search *s, const Undo *line, int len, int covered);
uint64_t drawn_key(uint64_t key, int drawn);

/* The reductions (reduce_*.c). */
extern const Reduction SETTLE, SETTLE_NARROW, SETTLE_EAGER, SAME_TARGETS, OBLIGATIONS,
    NARROW_MOVES, STRAIGHT_BACK, STRAIGHT_BACK_LOOSE, DEFERRED_DRAWS, PASSED_OVER,
    RELAXED_DEAD_END, ARRANGED;

#endif
