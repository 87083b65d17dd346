/* Shorter winning lines (see lines.h). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "lines.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "hash.h"

/* The bytes of a position: at most this many (a header, every card once with a length
 * byte per pile, and room to spare). */
enum { POSITION_BYTES = 64 + 2 * MAX_CARDS + 4 * MAX_PILES };

/* The positions of the line by their exact bytes (State.to_bytes less the variant's name,
 * the same for all of them), for `latest`. Open addressing over the bytes' hash; a slot
 * holds its position's index + 1 (0: empty), and a match compares the bytes. */
typedef struct {
    uint8_t *bytes;       /* every position's bytes, one after another */
    size_t *offsets;      /* position i: bytes[offsets[i] .. offsets[i + 1]) */
    uint64_t *hashes;
    int *slots;
    size_t mask;
} Noted;

static uint64_t bytes_hash(const uint8_t *bytes, size_t len)
{
    return section(SEED, 0, bytes, (int)len);
}

/* The slot of the position with these bytes, or the empty slot where it would go. */
static size_t find_slot(const Noted *n, const uint8_t *bytes, size_t len, uint64_t hash)
{
    size_t i = (size_t)hash & n->mask;
    for (; n->slots[i]; i = (i + 1) & n->mask) {
        int at = n->slots[i] - 1;
        size_t from = n->offsets[at], to = n->offsets[at + 1];
        if (n->hashes[at] == hash && to - from == len && !memcmp(n->bytes + from, bytes, len))
            return i;
    }
    return i;
}

/* The latest index of the line's position with this position's bytes, or -1. */
static int latest(const Noted *n, const Tables *t, const Position *p, uint8_t *scratch)
{
    size_t len = position_write(t, "", 0, p, scratch, POSITION_BYTES);
    uint64_t hash = bytes_hash(scratch, len);
    size_t i = find_slot(n, scratch, len, hash);
    return n->slots[i] - 1;
}

/* Room for the positions of a line of `len` moves, with a slot table at most half full.
 * False: no memory (noted_free frees what was found). */
static bool noted_alloc(Noted *n, int len)
{
    size_t slots = 16;
    while (slots < 2 * ((size_t)len + 1))
        slots *= 2;
    n->mask = slots - 1;
    n->slots = calloc(slots, sizeof *n->slots);
    n->offsets = malloc(((size_t)len + 2) * sizeof *n->offsets);
    n->hashes = malloc(((size_t)len + 1) * sizeof *n->hashes);
    return n->slots && n->offsets && n->hashes;
}

static void noted_free(Noted *n)
{
    free(n->bytes);
    free(n->offsets);
    free(n->hashes);
    free(n->slots);
}

/* Note the line's position `i` (`p`), its bytes after those of position i - 1. A later
 * position with the same bytes takes the slot of an earlier one, so that `latest` finds
 * the last. `*cap` is the bytes' room. False: no memory. */
static bool note(Noted *n, size_t *cap, const Tables *t, const Position *p, int i)
{
    if (!reserve_room((void **)&n->bytes, cap, n->offsets[i] + POSITION_BYTES, 1))
        return false;
    size_t size = position_write(t, "", 0, p, n->bytes + n->offsets[i], POSITION_BYTES);
    n->offsets[i + 1] = n->offsets[i] + size;
    n->hashes[i] = bytes_hash(n->bytes + n->offsets[i], size);
    n->slots[find_slot(n, n->bytes + n->offsets[i], size, n->hashes[i])] = i + 1;
    return true;
}

/* Note the line's positions, checking that each move is legal where played. Past the
 * deadline `*late` is set: the moves are still checked (an illegal line is an error
 * either way), but nothing more is noted, as nothing will be shortened. SHORTEN_ILLEGAL:
 * line[*out_len] is not legal where it is played. `at_pos` and `moves` are scratch. */
static ShortenResult note_line(const Tables *t, const Position *start, const Move *line,
                               int len, double deadline, Noted *n, Position *at_pos,
                               Move *moves, bool *late, int *out_len)
{
    size_t cap = 0;
    *at_pos = *start;
    n->offsets[0] = 0;
    for (int i = 0; i <= len; i++) {
        if (!*late && deadline >= 0 && now_seconds() > deadline)
            *late = true;  /* keep checking the moves, but shorten nothing */
        if (!*late && !note(n, &cap, t, at_pos, i))
            return SHORTEN_NO_MEMORY;
        if (i == len)
            break;
        if (!is_legal(t, at_pos, &line[i], moves)) {
            *out_len = i;
            return SHORTEN_ILLEGAL;
        }
        apply_move(t, at_pos, &line[i]);
    }
    return SHORTEN_DONE;
}

/* From the line's position `at` (`at_pos`): the latest index of the line's positions
 * that one legal move reaches, and that move (`*move`), the first in legal_moves' order
 * to reach it; at + 1 and the line's own move where none reaches further. */
static int furthest(const Tables *t, const Noted *n, Position *at_pos, const Move *line, int at,
                    Move *moves, Move *move)
{
    uint8_t scratch[POSITION_BYTES];
    int step = at + 1;
    *move = line[at];
    int count = legal_moves(t, at_pos, moves);
    for (int i = 0; i < count; i++) {
        Undo undo;
        apply_undoable(t, at_pos, &moves[i], &undo);
        int reached = latest(n, t, at_pos, scratch);
        undo_move(t, at_pos, &undo);
        if (reached > step) {
            step = reached;
            *move = moves[i];
        }
    }
    return step;
}

/* The shorter line into `out`: from each position reached, the move furthest along the
 * noted line. Past the deadline, the rest of the line as it is (it still wins from
 * there). Returns its length. */
static int shortcut(const Tables *t, const Position *start, const Move *line, int len,
                    double deadline, const Noted *n, Position *at_pos, Move *moves, Move *out)
{
    int written = 0;
    *at_pos = *start;
    for (int at = 0; at < len;) {
        if (deadline >= 0 && now_seconds() > deadline) {
            memcpy(out + written, line + at, (size_t)(len - at) * sizeof *line);
            return written + (len - at);
        }
        Move move;
        int step = furthest(t, n, at_pos, line, at, moves, &move);
        out[written++] = move;
        apply_move(t, at_pos, &move);
        at = step;
    }
    return written;
}

ShortenResult shorten_line(const Tables *t, const Position *start, const Move *line, int len,
                           double max_seconds, Move *out, int *out_len)
{
    double deadline = max_seconds < 0 ? -1 : now_seconds() + max_seconds;
    ShortenResult result = SHORTEN_NO_MEMORY;
    Noted n = {0};
    bool room = noted_alloc(&n, len);
    Position *at_pos = malloc(sizeof *at_pos);
    Move *moves = malloc(MAX_MOVES * sizeof *moves);
    bool late = false;
    if (room && at_pos && moves)
        result = note_line(t, start, line, len, deadline, &n, at_pos, moves, &late, out_len);
    if (result == SHORTEN_DONE && late) {  /* nothing noted: the line as it is */
        memcpy(out, line, (size_t)len * sizeof *line);
        *out_len = len;
    } else if (result == SHORTEN_DONE) {
        *out_len = shortcut(t, start, line, len, deadline, &n, at_pos, moves, out);
    }
    noted_free(&n);
    free(at_pos);
    free(moves);
    return result;
}
