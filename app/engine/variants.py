"""Variants as data: one frozen value per game, read by one engine.

A new game is a new entry in :data:`VARIANTS`, never new code. The fields name the
rules of ``docs/rules.md``; :meth:`Variant.describe` turns them back into words.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from .cards import RANK, RED, SUIT, RankName
from .errors import N_, InvalidMove, UnknownVariant

Build = Literal["alternate", "any", "same_suit"]
Runs = Literal["any", "single"]
FoundationBase = Literal["ace", "first_card"]

HOUSE_RULES = ("foundation_return",)


@dataclass(frozen=True)
class Rules:
    """House rules chosen for one game; ``None`` keeps the variant's own default."""

    foundation_return: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {"foundation_return": self.foundation_return}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Rules:
        if not data:
            return cls()
        unknown = set(data) - set(HOUSE_RULES)
        if unknown:
            raise InvalidMove(
                "unknown_rule", "unknown house rule(s): {rules}", rules=", ".join(sorted(unknown))
            )
        value = data.get("foundation_return")
        if value is not None and not isinstance(value, bool):
            raise InvalidMove("bad_rule", "foundation_return must be true, false or null")
        return cls(foundation_return=value)


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    decks: int
    tableau_piles: int
    # One entry per dealing round over the tableau: True deals that round face up.
    tableau_rounds: tuple[bool, ...]
    build: Build
    runs: Runs
    aliases: tuple[str, ...] = ()
    deal_right_to_left: bool = False
    build_wrap: bool = False
    foundation_base: FoundationBase = "ace"
    foundation_wrap: bool = False
    foundation_return: bool = False
    draw: int = 1
    redeals: int | None = 0  # None: unlimited
    reserve_size: int = 0
    reserve_fills_empty: bool = False
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def foundation_count(self) -> int:
        return 4 * self.decks

    @property
    def card_count(self) -> int:
        return 52 * self.decks

    @property
    def hidden_rounds(self) -> int:
        return self.tableau_rounds.count(False)

    def with_rules(self, rules: Rules | None) -> Variant:
        """This variant under house rules: the same value each time for the same rules,
        so its lookup tables are built once (every load of a ruled game asks for it)."""
        if rules is None or rules.foundation_return is None:
            return self
        if rules.foundation_return == self.foundation_return:
            return self
        ruled = self._ruled.get(rules.foundation_return)
        if ruled is None:
            ruled = replace(self, foundation_return=rules.foundation_return)
            self._ruled[rules.foundation_return] = ruled
        return ruled

    @cached_property
    def _ruled(self) -> dict[bool, Variant]:
        # foundation_return -> the ruled copy; at most one entry per house rule value.
        return {}

    def house_rules(self) -> list[str]:
        return list(HOUSE_RULES)

    # Lookup tables for the hot path, built once per variant value.
    @cached_property
    def stack_ok(self) -> tuple[bool, ...]:
        """``stack_ok[target * 52 + moving]``: may ``moving`` go on ``target`` in the tableau."""
        table = []
        for target in range(52):
            for moving in range(52):
                table.append(self._stack_reason(target, moving) is None)
        return tuple(table)

    @cached_property
    def accepted_by(self) -> tuple[tuple[int, ...], ...]:
        """``accepted_by[target]``: the cards that may go on ``target`` in the tableau."""
        ok = self.stack_ok
        return tuple(tuple(m for m in range(52) if ok[t * 52 + m]) for t in range(52))

    def base_cards(self, rank: int) -> tuple[int, ...]:
        """The four cards an empty foundation takes when it starts at ``rank``."""
        return _BASE_CARDS[rank]

    @cached_property
    def found_next(self) -> tuple[int, ...]:
        """``found_next[top]``: the card a foundation topped by ``top`` takes next (-1: none)."""
        table = []
        for top in range(52):
            rank = RANK[top]
            if rank < 13:
                table.append(top + 1)
            else:
                table.append(top - 12 if self.foundation_wrap else -1)
        return tuple(table)

    def _stack_reason(self, target: int, moving: int) -> Reason | None:
        if self.build == "alternate" and RED[target] == RED[moving]:
            return (
                "wrong_colour",
                N_("the tableau builds in alternating colours (red on black, black on red)"),
                {},
            )
        if self.build == "same_suit" and SUIT[target] != SUIT[moving]:
            return "wrong_suit", N_("the tableau builds down in suit"), {}
        if RANK[moving] == RANK[target] - 1:
            return None
        if RANK[target] == 1 and RANK[moving] == 13:
            if self.build_wrap:
                return None
            return "nothing_on_ace", N_("nothing may be built on an Ace"), {}
        return (
            "not_one_rank_lower",
            N_("a card goes only on a card one rank higher ({moving} is not one below {target})"),
            {"moving": RankName(RANK[moving]), "target": RankName(RANK[target])},
        )

    def stack_reason(self, target: int, moving: int) -> Reason | None:
        """Why ``moving`` may not go on ``target`` (code, message template, parameters),
        or None when it may."""
        return self._stack_reason(target, moving)

    def describe(self) -> list[str]:
        """The rules in words, derived from the parameters."""
        return [template.format(**params) for template, params in self.rule_texts()]

    def rule_texts(self) -> list[tuple[str, dict[str, Any]]]:
        """The rules in words as English templates and their parameters (what
        :meth:`describe` formats): one whole sentence per template, so that a layer above
        can word each in another language. Counts are parameters; the template says
        "card" or "cards" as the count needs."""
        return [
            self._deal_text(),
            *self._reserve_text(),
            self._foundation_text(),
            self._build_text(),
            self._runs_text(),
            self._empty_pile_text(),
            self._stock_text(),
            self._return_text(),
            *((note, {}) for note in self.notes),
        ]

    def _deal_text(self) -> tuple[str, dict[str, Any]]:
        ups = self.tableau_rounds.count(True)
        downs = self.hidden_rounds
        size = len(self.tableau_rounds)
        params = {"piles": self.tableau_piles, "size": size, "down": downs, "up": ups}
        key = (self.decks == 2, size > 1, downs > 0)
        return _DEAL_TEXTS[key], params

    def _reserve_text(self) -> list[tuple[str, dict[str, Any]]]:
        if not self.reserve_size:
            return []
        template = N_(
            "A reserve of {size} cards, face down but for its top card, which is playable; "
            "nothing is put on it."
        )
        return [(template, {"size": self.reserve_size})]

    def _foundation_text(self) -> tuple[str, dict[str, Any]]:
        if self.foundation_base == "first_card":
            template = N_(
                "{count} foundations build up in suit from the rank of the first card dealt "
                "(the base rank), wrapping from King to Ace."
            )
        else:
            template = N_(
                "{count} foundations build up in suit from Ace to King; any empty foundation "
                "takes any Ace."
            )
        return template, {"count": self.foundation_count}

    def _build_text(self) -> tuple[str, dict[str, Any]]:
        return _BUILD_TEXTS[(self.build, self.build_wrap)], {}

    def _runs_text(self) -> tuple[str, dict[str, Any]]:
        if self.runs == "any":
            return N_("Any face-up card moves together with the ordered run above it."), {}
        return N_("Only one card moves at a time."), {}

    def _empty_pile_text(self) -> tuple[str, dict[str, Any]]:
        if self.reserve_fills_empty:
            template = N_(
                "An empty tableau pile is filled at once from the reserve; once the reserve is "
                "empty, an empty pile takes any card."
            )
        elif self.runs == "any":
            template = N_("An empty tableau pile takes any card or run.")
        else:
            template = N_("An empty tableau pile takes any card.")
        return template, {}

    def _stock_text(self) -> tuple[str, dict[str, Any]]:
        passes = {None: "unlimited", 0: "none"}.get(self.redeals, "some")
        return _STOCK_TEXTS[(self.draw > 1, passes)], {
            "draw": self.draw,
            "redeals": self.redeals,
        }

    def _return_text(self) -> tuple[str, dict[str, Any]]:
        if self.foundation_return:
            return N_(
                "The top card of a foundation may return to a tableau pile that takes it."
            ), {}
        return N_("Cards on the foundations never return to play."), {}


