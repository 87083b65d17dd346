"""The full search for games where any run moves as a whole: positions up to run arrangement.

In Rank and File (and Number Ten, Rainbow, Canfield) a face-up card moves with every card
above it, however many, so the tableau is a set of chains and the search table drowns in
the ways the same chains can hang off equal parents (two suits of a colour, two decks; in
Rainbow any card of the rank above). The native core (``app/solver/native/arrangements.c``)
gives the full search a coarser position key and the moves that go with it; this module
says where that holds and builds the classes the core is handed, and the argument below
proves that positions with the same key are won or lost together.

**Roles.** The *top run* of a pile is the longest run from its top card down (never into
the face-down cards). Its bottom card is the pile's *base* when something lies under it
(face-down cards, or face-up cards it does not build on: Number Ten deals two face-up
cards), else a *root* (the pile's bottom card). Every other top-run card is *attached*:
it lies on a card it builds on. Cards under a base cannot move until the base has gone;
they are kept exactly. The key is: the piles under their bases (with the bases), the
roots, the attached cards (as sorted multisets), the foundations, stock and waste.

**Why equal keys are won or lost alike.** A *class* is the cards a tableau build cannot
tell apart (same rank and colour in Rank and File, same rank in Rainbow); each card
builds on at most one class (without a wrap a King on none) and takes at most one (an
Ace none). A class member with nothing on it is a pile top. Given the key, for every class we know how many members are in play (bases, roots,
attached) and how many hold a card (one per attached card of the class it takes), so
how many are tops. Now take two positions with the same key and any move in one:

- a run from an attached card onto another top of its parent class leaves the key as it
  is: such moves are never needed and are not generated;
- every other move changes the key the same way in any position with that key, and can
  be made in each of them: a base or root card (with all above it) onto a top of its
  parent class, or into an empty pile; an attached card and all above it into an empty
  pile; a waste (or foundation) card onto a top or into an empty pile; a card to a
  foundation. The last needs the card on top: when something lies on it, that run first
  moves onto another top of the card's class, which exists in every such position
  exactly when it exists in one (the counts above), and which leaves the key alone.

So the key's successors do not depend on the arrangement, nor does winning (all cards up);
by induction on the moves left, neither does whether a position can be won. A search that
tries each key's moves from any one arrangement, skipping keys already seen, is exhaustive
over keys, and its exhaustion is a proof. (Safe foundation moves, played after each
child, are played alike from every arrangement: a safe card has nothing left that could
lie on it, so it is a top in each.)

**With a wrap** (Rainbow, Canfield: a King builds on an Ace) a run can reach a card of its
own bottom card's parent class, and then a top that the counts say exists can be the
moving run's own. Where the variant has one deck and its classes form one cycle under
"builds on" (13 ranks; 26 ranks and colours), every such case still reaches the same
key, with moves that leave the key alone first (arrangements.c, the clearing of a
sibling's run):

- a root (or base) whose only parent-class top is its own run's: that run holds every
  class, so another pile's top is of the class of some card in it below the top; the
  run from the card above that one goes onto it (key unchanged), taking the parent-class
  top along, and the root's run follows onto it;
- a card to a foundation whose only class sibling on top is its own run's: the same
  split takes that sibling to another pile, and the rest of the run on the card follows;
- if no other pile has cards (the reserve is then empty: it refills emptied piles), the
  run from the first sibling above the card goes to an empty pile, the rest of the run
  on the card onto it, the card goes up, and the empty pile's cards go back onto the
  card's parent, whose class is the sibling's parent class (a "rejoin").

Where the reserve refills an emptied pile (Rainbow, Canfield), a root moving off or going
up empties its pile alike in every arrangement, and the same reserve card fills it.
`tests/solver/test_arrangements.py` checks the argument itself on the core's key and
moves: of two positions with one key, the children of either reach the key after every
move of the other.

**No normal form** (``docs/decisions/0009-no-run-arrangement-normal-form.md``). The
search does not put every root whose parent class has a top onto it (``normalize``). The
root can go back into the pile it left, so the two keys reach each other and are won or
lost together; but a search that meets only the normal form needs its children to give
the other form's successors too, and they do not: the parent is covered, and moving it
(to a foundation, say) needs the root's run cleared to a sibling, or into an empty pile,
which only gives the other form back, put away again. With ``normalize`` a late Canfield
position that the plain search wins is answered ``unsolvable``, and so is a Rank and
File position on a line ``solve`` wins (deal 1001 after 165 moves;
``test_a_position_on_a_winning_line_is_not_proven_lost``).

Only where the argument holds (:func:`supports`): runs of any length move, and either no
wrap or the wrap's conditions above.
"""

from __future__ import annotations

from functools import cache

from app.engine import Variant


def supports(variant: Variant) -> bool:
    """Does the run-arrangement argument hold for ``variant``?"""
    classes = _classes(variant)
    return (
        variant.runs == "any"
        and classes is not None
        and (not variant.build_wrap or (variant.decks == 1 and _one_cycle(classes)))
    )


def _one_cycle(classes: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
    """Do the classes form one cycle under "builds on" (each has a parent, and following
    parents from any class meets every class)? What the wrap's argument needs."""
    klass, parent = classes
    parent_of = dict(zip(klass, parent, strict=True))
    if -1 in parent_of.values():
        return False
    seen, here = set(), klass[0]
    while here not in seen:
        seen.add(here)
        here = parent_of[here]
    return len(seen) == len(parent_of)


@cache
def _classes(variant: Variant) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(class of each card, class of the cards it builds on or -1), or None when some card
    builds on cards of more than one class (the argument needs exactly one)."""
    ok = variant.stack_ok
    signatures: dict[tuple[tuple[bool, ...], tuple[bool, ...]], int] = {}
    klass = tuple(
        signatures.setdefault(
            (
                tuple(ok[card * 52 + m] for m in range(52)),
                tuple(ok[p * 52 + card] for p in range(52)),
            ),
            len(signatures),
        )
        for card in range(52)
    )
    parent = []
    for card in range(52):
        parents = {klass[p] for p in range(52) if ok[p * 52 + card]}
        if len(parents) > 1:
            return None
        parent.append(parents.pop() if parents else -1)
    return klass, tuple(parent)
