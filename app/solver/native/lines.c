/* Shorter winning lines (see lines.h and app/solver/lines.py, which this mirrors). */
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
 * the same for all of them): `latest` in lines.py. Open addressing over the bytes' hash;
 * a slot holds its position's index + 1 (0: empty), and a match compares the bytes. */
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

ShortenResult shorten_line(const Tables *t, const Position *start, const Move *line, int len,
                           double max_seconds, Move *out, int *out_len)
{
    double deadline = max_seconds < 0 ? -1 : now_seconds() + max_seconds;
    ShortenResult result = SHORTEN_NO_MEMORY;
    Noted n = {0};
    size_t slots = 16;
    while (slots < 2 * ((size_t)len + 1))
        slots *= 2;
    n.mask = slots - 1;
    n.slots = calloc(slots, sizeof *n.slots);
    n.offsets = malloc(((size_t)len + 2) * sizeof *n.offsets);
    n.hashes = malloc(((size_t)len + 1) * sizeof *n.hashes);
    size_t cap = 0;
    Position *at_pos = malloc(sizeof *at_pos);
    Move *moves = malloc(MAX_MOVES * sizeof *moves);
    if (!n.slots || !n.offsets || !n.hashes || !at_pos || !moves)
        goto done;
    /* Note the line's positions, checking each move as lines.py's apply does. */
    *at_pos = *start;
    n.offsets[0] = 0;
    bool late = false;
    for (int i = 0; i <= len; i++) {
        if (!late && deadline >= 0 && now_seconds() > deadline)
            late = true;  /* keep checking the moves, but shorten nothing */
        if (!late) {
            if (!reserve_room((void **)&n.bytes, &cap, n.offsets[i] + POSITION_BYTES, 1))
                goto done;
            size_t size = position_write(t, "", 0, at_pos, n.bytes + n.offsets[i], POSITION_BYTES);
            n.offsets[i + 1] = n.offsets[i] + size;
            n.hashes[i] = bytes_hash(n.bytes + n.offsets[i], size);
            n.slots[find_slot(&n, n.bytes + n.offsets[i], size, n.hashes[i])] = i + 1;
        }
        if (i == len)
            break;
        if (!is_legal(t, at_pos, &line[i], moves)) {
            *out_len = i;
            result = SHORTEN_ILLEGAL;
            goto done;
        }
        apply_move(t, at_pos, &line[i]);
    }
    int written = 0;
    if (late) {
        memcpy(out, line, (size_t)len * sizeof *line);
        written = len;
    } else {
        uint8_t scratch[POSITION_BYTES];
        *at_pos = *start;
        for (int at = 0; at < len;) {
            if (deadline >= 0 && now_seconds() > deadline) {
                memcpy(out + written, line + at, (size_t)(len - at) * sizeof *line);
                written += len - at;
                break;
            }
            int step = at + 1;
            Move move = line[at];
            int count = legal_moves(t, at_pos, moves);
            for (int i = 0; i < count; i++) {
                Undo undo;
                apply_undoable(t, at_pos, &moves[i], &undo);
                int reached = latest(&n, t, at_pos, scratch);
                undo_move(t, at_pos, &undo);
                if (reached > step) {
                    step = reached;
                    move = moves[i];
                }
            }
            out[written++] = move;
            apply_move(t, at_pos, &move);
            at = step;
        }
    }
    *out_len = written;
    result = SHORTEN_DONE;
done:
    free(n.bytes);
    free(n.offsets);
    free(n.hashes);
    free(n.slots);
    free(at_pos);
    free(moves);
    return result;
}