# (code, message template, its parameters): why a card may not go on another.
Reason = tuple[str, str, dict[str, Any]]

# The deal in words, by (two decks, more than one card a pile, some face down).
_DEAL_TEXTS = {
    (True, True, True): N_(
        "Played with two decks (104 cards); {piles} tableau piles of {size} cards, "
        "{down} face down under {up} face up."
    ),
    (True, True, False): N_(
        "Played with two decks (104 cards); {piles} tableau piles of {size} cards, all face up."
    ),
    (True, False, False): N_(
        "Played with two decks (104 cards); {piles} tableau piles of {size} card, all face up."
    ),
    (False, True, True): N_(
        "Played with one deck (52 cards); {piles} tableau piles of {size} cards, "
        "{down} face down under {up} face up."
    ),
    (False, True, False): N_(
        "Played with one deck (52 cards); {piles} tableau piles of {size} cards, all face up."
    ),
    (False, False, False): N_(
        "Played with one deck (52 cards); {piles} tableau piles of {size} card, all face up."
    ),
}

# How the tableau builds, by (build, wrap).
_BUILD_TEXTS = {
    ("alternate", False): N_("The tableau builds down in alternating colours, no wrap."),
    ("alternate", True): N_(
        "The tableau builds down in alternating colours, wrapping (a King goes on an Ace)."
    ),
    ("any", False): N_("The tableau builds down regardless of suit, no wrap."),
    ("any", True): N_(
        "The tableau builds down regardless of suit, wrapping (a King goes on an Ace)."
    ),
    ("same_suit", False): N_("The tableau builds down in suit, no wrap."),
    ("same_suit", True): N_("The tableau builds down in suit, wrapping (a King goes on an Ace)."),
}

