/* Positions, legal moves and apply (see state.h); each function names the State
 * method of app/engine/state.py it mirrors. */
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

static void foundation_share(const Tables *t, Position *p, int f, int sign);

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

int run_length(const Tables *t, const Position *p, int index)
{
    const TableauPile *pile = &p->tableau[index];
    if (!pile->len)
        return 0;
    if (!t->runs_any)
        return 1;
    return pile->len - run_start(t, pile);
}

/* ---------------------------------------------------------------- move generation */

/* What legal_moves works from, built once from the tops as the engine builds its dicts:
 * for each card, the tableau piles whose top takes it (`wanted`) and the foundations
 * that take it (`to_found`), as bit sets over pile indices; the empty piles. */
typedef struct {
    const Tables *t;
    Move *out;
    int n;
    uint16_t wanted[DECK];
    uint16_t to_found[DECK];
    uint16_t empties;
} Gen;

static void add(Gen *g, int src_kind, int src, int dst_kind, int dst, int count)
{
    Move *m = &g->out[g->n++];
    m->action = MOVE;
    m->src_kind = (uint8_t)src_kind;
    m->src = (uint8_t)src;
    m->dst_kind = (uint8_t)dst_kind;
    m->dst = (uint8_t)dst;
    m->count = (uint8_t)count;
}

/* One move to each pile in `piles` (a bit set, lowest index first) but `skip`. */
static void add_each(Gen *g, int src_kind, int src, int dst_kind, uint16_t piles, int skip,
                     int count)
{
    for (; piles; piles &= (uint16_t)(piles - 1)) {
        int j = __builtin_ctz(piles);
        if (j != skip)
            add(g, src_kind, src, dst_kind, j, count);
    }
}

/* One card to the foundations, the tableau, the empty piles, in the engine's order. */
static void single(Gen *g, int src_kind, int src, int card, int skip)
{
    add_each(g, src_kind, src, FOUNDATION, g->to_found[card], -1, 1);
    add_each(g, src_kind, src, TABLEAU, g->wanted[card], skip, 1);
    add_each(g, src_kind, src, TABLEAU, g->empties, skip, 1);
}

static void gen_init(Gen *g, const Tables *t, const Position *p, Move *out)
{
    g->t = t;
    g->out = out;
    g->n = 0;
    memset(g->wanted, 0, sizeof g->wanted);
    memset(g->to_found, 0, sizeof g->to_found);
    g->empties = 0;
    for (int j = 0; j < t->tableau_piles; j++) {
        const TableauPile *pile = &p->tableau[j];
        if (!pile->len) {
            g->empties |= (uint16_t)(1u << j);
            continue;
        }
        const Accepted *takes = &t->accepted_by[pile->cards[pile->len - 1]];
        for (int k = 0; k < takes->count; k++)
            g->wanted[takes->cards[k]] |= (uint16_t)(1u << j);
    }
    if (t->reserve_fills_empty && p->reserve.len)
        g->empties = 0;
    for (int f = 0; f < t->foundation_count; f++) {
        const FoundationPile *pile = &p->foundations[f];
        uint16_t bit = (uint16_t)(1u << f);
        if (!pile->len) {
            for (int suit = 0; suit < 4; suit++)
                g->to_found[suit * 13 + first_rank(p) - 1] |= bit;
        } else if (pile->len < FOUNDATION_CAP) {
            int next = t->found_next[pile->cards[pile->len - 1]];
            if (next != NO_CARD)
                g->to_found[next] |= bit;
        }
    }
}

