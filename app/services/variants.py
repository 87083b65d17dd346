"""The games offered, as the API describes them: the rules in words and as data, and
what is ready to deal (solvable deals in the pool, of each rating, with a measured
estimate for a rating with none; proven deals in `seeds/`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.engine import VARIANTS, UnknownVariant, Variant, deal, get_variant
from app.errors import UnknownVariantError, VariantNotFound
from app.i18n import N_, gettext, translate
from app.models import SolvableDeal
from app.schemas import VariantOut
from app.seeds import public_deals
from app.services.background.solvable_pools import SolvableDeals
from app.solver.difficulty import LEVELS

log = logging.getLogger(__name__)

HOUSE_RULE_TEXT = {
    "foundation_return": N_("The top card of a foundation may be played back to the tableau."),
}


@cache
def _opening(variant: Variant) -> tuple[int, int]:
    """Cards in the stock and on the foundations when a deal starts (the same for every
    deal of a variant)."""
    start = deal(variant, 1)
    return len(start.stock), sum(len(f) for f in start.foundations)


def rules_data(variant: Variant) -> dict[str, Any]:
    """The rules as data a UI can show (the same facts as `Variant.describe`)."""
    stock, on_foundations = _opening(variant)
    rounds = len(variant.tableau_rounds)
    return {
        "tableau": {
            "piles": variant.tableau_piles,
            "cards_per_pile": rounds,
            "face_down_per_pile": variant.hidden_rounds,
            # Round by round, bottom first: true deals that round face up.
            "rounds_face_up": list(variant.tableau_rounds),
            "dealt": "right_to_left" if variant.deal_right_to_left else "left_to_right",
            "build": variant.build,
            "build_direction": "down",
            "build_wrap": variant.build_wrap,
            "runs": variant.runs,
            "empty_pile": "from_reserve" if variant.reserve_fills_empty else "any_card",
        },
        "foundation": {
            "count": variant.foundation_count,
            "base": variant.foundation_base,
            "base_rank": 1 if variant.foundation_base == "ace" else None,
            "build": "same_suit",
            "build_direction": "up",
            "wrap": variant.foundation_wrap,
            "dealt": on_foundations,
            "return_to_tableau": variant.foundation_return,
        },
        "stock": {"cards": stock, "draw": variant.draw, "redeals": variant.redeals},
        "reserve": (
            {
                "size": variant.reserve_size,
                "top_playable": True,
                "fills_empty_tableau": variant.reserve_fills_empty,
            }
            if variant.reserve_size
            else None
        ),
    }


@dataclass(frozen=True)
class Pools:
    """The solvable pools as a request finds them: unused proven deals by variant and
    rating (None: unrated), and the measures of `SolvableDeals` that tell how long a
    rating with none will take (None: no ratings on this server)."""

    unused: dict[str, dict[str | None, int]]
    deals: SolvableDeals | None = None
    filling: frozenset[str] = frozenset()

    def ready(self, variant: str) -> int:
        return sum(self.unused.get(variant, {}).values())

    def by_rating(self, variant: str) -> list[dict[str, Any]]:
        """Per rating, what `POST /games` with that difficulty does now: dealt at once
        (`ready` > 0), else 503 with the Retry-After `SolvableDeals.retry_after` gives."""
        if self.deals is None:
            return []
        counts = self.unused.get(variant, {})
        answer = []
        for level in LEVELS:
            ready = counts.get(level, 0)
            wait = None if ready else self.deals.estimate(variant, level, set(self.filling))
            answer.append({"difficulty": level, "ready": ready, "retry_after_seconds": wait})
        return answer


def variant_json(
    variant: Variant,
    *,
    seeds_dir: Path | None = None,
    pools: Pools | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """A variant as the API shows it, its name and rules in words in `language` (default:
    the request's; app.i18n); ids, aliases and the rules as data never change."""
    solvable_ready = None if pools is None else pools.ready(variant.name)
    return {
        "id": variant.name,
        "name": gettext(variant.title, language),
        "aliases": list(variant.aliases),
        "decks": variant.decks,
        "tableau_piles": variant.tableau_piles,
        "foundations": variant.foundation_count,
        "reserve_size": variant.reserve_size,
        "redeals": variant.redeals,
        "rules": [
            translate(template, params, language) for template, params in variant.rule_texts()
        ],
        "house_rules": [
            {
                "name": rule,
                "default": bool(getattr(variant, rule)),
                "description": gettext(HOUSE_RULE_TEXT[rule], language),
            }
            for rule in variant.house_rules()
        ],
        **rules_data(variant),
        "solvable_available": bool(solvable_ready),
        "solvable_ready": solvable_ready,
        "solvable_by_rating": None if pools is None else pools.by_rating(variant.name),
        "seeded_deals": len(public_deals(seeds_dir, variant.name)) if seeds_dir else 0,
    }


async def solvable_pools(session: AsyncSession, deals: SolvableDeals | None) -> Pools | None:
    """Unused proven deals in the solvable pools, per variant and rating, and (where
    deals are rated) the games whose pools fill now, for the estimates; None when the
    database cannot be asked (the catalogue is answered all the same)."""
    query = (
        select(SolvableDeal.variant, SolvableDeal.difficulty, func.count())
        .where(SolvableDeal.dealt_at.is_(None))
        .group_by(SolvableDeal.variant, SolvableDeal.difficulty)
    )
    rated = deals if deals is not None and deals.settings.difficulty_games else None
    try:
        async with unit_of_work(session, write=False):
            rows = (await session.execute(query)).all()
        filling = await rated.filling(session) if rated is not None else set()
    except (SQLAlchemyError, OSError) as exc:
        log.warning("variants: the solvable pools could not be counted: %s", exc)
        return None
    unused: dict[str, dict[str | None, int]] = {}
    for name, difficulty, count in rows:
        unused.setdefault(str(name), {})[difficulty] = int(count)
    return Pools(unused, rated, frozenset(filling))


async def list_variants(
    session: AsyncSession,
    seeds_dir: Path,
    language: str | None = None,
    deals: SolvableDeals | None = None,
) -> list[VariantOut]:
    pools = await solvable_pools(session, deals)
    return [
        VariantOut.model_validate(
            variant_json(v, seeds_dir=seeds_dir, pools=pools, language=language)
        )
        for v in VARIANTS.values()
    ]


async def describe_variant(
    session: AsyncSession,
    seeds_dir: Path,
    name: str,
    language: str | None = None,
    deals: SolvableDeals | None = None,
) -> VariantOut:
    variant = find_variant(name)
    pools = await solvable_pools(session, deals)
    return VariantOut.model_validate(
        variant_json(variant, seeds_dir=seeds_dir, pools=pools, language=language)
    )


def find_variant(name: str, *, where: Literal["path", "body"] = "path") -> Variant:
    """The variant for an id or alias. Unknown: named in the path, the resource is
    missing (404 variant_not_found); named in a request body, the request is wrong
    (422 unknown_variant). The one rule, on every endpoint (app.errors)."""
    try:
        return get_variant(name)
    except UnknownVariant as exc:
        error = VariantNotFound if where == "path" else UnknownVariantError
        raise error(exc.template, params=exc.params) from exc
