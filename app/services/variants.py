"""The games offered, as the API describes them."""

from __future__ import annotations

from typing import Any

from app.engine import VARIANTS, UnknownVariant, Variant, get_variant
from app.errors import ApiError


def variant_json(variant: Variant) -> dict[str, Any]:
    return {
        "id": variant.name,
        "name": variant.title,
        "aliases": list(variant.aliases),
        "decks": variant.decks,
        "tableau_piles": variant.tableau_piles,
        "foundations": variant.foundation_count,
        "reserve_size": variant.reserve_size,
        "redeals": variant.redeals,
        "rules": variant.describe(),
        "house_rules": [
            {"name": rule, "default": bool(getattr(variant, rule))}
            for rule in variant.house_rules()
        ],
    }


def list_variants() -> list[dict[str, Any]]:
    return [variant_json(v) for v in VARIANTS.values()]


def find_variant(name: str, *, status: int = 404) -> Variant:
    """The variant for an id or alias; 404 for a path, 422 for a request body."""
    try:
        return get_variant(name)
    except UnknownVariant as exc:
        code = "variant_not_found" if status == 404 else "unknown_variant"
        raise ApiError(code, status, exc.message) from exc