int legal_moves(const Tables *t, const Position *p, Move *out)
{
    if (is_won(t, p))
        return 0;
    Gen g;
    gen_init(&g, t, p, out);
    for (int i = 0; i < t->tableau_piles; i++) {
        const TableauPile *pile = &p->tableau[i];
        if (!pile->len)
            continue;
        single(&g, TABLEAU, i, pile->cards[pile->len - 1], i);
        int longest = run_length(t, p, i);
        for (int count = 2; count <= longest; count++) {
            int card = pile->cards[pile->len - count];
            add_each(&g, TABLEAU, i, TABLEAU, g.wanted[card], i, count);
            add_each(&g, TABLEAU, i, TABLEAU, g.empties, -1, count);
        }
    }
    if (p->waste.len)
        single(&g, WASTE, 0, p->waste.cards[p->waste.len - 1], -1);
    if (p->reserve.len)
        single(&g, RESERVE, 0, p->reserve.cards[p->reserve.len - 1], -1);
    if (t->foundation_return) {
        /* A foundation card returns only to the tableau. */
        memset(g.to_found, 0, sizeof g.to_found);
        for (int f = 0; f < t->foundation_count; f++) {
            const FoundationPile *pile = &p->foundations[f];
            if (pile->len)
                single(&g, FOUNDATION, f, pile->cards[pile->len - 1], -1);
        }
    }
    /* Redeal while redeals are left (redeals_left > 0) or unlimited (-1). */
    if (p->stock.len || (p->waste.len && p->redeals_left != 0)) {
        Move *m = &out[g.n++];
        memset(m, 0, sizeof *m);
        m->action = p->stock.len ? DRAW : REDEAL;
        m->count = 1;
    }
    return g.n;
}

/* ------------------------------------------------------------------------- apply */

static uint8_t pop(CardStack *stack) { return stack->cards[--stack->len]; }

/* Mark the key parts `move` changes stale (undo_move puts back what was kept before). */
static void touch(Position *p, const Move *move)
{
    if (move->action != MOVE) {
        p->stale |= STALE_STACKS;
        return;
    }
    if (move->src_kind == TABLEAU)
        p->stale |= 1u << move->src;
    else if (move->src_kind == WASTE)
        p->stale |= STALE_STACKS;
    if (move->dst_kind == TABLEAU)
        p->stale |= 1u << move->dst;
}

#ifdef SOLVER_CHECKS
#include <stdio.h>
#include <stdlib.h>
/* Built with -DSOLVER_CHECKS (scripts/native_sanitized.sh): what apply and undo keep
 * (each pile's run start, the copies on the foundations) is checked against what it
 * should be after each of them, and a wrong value stops the process. */
static void check_kept(const Tables *t, const Position *p)
{
    for (int i = 0; i < t->tableau_piles; i++)
        if (p->tableau[i].run != find_run_start(t, &p->tableau[i])) {
            fprintf(stderr, "SOLVER_CHECKS: tableau %d keeps run %d, walks to %d\n", i,
                    p->tableau[i].run, find_run_start(t, &p->tableau[i]));
            abort();
        }
    uint8_t up[DECK] = {0};
    for (int f = 0; f < t->foundation_count; f++)
        for (int k = 0; k < p->foundations[f].len; k++)
            up[p->foundations[f].cards[k]]++;
    if (memcmp(up, p->copies_up, sizeof up)) {
        fprintf(stderr, "SOLVER_CHECKS: the copies kept up are not the foundations'\n");
        abort();
    }
}
#endif

/* The run start of a tableau pile that cards left, nothing turned up and nothing
 * refilled (TableauPile.run): it stays until the whole run has gone. */
static inline void run_after_taking(const Tables *t, TableauPile *pile)
{
    if (!pile->len)
        pile->run = 0;
    else if (pile->len <= pile->run)
        pile->run = (uint8_t)find_run_start(t, pile);  /* the whole run left */
}

/* The run start of a tableau pile that cards came onto, `under` of them there before: a
 * run onto a card it builds on lengthens the run there; else walk it. */
static inline void run_after_putting(const Tables *t, TableauPile *pile, int under,
                                     bool moving_run)
{
    if (!(under && moving_run && stack_ok(t, pile->cards[under - 1], pile->cards[under])))
        pile->run = (uint8_t)find_run_start(t, pile);
}

bool peeks(const Tables *t, const Position *p, const Move *move)
{
    if (move->action != MOVE || move->src_kind != TABLEAU || move->dst_kind != TABLEAU)
        return false;
    const TableauPile *pile = &p->tableau[move->src];
    int left = pile->len - move->count;
    return left ? left > pile->hidden : !(t->reserve_fills_empty && p->reserve.len);
}

