/* Positions read from and written to bytes, the queries on them, and move texts (see
 * state.h; legal moves are movegen.c's, apply and undo apply.c's); each function names
 * the State method of app/engine/state.py it mirrors. */
#include "state.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ reading bytes */

typedef struct {
    const uint8_t *data;
    size_t size, pos;
    const char *error;  /* the first problem met; later reads return 0 */
} Reader;

static int read_byte(Reader *r)
{
    if (r->error)
        return 0;
    if (r->pos >= r->size) {
        r->error = "truncated";
        return 0;
    }
    return r->data[r->pos++];
}

/* A length byte and that many card ids into `cards` (room for `cap`). */
static int read_cards(Reader *r, uint8_t *cards, int cap)
{
    int len = read_byte(r);
    if (r->error)
        return 0;
    if (len > cap) {
        r->error = "a pile holds more cards than the game has";
        return 0;
    }
    if (r->size - r->pos < (size_t)len) {
        r->error = "truncated";
        return 0;
    }
    for (int i = 0; i < len; i++) {
        cards[i] = r->data[r->pos++];
        if (cards[i] >= DECK) {
            r->error = "not a card";
            return 0;
        }
    }
    return len;
}

/* The header: the format's version, the variant's name (skipped: the tables name it),
 * the house rule, the redeals left and the base rank. An error found here is returned at
 * once, as are those of a read past the end; 0 otherwise. */
static const char *read_header(const Tables *t, Reader *r, Position *out)
{
    if (read_byte(r) != BYTES_VERSION && !r->error)
        return "unknown format version";
    int name_len = read_byte(r);
    if (!r->error && r->size - r->pos < (size_t)name_len)
        r->error = "truncated";
    if (r->error)
        return r->error;
    r->pos += (size_t)name_len;
    if ((read_byte(r) != 0) != t->foundation_return && !r->error)
        return "the bytes' house rule differs from the tables'";
    int redeals = read_byte(r);
    out->redeals_left = redeals == 255 ? -1 : (int16_t)redeals;
    out->base_rank = (uint8_t)read_byte(r);
    if (out->base_rank > 13 && !r->error)
        return "the base rank is not a rank";
    return 0;
}

/* The foundations, counting the copies of each card up; `*total` counts their cards. A
 * read past the end is left in r->error for the caller. */
static const char *read_foundations(const Tables *t, Reader *r, Position *out, int *total)
{
    int foundations = read_byte(r);
    if (!r->error && foundations != t->foundation_count)
        return "pile counts do not match the variant";
    for (int f = 0; f < foundations && !r->error; f++) {
        FoundationPile *pile = &out->foundations[f];
        pile->len = (uint8_t)read_cards(r, pile->cards, FOUNDATION_CAP);
        for (int k = 0; k < pile->len; k++)
            out->copies_up[pile->cards[k]]++;
        *total += pile->len;
    }
    return 0;
}

/* The tableau piles with their face-down counts and run starts; `*total` counts their
 * cards. A read past the end is left in r->error for the caller. */
static const char *read_tableau(const Tables *t, Reader *r, Position *out, int *total)
{
    int piles = read_byte(r);
    if (!r->error && piles != t->tableau_piles)
        return "pile counts do not match the variant";
    for (int i = 0; i < piles && !r->error; i++) {
        TableauPile *pile = &out->tableau[i];
        pile->hidden = (uint8_t)read_byte(r);
        pile->len = (uint8_t)read_cards(r, pile->cards, MAX_CARDS);
        *total += pile->len;
        if (!r->error && pile->hidden > (pile->len ? pile->len - 1 : 0))
            return "a face-down card on top of a pile";
        if (!r->error)
            pile->run = (uint8_t)find_run_start(t, pile);
    }
    return 0;
}

