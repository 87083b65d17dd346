/* Deferred draws (docs/solver.md, "Deferred draws"): a position reached by a bare draw (the
 * draw alone, no safe move after it) does not try the children whose whole line moves
 * cards only from tableau piles, the reserve or (returns) foundations onto tableau piles
 * or foundations, unless the line puts a card up and the card the draw covered could then
 * be safe. The same moves played before the draw reach the same position (the draw
 * commutes with them, and settle plays the same moves either way), so every winning path
 * can be rewritten to one on which no bare draw is followed by a skipped child: sound
 * for proofs of loss. Such positions are keyed apart (they have fewer children), with the
 * card covered. */
#include "frames.h"

#include "hash.h"

/* The card a bare draw covered: the waste's top before it (NOTHING_COVERED: none). */
static int covered_by(const Position *p, const Undo *draw)
{
    int under = (int)p->waste.len - (int)draw->drawn - 1;
    return under >= 0 ? p->waste.cards[under] : NOTHING_COVERED;
}

/* After a bare draw that covered `covered`, is this child skipped? So it is when its line
 * moves cards only from tableau piles, the reserve or foundations (returns) onto tableau
 * piles or foundations and, where it puts a card up, `covered` was not safe at any point
 * of the line: bounded by its safety at `at` with each card up as many more times as the
 * line returned cards (the same moves played before the draw reach the same position:
 * docs/solver.md, "Deferred draws"). */
bool deferred(Search *s, const Undo *line, int len, int covered)
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
 * otherwise (their children are fewer); what a drawn position skips reads the card
 * covered: keyed with it. */
static const uint64_t DRAWN_MARK = 0x5851f42d4c957f2dULL;

uint64_t drawn_key(uint64_t key, int drawn)
{
    return mix64(key ^ DRAWN_MARK ^ (uint64_t)(drawn + 2) << 56);
}

static bool skips(Search *s, const Frame *frame, const Undo *line, int len)
{
    return frame->drawn != NOT_DRAWN && deferred(s, line, len, frame->drawn);
}

/* The new frame is drawn where its line is a bare draw. */
static int reached(const Search *s, const Undo *line, int len)
{
    return len == 1 && line[0].move.action == DRAW ? covered_by(&s->at, &line[0]) : NOT_DRAWN;
}

/* Asked for (Limits.defer_draws), in the full search only: narrow restarts find wins
 * sooner without it. */
static bool wanted_when(const Limits *limits) { return !limits->narrow && limits->defer_draws; }

const Reduction DEFERRED_DRAWS = {.name = "deferred draws", .sound_for_loss = true,
                                  .wanted = wanted_when, .skips = skips, .reached = reached};