void peek_move(const Tables *t, Position *p, const Move *move, Peek *peek)
{
    TableauPile *from = &p->tableau[move->src], *to = &p->tableau[move->dst];
    int count = move->count, under = to->len;
    *peek = (Peek){from->len, from->run, to->len, to->run};
    bool moving_run = from->len - count >= from->run;
    from->len = (uint8_t)(from->len - count);
    copy_run(to->cards + under, from->cards + from->len, count);
    to->len = (uint8_t)(under + count);
    run_after_taking(t, from);
    run_after_putting(t, to, under, moving_run);
}

void peek_back(Position *p, const Move *move, const Peek *peek)
{
    TableauPile *from = &p->tableau[move->src], *to = &p->tableau[move->dst];
    from->len = peek->src_len;  /* its cards are still there, above the length */
    from->run = peek->src_run;
    to->len = peek->dst_len;
    to->run = peek->dst_run;
}

void apply_move(const Tables *t, Position *p, const Move *move)
{
    Undo undo;
    apply_undoable(t, p, move, &undo);
}

uint64_t top_hash[DECK + 1];

/* One more (sign 1) or one less (-1) foundation taking `card` next. */
static inline void wanting(Position *p, int card, int sign)
{
    p->wants[card] = (uint8_t)(p->wants[card] + sign);
    if (p->wants[card])
        p->wanted_cards |= 1ull << card;
    else
        p->wanted_cards &= ~(1ull << card);
}

/* Foundation f's share of Position.tops_hash, wants and wanted_cards, added (sign 1) or
 * taken away (-1): taken before the foundation changes and added after, so that what
 * the position keeps is always what the foundations are. An empty foundation takes the
 * first rank of every suit; a started one, the card after its top (none once full). */
static void foundation_share(const Tables *t, Position *p, int f, int sign)
{
    const FoundationPile *pile = &p->foundations[f];
    if (!pile->len) {
        for (int suit = 0; suit < 4; suit++)
            wanting(p, suit * 13 + first_rank(p) - 1, sign);
    } else if (pile->len < FOUNDATION_CAP && t->found_next[pile->cards[pile->len - 1]] != NO_CARD) {
        wanting(p, t->found_next[pile->cards[pile->len - 1]], sign);
    }
    uint64_t top = top_hash[pile->len ? pile->cards[pile->len - 1] + 1 : 0];
    p->tops_hash = sign > 0 ? p->tops_hash + top : p->tops_hash - top;
}

static void foundation_push(const Tables *t, Position *p, int f, int card)
{
    foundation_share(t, p, f, -1);
    p->foundations[f].cards[p->foundations[f].len++] = (uint8_t)card;
    p->copies_up[card]++;
    foundation_share(t, p, f, 1);
}

static int foundation_pop(const Tables *t, Position *p, int f)
{
    foundation_share(t, p, f, -1);
    int card = p->foundations[f].cards[--p->foundations[f].len];
    p->copies_up[card]--;
    foundation_share(t, p, f, 1);
    return card;
}

/* What undo_move puts back of the key's kept parts (Undo.stale and the hashes). */
static void save_kept(const Position *p, const Move *move, Undo *undo)
{
    undo->stale = p->stale;
    undo->stacks_hash = p->stacks_hash;
    if (move->action == MOVE) {
        if (move->src_kind == TABLEAU)
            undo->src_hash = p->pile_hash[move->src];
        if (move->dst_kind == TABLEAU)
            undo->dst_hash = p->pile_hash[move->dst];
    }
}

static void restore_kept(Position *p, const Undo *undo)
{
    const Move *move = &undo->move;
    if (move->action == MOVE) {
        if (move->src_kind == TABLEAU) {
            p->piles_hash += undo->src_hash - p->pile_hash[move->src];
            p->pile_hash[move->src] = undo->src_hash;
        }
        if (move->dst_kind == TABLEAU) {
            p->piles_hash += undo->dst_hash - p->pile_hash[move->dst];
            p->pile_hash[move->dst] = undo->dst_hash;
        }
    }
    p->stacks_hash = undo->stacks_hash;
    p->stale = undo->stale;
}

