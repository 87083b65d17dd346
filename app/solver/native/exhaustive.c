/* The plainest search (see exhaustive.h): exhaustive.py's loop, applying and undoing moves
 * in place. */
#define _POSIX_C_SOURCE 199309L /* arrays.h reads the clock */
#include "exhaustive.h"

#include <stdlib.h>

#include "arrays.h"
#include "hash.h"
#include "table.h"

/* One position on the path: its legal moves (a slice of the shared move array, so the
 * memory follows the moves actually met, not MAX_MOVES a frame), the next one to try,
 * and how to take back the move that led here. */
typedef struct {
    size_t first, count, next;
    Undo undo;
} Frame;

/* The position keyed by itself: its State.to_bytes (the name left out, the tables say
 * the game), hashed. Equal bytes are equal positions; distinct ones share a key only by
 * a 64-bit collision, about 2^-64 a pair. */
static uint64_t exact_key(const Tables *t, const Position *p)
{
    uint8_t bytes[4 * MAX_CARDS];  /* at most 104 cards and fewer than 60 counts */
    size_t len = position_write(t, "", 0, p, bytes, sizeof bytes);
    return section(SEED, 9, bytes, (int)len);
}

typedef struct {
    Frame *frames;
    size_t depth, frames_cap;
    Move *moves;
    size_t moves_len, moves_cap;
} Path;

/* Push the position `p` now is, with its legal moves (false: out of memory). */
static bool push(const Tables *t, const Position *p, Path *path, const Undo *undo)
{
    if (!reserve_room((void **)&path->frames, &path->frames_cap, path->depth + 1,
                      sizeof(Frame))
        || !reserve_room((void **)&path->moves, &path->moves_cap,
                         path->moves_len + MAX_MOVES, sizeof(Move)))
        return false;
    Frame *frame = &path->frames[path->depth++];
    frame->first = path->moves_len;
    frame->count = (size_t)legal_moves(t, p, path->moves + path->moves_len);
    frame->next = 0;
    if (undo)
        frame->undo = *undo;
    path->moves_len += frame->count;
    return true;
}

Verdict exhaustive_run(const Tables *t, const Position *start, long max_positions,
                       long *positions)
{
    Position *p = malloc(sizeof *p);
    Table seen;
    Path path = {0};
    Verdict verdict = NO_MEMORY;
    *positions = 0;
    /* Room for one key past the budget: a won child is counted before the budget is
     * read, as in exhaustive.py, so the table never fills first. */
    if (!p || !table_init(&seen, (size_t)max_positions + 1)) {
        free(p);
        return NO_MEMORY;
    }
    *p = *start;
    table_add(&seen, exact_key(t, p));
    *positions = 1;
    if (is_won(t, p)) {
        verdict = SOLVED;
        goto done;
    }
    if (!push(t, p, &path, NULL))
        goto done;
    while (path.depth) {
        Frame *frame = &path.frames[path.depth - 1];
        if (frame->next == frame->count) {
            path.moves_len = frame->first;
            if (--path.depth)  /* the start has no move to take back */
                undo_move(t, p, &frame->undo);
            continue;
        }
        const Move move = path.moves[frame->first + frame->next++];
        Undo undo;
        apply_undoable(t, p, &move, &undo);
        TableAdd added = table_add(&seen, exact_key(t, p));
        if (added == TABLE_SEEN) {
            undo_move(t, p, &undo);
            continue;
        }
        *positions = (long)seen.count;
        if (is_won(t, p)) {
            verdict = SOLVED;
            goto done;
        }
        if (added == TABLE_FULL || *positions >= max_positions) {
            verdict = UNKNOWN;
            goto done;
        }
        if (!push(t, p, &path, &undo))
            goto done;
    }
    verdict = UNSOLVABLE;
done:
    table_free(&seen);
    free(path.frames);
    free(path.moves);
    free(p);
    return verdict;
}
