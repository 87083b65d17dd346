/* Children passed over in a frame reached by a bare draw (docs/native-core.md): a child
 * that deferred draws (reduce_deferred.c) would skip whatever it plays, known without
 * playing it, is dropped where the frame's children are made (passed_over), and an
 * obligated move's pairs that it would skip are not made or are filtered (expand's
 * frame_exposing and played_pairs). Exact: the search meets the same positions in the
 * same order, only cheaper (SOLVER_CHECKS builds check each drop against `deferred`), so
 * as sound as deferred draws are: sound for proofs of loss. Not up to run arrangement,
 * whose children this was not written for. */
#include "frames.h"

#include <string.h>

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
#include <stdio.h>
#include <stdlib.h>

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
    int n = s->space->follow_ups(s->t, &s->at, must_use, move, ALL_PILES, s->pairs);
    peek_back(&s->at, move, &peek);
    n = played_pairs(s, frame, move, n);
    s->skipped = skipped;
    return n;
}

/* Built with -DSOLVER_CHECKS: a drawn frame's pairs, made from the exposing piles only
 * and less those passed over, are the full expansion's less those. */
static void check_drawn_pairs(Search *s, const Frame *frame, const Move *move, int must_use,
                              int n)
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

/* The drops hook: a frame reached by a bare draw loses its children passed over, the
 * others keep their order (and their jittered scores); other frames lose none. */
static int drop_passed_over(Search *s, Frame *frame, Child *out, double *noisy, int n)
{
    if (frame->drawn == NOT_DRAWN)
        return n;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (passed_over(s, frame, &out[i])) {
            s->skipped++;
            continue;
        }
        out[kept] = out[i];
        noisy[kept++] = noisy[i];
    }
    return kept;
}

/* The pair_sources hook: after a bare draw, runs onto the pile an obligated move
 * uncovered only from the piles that could leave a top settle takes (and the pile the
 * move went onto): the others' pairs would all be skipped unplayed. */
static uint32_t pair_sources(Search *s, Frame *frame, const Move *move)
{
    return frame->drawn != NOT_DRAWN ? frame_exposing(s, frame) | 1u << move->dst : ALL_PILES;
}

/* The thin_pairs hook: a drawn frame's pairs less those `deferred` would skip whatever
 * they play (played_pairs); other frames' pairs all kept. */
static int thin_pairs(Search *s, const Frame *frame, const Move *before, int n, int must_use,
                      bool peeked)
{
    if (frame->drawn == NOT_DRAWN)
        return n;
    n = played_pairs(s, frame, before, n);
#ifdef SOLVER_CHECKS
    if (peeked)
        check_drawn_pairs(s, frame, before, must_use, n);
#else
    (void)must_use, (void)peeked;
#endif
    return n;
}

/* With deferred draws (only frames reached by a bare draw pass children over, and only
 * deferred draws marks them), in the full search, and not up to run arrangement (not
 * written for the arranged children). */
static bool wanted_when(const Limits *limits)
{
    return !limits->narrow && limits->defer_draws && !limits->arranged;
}

const Reduction PASSED_OVER = {.name = "passed over", .sound_for_loss = true,
                               .wanted = wanted_when, .drops = drop_passed_over,
                               .pair_sources = pair_sources, .thin_pairs = thin_pairs};
