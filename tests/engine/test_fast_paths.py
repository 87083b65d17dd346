"""The shortcuts of an answer against their slow, reference forms, over random play of
every variant (both house rules): the clicks read in one pass from the legal moves
(`clicks_from_legal`, what the public view uses) are `click_moves`' answers, which try
each card's candidates in order, and `resolve_click`'s for every card; `status_given`
reads the same status as `status` from the legal moves the answer lists anyway."""

from __future__ import annotations

import contextlib
import random

from hypothesis import given
from hypothesis import strategies as st

from app.engine import VARIANTS, EngineError, Rules, State, resolve_click
from app.engine.deal import deal
from app.engine.play import click_moves, clicks_from_legal

from .conftest import ALL


def _reference_clicks(state: State) -> dict[tuple[object, int], object]:
    """Every card's click as `resolve_click` answers it, one card at a time."""
    out: dict[tuple[object, int], object] = {}
    for pile, cards, down in state.piles():
        if pile.kind == "stock":
            with contextlib.suppress(EngineError):
                out[pile, -1] = resolve_click(state, pile)
            continue
        for index in range(down, len(cards)):
            with contextlib.suppress(EngineError):
                out[pile, index] = resolve_click(state, pile, index)
    return out


@given(
    variant=st.sampled_from(ALL),
    number=st.integers(1, 10**6),
    seed=st.integers(0, 2**32 - 1),
    foundation_return=st.sampled_from([None, True, False]),
    skip=st.integers(0, 300),
)
def test_fast_clicks_and_status_match_the_reference(
    variant: str, number: int, seed: int, foundation_return: bool | None, skip: int
) -> None:
    rng = random.Random(seed)
    state = deal(VARIANTS[variant], number, Rules(foundation_return=foundation_return))
    for step in range(skip + 40):
        legal = state.legal_moves()
        if step >= skip:
            fast = clicks_from_legal(state, legal)
            assert fast == click_moves(state)
            assert fast == _reference_clicks(state)
            assert state.status_given(legal) == state.status
            assert state.view(legal=legal) == state.view()
        if not legal:
            break
        home = [m for m in legal if m.dst is not None and m.dst.kind == "foundation"]
        move = rng.choice(home) if home and rng.random() < 0.5 else rng.choice(legal)
        state, _ = state.apply(move, auto_finish=rng.random() < 0.5)
