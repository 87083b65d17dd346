"""The per-variant tables the search is handed (:func:`app.solver.core.tables`), built
once per variant.

The core's safe foundation moves read :attr:`SearchTables.children`: a card goes up
without branching when no card that could ever need it as a tableau parent is still out
of the foundations (two decks: both copies must be up). Nothing is lost: a card on the
foundations only ever serves as a tableau parent, and every card that could use it is up
already (``docs/solver.md``, "Safe foundation moves").
"""

from __future__ import annotations

import copy

from app.engine import RANK, SUIT, State, Variant

# A draw's score among the search's children (the other scores are the core's,
# app/solver/native/scores.h; lowest tried first): with redeals, draw before building from
# the waste (passed cards come back); one pass, after every tableau move (drawing is
# irreversible), or, every other restart, before splitting runs.
DRAW_EARLY = 15
DRAW_BEFORE_SPLITS = 40
DRAW_LAST = 90

FIRST_TRY = 500  # positions in the first restart (plan.restarts grows them from here)


def _descendants(children: list[list[int]], card: int) -> list[int]:
    """Every card that could be built on ``card`` directly or through a chain of builds."""
    found: set[int] = set()
    todo = list(children[card])
    while todo:
        kid = todo.pop()
        if kid not in found:
            found.add(kid)
            todo.extend(children[kid])
    return sorted(found)


class SearchTables:
    """Per-variant tables the search reads on its hot path (built once per variant)."""

    _cache: dict[Variant, SearchTables] = {}

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.decks = variant.decks
        self.runs_any = variant.runs == "any"
        self.single_pass = variant.redeals == 0
        self.reserve_fills = variant.reserve_fills_empty
        # Settle plays the waste's top only where taking a card out of the waste leaves
        # every other one reachable as before: one card a draw, or no redeal. Drawing three
        # with redeals (Canfield), the cards a pass turns up depend on how many the waste
        # holds: a waste card put up shifts the threes of every later pass, and can hide
        # the card a line needs (docs/solver.md, "Safe foundation moves").
        self.waste_settles = variant.draw == 1 or self.single_pass
        self.returns = variant.foundation_return
        # Narrow restarts play every foundation move at once where cards may come back,
        # but only where the stock comes round again: with one pass, the cards kept in
        # the tableau are the parents the waste is unloaded onto. Measured with one pass
        # (eager against not): Rainbow deals 1-30 at 200,000 positions 18 -> 19 proven,
        # Emperor 1-30 at 100,000 10 -> 10, six of them in fewer positions; with redeals,
        # Rows of Four 1-60 at 20,000 needs it (52 eager, 44 not).
        self.eager_foundations = self.returns and not self.single_pass
        # With redeals a card passed by comes round again: draw before building on the
        # tableau from the waste, which buries low cards. One pass: draw last.
        self.draw_score = DRAW_LAST if self.single_pass else DRAW_EARLY
        # Where single cards move, many short restarts beat a few long ones: a short
        # depth-first search revises only its last choices, and these games are lost by
        # early ones. Restarts up to 2,000 positions, against growing without bound:
        # Deauville deals 1-60 at 100,000 positions 17 -> 20 proven, Emperor 1-30 9 -> 10;
        # at 1,000,000, Deauville 1-11 the same deals, deal 8 in 87,258 positions, not 416,512.
        self.largest_restart: int | None = None if self.runs_any else FIRST_TRY << 2
        self._early_draw: SearchTables | None = None
        ok = variant.stack_ok
        # A card nothing can be built on, of the foundations' first rank (an Ace without
        # wrap), never needs a tableau parent: an empty foundation always takes it (as
        # many foundations as such cards).
        needs_parent = [
            not (not any(ok[m * 52 + x] for x in range(52)) and self._first_rank_card(m))
            for m in range(52)
        ]
        # children[c]: the cards that could ever want c as their tableau parent.
        direct = [[m for m in range(52) if ok[c * 52 + m] and needs_parent[m]] for c in range(52)]
        # Narrow restarts prove nothing (their lines are replayed, their exhaustion is
        # "unknown"): they keep the direct rule, which is not a proof where cards return
        # but finds wins sooner (Rainbow deals 1-40 at 1,000,000 positions: docs/solver.md).
        self.narrow_children: tuple[tuple[int, ...], ...] = tuple(tuple(kids) for kids in direct)
        if self.returns:
            # Where foundation cards come back, a child that is up may return onto c to
            # hold one of its own children, and so on down: c is safe only when every card
            # that could be built on it through a chain is up (docs/solver.md, "Safe
            # foundation moves").
            direct = [_descendants(direct, c) for c in range(52)]
        self.children: tuple[tuple[int, ...], ...] = tuple(tuple(kids) for kids in direct)

    def _first_rank_card(self, card: int) -> bool:
        return self.variant.foundation_base == "ace" and RANK[card] == 1

    def restart(self, seed: int) -> SearchTables:
        """The tables for narrow restart ``seed``: with a single-pass stock, every other
        restart draws before splitting runs (some deals need the next card sooner)."""
        if not self.single_pass or seed % 2 == 0:
            return self
        if self._early_draw is None:
            self._early_draw = copy.copy(self)
            self._early_draw.draw_score = DRAW_BEFORE_SPLITS
        return self._early_draw

    @classmethod
    def of(cls, variant: Variant) -> SearchTables:
        rules = cls._cache.get(variant)
        if rules is None:
            rules = cls._cache[variant] = cls(variant)
        return rules

    def on_foundations(self, state: State, card: int) -> int:
        """How many copies of ``card`` are on the foundations."""
        suit = SUIT[card]
        first = state.first_rank
        position = (RANK[card] - first) % 13
        return sum(1 for f in state.foundations if f and SUIT[f[0]] == suit and len(f) > position)

    def safe_to_foundation(self, state: State, card: int, returned: int = 0) -> bool:
        """Is ``card`` safe to put up: every card in ``children[card]`` up? With
        ``returned``, would it be with that many more copies of each up (an upper bound
        on how many were up before as many cards came back: the deferred draws' test,
        ``docs/solver.md``)?"""
        decks = self.decks
        return all(self.on_foundations(state, m) + returned >= decks for m in self.children[card])