const char *position_read(const Tables *t, const uint8_t *data, size_t size, Position *out)
{
    Reader r = {data, size, 0, 0};
    memset(out, 0, sizeof *out);
    out->stale = STALE_ALL;
    const char *bad = read_header(t, &r, out);
    if (bad)
        return bad;
    out->stock.len = (uint8_t)read_cards(&r, out->stock.cards, MAX_CARDS);
    out->waste.len = (uint8_t)read_cards(&r, out->waste.cards, MAX_CARDS);
    out->reserve.len = (uint8_t)read_cards(&r, out->reserve.cards, MAX_CARDS);
    int total = out->stock.len + out->waste.len + out->reserve.len;
    bad = read_foundations(t, &r, out, &total);
    if (!bad)
        bad = read_tableau(t, &r, out, &total);
    if (bad)
        return bad;
    if (r.error)
        return r.error;
    if (r.pos != r.size)
        return "trailing bytes";
    /* Every move keeps the number of cards, so no pile can outgrow its array. */
    if (total > MAX_CARDS)
        return "more cards than two decks";
    for (int f = 0; f < t->foundation_count; f++)
        foundation_share(t, out, f, 1);
    return 0;
}

/* ------------------------------------------------------------------ writing bytes */

typedef struct {
    uint8_t *out;
    size_t cap, len;
} Writer;

static void put(Writer *w, int byte)
{
    if (w->len < w->cap)
        w->out[w->len] = (uint8_t)byte;
    w->len++;
}

static void put_cards(Writer *w, const uint8_t *cards, int len)
{
    put(w, len);
    for (int i = 0; i < len; i++)
        put(w, cards[i]);
}

size_t position_write(const Tables *t, const char *name, size_t name_len, const Position *p,
                      uint8_t *out, size_t cap)
{
    Writer w = {out, cap, 0};
    put(&w, BYTES_VERSION);
    put(&w, (int)name_len);
    for (size_t i = 0; i < name_len; i++)
        put(&w, (uint8_t)name[i]);
    put(&w, t->foundation_return ? 1 : 0);
    put(&w, p->redeals_left < 0 ? 255 : p->redeals_left);
    put(&w, p->base_rank);
    put_cards(&w, p->stock.cards, p->stock.len);
    put_cards(&w, p->waste.cards, p->waste.len);
    put_cards(&w, p->reserve.cards, p->reserve.len);
    put(&w, t->foundation_count);
    for (int f = 0; f < t->foundation_count; f++)
        put_cards(&w, p->foundations[f].cards, p->foundations[f].len);
    put(&w, t->tableau_piles);
    for (int i = 0; i < t->tableau_piles; i++) {
        put(&w, p->tableau[i].hidden);
        put_cards(&w, p->tableau[i].cards, p->tableau[i].len);
    }
    return w.len;
}

/* ------------------------------------------------------------------------ queries */

bool is_won(const Tables *t, const Position *p)
{
    for (int f = 0; f < t->foundation_count; f++)
        if (p->foundations[f].len != FOUNDATION_CAP)
            return false;
    return true;
}

/* The cards lying above the copy of `card` nearest the top of `cards` (top last), or -1
 * where no copy lies there. */
/* For each wanted card met in `cards` (top last), the fewest cards above a copy so far
 * (`nearest`, NONE_ABOVE where no copy was met). */
enum { NONE_ABOVE = 0xff };

static void nearest_copies(const uint8_t *cards, int len, uint64_t wanted, uint8_t *nearest)
{
    for (int k = len - 1; k >= 0; k--) {
        int card = cards[k], above = len - 1 - k;
        if ((wanted >> card & 1) && above < nearest[card])
            nearest[card] = (uint8_t)above;
    }
}

