"""A dead-end test: the game played with the tableau relaxed to its cards and bottoms.

Where every tableau pile is always one run from its bottom card (Rainbow: one card dealt
face up to each pile, and every card put on the tableau goes onto a card it builds on or
into an empty pile), count the tableau's cards by *class* (the cards a build cannot tell
apart: a rank in Rainbow), ``n``, and its piles' bottoms by class, ``B``. Every card of
class ``k`` is a bottom or lies on a card of its parent class, and a card has at most one
card on it, so of class ``j``'s cards those with a card on them are the child class's
cards but its bottoms, and the rest are tops: ``T(j) = n(j) - n(child(j)) + B(child(j))``.
A real tableau of ``p`` piles has ``T >= 0``, ``0 <= B <= n``, at most ``p`` bottoms,
and one at least where it holds a card.

The *relaxed game* forgets how the tableau is laid out (and the bottoms' suits) and keeps
those counts. Its position is what is on the foundations (a count per suit), the stock
and reserve lengths, the waste and ``B``; the tableau is every other card. Its moves:
draw; the waste's or the reserve's top card up, or onto the tableau (onto a top of its
parent class, or as a bottom into an empty pile); a tableau card the foundations want up
(where its class has a top; a bottom too, or not); a foundation's top back onto the
tableau; a whole pile onto a top (a bottom less) and a run into an empty pile (a bottom
more); each allowed when the tableau after it keeps the bounds. Every move of the real
game is one of these or none (a run onto another pile changes neither count; a refill
from the reserve is the reserve's top put into the empty pile), each allowed because the
real position after it exists. So a line that wins the real game gives a line that wins
the relaxed one, and where the relaxed game cannot be won from a position's image, the
position is lost.

The native core's test (``app/solver/native/relaxation.c``) searches the relaxed game from
the position's image and answers "lost" only when no win is reachable; what one search's tests learn (relaxed positions
known lost, or open) it keeps, and a test that meets :data:`STATE_LIMIT` relaxed
positions gives up (not shown lost), so an answer may depend on the tests before it, but
never wrongly: every entry kept is a fact, or claims nothing. It is asked only where the
stock holds at most :data:`STOCK_LIMIT` cards (a search may ask fewer): with more, the
relaxed game is almost always won, and the test is the costly part. ``docs/solver.md``
("The relaxed tableau") has the argument and the measurements. This module says where the
test applies and holds the limits the core is handed.
"""

from __future__ import annotations

from app.engine import Variant
from app.solver import arrangements

# The most relaxed positions one test meets: beyond it the answer is "not shown lost",
# and its start is kept as open, which stops every later test reaching it. 5,000 gives
# up where the bottoms grow the relaxed spaces, and proves fewer Rainbow deals lost
# (docs/decisions/0003-relaxed-tableau-test-room.md).
STATE_LIMIT = 100_000
# A search may let its tests run further (``relaxed_states``, up to this): where its tests
# are asked at few stock cards, a test that may run to the end shows lost where one that
# gives up at STATE_LIMIT blunts every test above it (Rainbow deal 5,
# docs/decisions/0003-relaxed-tableau-test-room.md). The native core allocates room for
# that many at once.
MOST_STATES = 1 << 26
# The beam's tests, which only drop positions and prove nothing, give up sooner: the
# passes test many positions a full search never meets, and a give-up at 100,000 costs
# about 20 times one at this (docs/decisions/0003-relaxed-tableau-test-room.md).
BEAM_STATE_LIMIT = 5_000
# Asked only where the stock holds at most this many cards: 8 decides more than 4, both
# hints and lost proofs (docs/decisions/0004-relaxed-tableau-stock-limit.md). A search
# may ask it at fewer (``relaxed_stock``).
STOCK_LIMIT = 8
# The native core codes the bottoms in 32 bits, a base-5 digit a class (relaxation_new.c).
_BOTTOMS_MOST_PILES, _BOTTOMS_MOST_CLASSES = 4, 13


def applies(variant: Variant) -> bool:
    """Is every tableau pile always one run from its bottom card, with one deck whose
    classes each have one parent class, a stock drawn one card at a time in one pass, and
    bottoms the native core can code (at most 4 piles, 13 classes)?"""
    classes = arrangements._classes(variant)
    return (
        variant.decks == 1
        and variant.tableau_rounds == (True,)
        and variant.redeals == 0
        and variant.draw == 1
        and classes is not None
        and arrangements._one_cycle(classes)
        and variant.tableau_piles <= _BOTTOMS_MOST_PILES
        and max(classes[0]) < _BOTTOMS_MOST_CLASSES
    )