# The stock, by (more than one card a draw, redeals: none, some or unlimited).
_STOCK_TEXTS = {
    (False, "none"): N_("The stock deals {draw} card at a time to the waste, one pass, no redeal."),
    (False, "some"): N_("The stock deals {draw} card at a time to the waste, {redeals} redeals."),
    (False, "unlimited"): N_(
        "The stock deals {draw} card at a time to the waste, unlimited redeals."
    ),
    (True, "none"): N_("The stock deals {draw} cards at a time to the waste, one pass, no redeal."),
    (True, "some"): N_("The stock deals {draw} cards at a time to the waste, {redeals} redeals."),
    (True, "unlimited"): N_(
        "The stock deals {draw} cards at a time to the waste, unlimited redeals."
    ),
}

_BASE_CARDS = {rank: tuple(suit * 13 + rank - 1 for suit in range(4)) for rank in range(1, 14)}

_RANK_AND_FILE = Variant(
    name="rank-and-file",
    title=N_("Rank and File"),
    aliases=("dress-parade",),
    decks=2,
    tableau_piles=10,
    tableau_rounds=(False, False, False, True),
    build="alternate",
    runs="any",
)

_ROWS_OF_FOUR = Variant(
    name="rows-of-four",
    title=N_("Rows of Four"),
    decks=2,
    tableau_piles=8,
    tableau_rounds=(True, True, True, True),
    build="any",
    runs="single",
    foundation_return=True,
    redeals=2,
)

_RAINBOW = Variant(
    name="rainbow",
    title=N_("Rainbow"),
    aliases=("rainbow-canfield",),
    decks=1,
    tableau_piles=4,
    tableau_rounds=(True,),
    deal_right_to_left=True,
    build="any",
    build_wrap=True,
    runs="any",
    foundation_base="first_card",
    foundation_wrap=True,
    foundation_return=True,
    reserve_size=13,
    reserve_fills_empty=True,
)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        _RANK_AND_FILE,
        _ROWS_OF_FOUR,
        _RAINBOW,
        replace(_RANK_AND_FILE, name="deauville", title=N_("Deauville"), aliases=(), runs="single"),
        replace(
            _RANK_AND_FILE,
            name="emperor",
            title=N_("Emperor"),
            aliases=(),
            runs="single",
            foundation_return=True,
        ),
        replace(
            _RANK_AND_FILE,
            name="number-ten",
            title=N_("Number Ten"),
            aliases=(),
            tableau_rounds=(False, False, True, True),
        ),
        Variant(
            name="forty-thieves",
            title=N_("Forty Thieves"),
            decks=2,
            tableau_piles=10,
            tableau_rounds=(True, True, True, True),
            build="same_suit",
            runs="single",
        ),
        replace(_ROWS_OF_FOUR, name="diplomat", title=N_("Diplomat"), redeals=0),
        replace(
            _RAINBOW,
            name="canfield",
            title=N_("Canfield"),
            aliases=(),
            build="alternate",
            draw=3,
            redeals=None,
            foundation_return=False,
        ),
    )
}

_BY_ALIAS = {alias: v for v in VARIANTS.values() for alias in (v.name, *v.aliases)}


def get_variant(name: str) -> Variant:
    """The variant with this id or alias (case-insensitive, ``_`` or space for ``-``)."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    try:
        return _BY_ALIAS[key]
    except KeyError:
        raise UnknownVariant(
            "unknown_variant",
            "no game is called {name!r}; known: {known}",
            name=name,
            known=", ".join(VARIANTS),
        ) from None