void apply_undoable(const Tables *t, Position *p, const Move *move, Undo *undo)
{
    undo->move = *move;
    save_kept(p, move, undo);
    touch(p, move);
    if (move->action == DRAW) {
        int k = t->draw < p->stock.len ? t->draw : p->stock.len;
        for (int i = 0; i < k; i++)
            p->waste.cards[p->waste.len++] = pop(&p->stock);
        undo->drawn = (uint8_t)k;
        return;
    }
    if (move->action == REDEAL) {
        for (int i = 0; i < p->waste.len; i++)
            p->stock.cards[i] = p->waste.cards[p->waste.len - 1 - i];
        p->stock.len = p->waste.len;
        p->waste.len = 0;
        undo->redeals_left = p->redeals_left;
        if (p->redeals_left > 0)
            p->redeals_left--;
        return;
    }
    uint8_t moving[PILE_ROOM];
    int count = move->count;
    bool moving_run = true;  /* the moving cards build on each other */
    if (move->src_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->src];
        undo->hidden = pile->hidden;
        undo->refilled = false;
        undo->src_run = pile->run;
        moving_run = pile->len - count >= pile->run;
        pile->len = (uint8_t)(pile->len - count);
        copy_run(moving, pile->cards + pile->len, count);
        if (pile->len && pile->hidden >= pile->len) {
            pile->hidden = (uint8_t)(pile->len - 1);  /* the card under turns up */
            pile->run = pile->hidden;
        } else if (!pile->len && t->reserve_fills_empty && p->reserve.len) {
            pile->cards[0] = pop(&p->reserve);
            pile->len = 1;
            pile->run = 0;
            undo->refilled = true;
        } else {
            run_after_taking(t, pile);
        }
    } else if (move->src_kind == WASTE) {
        moving[0] = pop(&p->waste);
    } else if (move->src_kind == RESERVE) {
        moving[0] = pop(&p->reserve);
    } else {
        moving[0] = (uint8_t)foundation_pop(t, p, move->src);
    }
    if (move->dst_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->dst];
        undo->dst_run = pile->run;
        int under = pile->len;
        copy_run(pile->cards + under, moving, count);
        pile->len = (uint8_t)(pile->len + count);
        run_after_putting(t, pile, under, moving_run);
    } else {
        foundation_push(t, p, move->dst, moving[0]);
    }
#ifdef SOLVER_CHECKS
    check_kept(t, p);
#endif
}

void undo_move(const Tables *t, Position *p, const Undo *undo)
{
    const Move *move = &undo->move;
    restore_kept(p, undo);
    if (move->action == DRAW) {
        for (int i = 0; i < undo->drawn; i++)
            p->stock.cards[p->stock.len++] = pop(&p->waste);
        return;
    }
    if (move->action == REDEAL) {  /* the stock was empty: the waste is the stock reversed */
        for (int i = 0; i < p->stock.len; i++)
            p->waste.cards[i] = p->stock.cards[p->stock.len - 1 - i];
        p->waste.len = p->stock.len;
        p->stock.len = 0;
        p->redeals_left = undo->redeals_left;
        return;
    }
    uint8_t moving[PILE_ROOM];
    int count = move->count;
    if (move->dst_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->dst];
        pile->len = (uint8_t)(pile->len - count);
        pile->run = undo->dst_run;
        copy_run(moving, pile->cards + pile->len, count);
    } else {
        moving[0] = (uint8_t)foundation_pop(t, p, move->dst);
    }
    if (move->src_kind == TABLEAU) {
        TableauPile *pile = &p->tableau[move->src];
        if (undo->refilled) {
            p->reserve.cards[p->reserve.len++] = pile->cards[0];
            pile->len = 0;
        }
        copy_run(pile->cards + pile->len, moving, count);
        pile->len = (uint8_t)(pile->len + count);
        pile->hidden = undo->hidden;
        pile->run = undo->src_run;
    } else if (move->src_kind == WASTE) {
        p->waste.cards[p->waste.len++] = moving[0];
    } else if (move->src_kind == RESERVE) {
        p->reserve.cards[p->reserve.len++] = moving[0];
    } else {
        foundation_push(t, p, move->src, moving[0]);
    }
#ifdef SOLVER_CHECKS
    check_kept(t, p);
#endif
}

/* -------------------------------------------------------------------- move texts */

static const char SHORT[] = "swrft";  /* PileKind's letters in moves.py's short form */

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
