from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.errors import VariantNotFound
from app.routers.common import errors
from app.schemas import VariantOut
from app.services import variants

router = APIRouter(prefix="/variants", tags=["variants"])


@router.get("", name="list_variants", response_model=list[VariantOut], summary="Games offered")
async def list_variants() -> list[dict[str, Any]]:
    return variants.list_variants()


@router.get(
    "/{variant_id}",
    name="get_variant",
    response_model=VariantOut,
    responses=errors(VariantNotFound),
    summary="One game, by id or alias",
)
async def get_variant(variant_id: str) -> dict[str, Any]:
    return variants.variant_json(variants.find_variant(variant_id))
