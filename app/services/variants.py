"""The games offered, as the API describes them."""

from __future__ import annotations

from typing import Any, Literal

from app.engine import VARIANTS, UnknownVariant, Variant, get_variant
from app.errors import UnknownVariantError, VariantNotFound


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


def find_variant(name: str, *, where: Literal["path", "body"] = "path") -> Variant:
    """The variant for an id or alias. Unknown: named in the path, the resource is
    missing (404 variant_not_found); named in a request body, the request is wrong
    (422 unknown_variant). The one rule, on every endpoint (app.errors)."""
    try:
        return get_variant(name)
    except UnknownVariant as exc:
        error = VariantNotFound if where == "path" else UnknownVariantError
        raise error(exc.message) from exc