void beam_features(const Tables *t, const Position *p, int out[FEATURE_COUNT])
{
    memset(out, 0, FEATURE_COUNT * sizeof *out);
    for (int f = 0; f < t->foundation_count; f++)
        out[FEATURE_ON_FOUNDATIONS] += p->foundations[f].len;
    out[FEATURE_IN_WASTE] = p->waste.len;
    out[FEATURE_IN_RESERVE] = p->reserve.len;
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        out[FEATURE_FACE_DOWN] += pile->hidden;
        out[FEATURE_EMPTY_PILES] += pile->len == 0;
        for (int k = pile->hidden > 0 ? pile->hidden : 1; k < pile->len; k++)
            out[FEATURE_OUT_OF_SEQUENCE] += !stack_ok(t, pile->cards[k - 1], pile->cards[k]);
    }
    /* Each card the foundations take next: the cards above its copy nearest a top (one
     * pass over the cards in play: the beam asks it of every position it meets). */
    uint64_t wanted = p->wanted_cards;
    if (!wanted)
        return;
    uint8_t nearest[DECK];
    memset(nearest, NONE_ABOVE, sizeof nearest);
    nearest_copies(p->waste.cards, p->waste.len, wanted, nearest);
    nearest_copies(p->reserve.cards, p->reserve.len, wanted, nearest);
    for (int i = 0; i < t->tableau_piles; i++)
        nearest_copies(p->tableau[i].cards, p->tableau[i].len, wanted, nearest);
    for (; wanted; wanted &= wanted - 1) {
        int card = __builtin_ctzll(wanted);
        if (nearest[card] != NONE_ABOVE)
            out[FEATURE_BURIED] += nearest[card];
    }
}

bool foundation_takes(const Tables *t, const Position *p, int index, int card)
{
    const FoundationPile *pile = &p->foundations[index];
    if (!pile->len)
        return card_rank(card) == first_rank(p);
    return pile->len < FOUNDATION_CAP && t->found_next[pile->cards[pile->len - 1]] == card;
}

/* -------------------------------------------------------------------- move texts */

static const char SHORT[] = "swrft";  /* PileKind's letters in app/engine/moves.py's short form */

static int pile_text(char *out, int kind, int index)
{
    if (kind == FOUNDATION || kind == TABLEAU)
        return sprintf(out, "%c%d", SHORT[kind], index);
    return sprintf(out, "%c", SHORT[kind]);
}

void move_text(const Move *move, char out[MOVE_TEXT_SIZE])
{
    if (move->action != MOVE) {
        strcpy(out, move->action == DRAW ? "draw" : "redeal");
        return;
    }
    int n = pile_text(out, move->src_kind, move->src);
    out[n++] = '>';
    n += pile_text(out + n, move->dst_kind, move->dst);
    if (move->count != 1)
        sprintf(out + n, "x%d", move->count);
    else
        out[n] = 0;
}

/* Up to `most` ASCII digits as a number (-1: none). */
static int parse_digits(const char **text, int most)
{
    int value = -1, n = 0;
    while (n < most && **text >= '0' && **text <= '9') {
        value = (value < 0 ? 0 : value * 10) + (**text - '0');
        (*text)++;
        n++;
    }
    return value;
}

static bool parse_pile(const char **text, uint8_t *kind, uint8_t *index)
{
    const char *letter = strchr(SHORT, **text);
    if (!**text || !letter)
        return false;
    *kind = (uint8_t)(letter - SHORT);
    (*text)++;
    *index = 0;
    if (*kind == FOUNDATION || *kind == TABLEAU) {
        int value = parse_digits(text, 2);
        if (value < 0)
            return false;
        *index = (uint8_t)value;
    }
    return true;
}

bool move_parse(const char *text, Move *out)
{
    memset(out, 0, sizeof *out);
    out->count = 1;
    if (!strcmp(text, "draw") || !strcmp(text, "redeal")) {
        out->action = text[0] == 'd' ? DRAW : REDEAL;
        return true;
    }
    out->action = MOVE;
    if (!parse_pile(&text, &out->src_kind, &out->src) || *text++ != '>')
        return false;
    if (!parse_pile(&text, &out->dst_kind, &out->dst))
        return false;
    if (*text == 'x') {
        text++;
        int count = parse_digits(&text, 3);
        if (count < 1 || count > MAX_CARDS)
            return false;
        out->count = (uint8_t)count;
    }
    return *text == 0;
}

bool move_equal(const Move *a, const Move *b)
{
    if (a->action != b->action)
        return false;
    return a->action != MOVE
        || (a->src_kind == b->src_kind && a->src == b->src && a->dst_kind == b->dst_kind
            && a->dst == b->dst && a->count == b->count);
}

bool is_legal(const Tables *t, const Position *p, const Move *move, Move *scratch)
{
    int count = legal_moves(t, p, scratch);
    for (int i = 0; i < count; i++)
        if (move_equal(&scratch[i], move))
            return true;
    return false;
}
