from __future__ import annotations

from fastapi import APIRouter

from app.deps import SessionDep, SettingsDep
from app.errors import VariantNotFound
from app.routers.common import errors
from app.schemas import VariantOut
from app.services import variants

router = APIRouter(prefix="/variants", tags=["variants"])


@router.get("", name="list_variants", response_model=list[VariantOut], summary="Games offered")
async def list_variants(session: SessionDep, settings: SettingsDep) -> list[VariantOut]:
    return await variants.list_variants(session, settings.seeds_dir)


@router.get(
    "/{variant_id}",
    name="get_variant",
    response_model=VariantOut,
    responses=errors(VariantNotFound),
    summary="One game, by id or alias",
)
async def get_variant(variant_id: str, session: SessionDep, settings: SettingsDep) -> VariantOut:
    return await variants.describe_variant(session, settings.seeds_dir, variant_id)
