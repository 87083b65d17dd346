from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import APIRouter, Response

from app.deps import LanguageDep, SessionDep, SettingsDep
from app.errors import VariantNotFound
from app.routers.common import IfNoneMatch, errors, etag_matches, not_modified
from app.routers.games import SolvableDealsDep
from app.schemas import VariantOut
from app.services import variants

router = APIRouter(prefix="/variants", tags=["variants"])

_TAG: dict[str, Any] = {
    "ETag": {
        "description": "Of this answer, in its language (`Content-Language`): the same "
        "game in another language has another tag.",
        "schema": {"type": "string"},
    }
}
_CACHED: dict[int | str, dict[str, Any]] = {200: {"headers": _TAG}, 304: not_modified(_TAG)}


def _etag(language: str, answer: Any) -> str:
    """The tag of an answer: its language and a digest of its body (the texts are in
    that language; `solvable_ready` and `solvable_by_rating` change as deals are proven and
    dealt, and as the estimates are measured again)."""
    body = json.dumps(answer, sort_keys=True, separators=(",", ":")).encode()
    return f'"{language}.{hashlib.sha256(body).hexdigest()[:32]}"'


def _answer(
    response: Response, language: str, body: Any, if_none_match: str | None
) -> Response | None:
    tag = _etag(language, body)
    if if_none_match and etag_matches(if_none_match, tag):
        return Response(status_code=304, headers={"ETag": tag})
    response.headers["ETag"] = tag
    return None


@router.get(
    "",
    name="list_variants",
    response_model=list[VariantOut],
    responses=_CACHED,
    summary="Games offered",
)
async def list_variants(
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    language: LanguageDep,
    deals: SolvableDealsDep,
    if_none_match: IfNoneMatch = None,
) -> list[VariantOut] | Response:
    answer = await variants.list_variants(session, settings.seeds_dir, language, deals)
    body = [item.model_dump(mode="json") for item in answer]
    return _answer(response, language, body, if_none_match) or answer


@router.get(
    "/{variant_id}",
    name="get_variant",
    response_model=VariantOut,
    responses={**_CACHED, **errors(VariantNotFound)},
    summary="One game, by id or alias",
)
async def get_variant(
    variant_id: str,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    language: LanguageDep,
    deals: SolvableDealsDep,
    if_none_match: IfNoneMatch = None,
) -> VariantOut | Response:
    answer = await variants.describe_variant(
        session, settings.seeds_dir, variant_id, language, deals
    )
    return _answer(response, language, answer.model_dump(mode="json"), if_none_match) or answer
