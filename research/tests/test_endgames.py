"""research/endgames.py samples the endgames a depth-first walk over the core's moves and keys
meets and prices each one: the walk meets its budget of distinct positions, the sample
holds only endgames, no more than asked, and the prices are those of the native search."""

from __future__ import annotations

import random
from collections import Counter
from importlib import import_module

from app.engine import deal, get_variant
from app.solver import core
from tests.solver.test_native_core import walk


def test_the_sample_holds_only_endgames_and_no_more_than_asked() -> None:
    module = import_module("research.endgames")
    state = deal(get_variant("forty-thieves"), 5)
    keyed, endgames, sample = module.met(state, 3_000, 7, seed=1)
    assert keyed >= 3_000  # every child is keyed, repeats included
    assert 7 < endgames <= keyed  # this search reaches the end of the stock at once
    assert len(sample) == 7
    assert all(module.endgame(position) for position in sample)
    assert len({position.to_text() for position in sample}) == 7  # distinct positions


def test_every_child_keyed_is_counted_by_its_phase() -> None:
    module = import_module("research.endgames")
    for name in ("canfield", "forty-thieves"):  # run arrangement holds in one, not the other
        phases: Counter[str] = Counter()
        state = deal(get_variant(name), 2)
        keyed, endgames, _sample = module.met(state, 2_000, 5, 1, phases)
        assert sum(phases.values()) == keyed >= 2_000
        out = sum(count for label, count in phases.items() if label.startswith("stock out"))
        assert out == endgames


def test_a_search_that_never_empties_the_stock_samples_nothing() -> None:
    module = import_module("research.endgames")
    keyed, endgames, sample = module.met(deal(get_variant("rainbow"), 5), 50, 7, seed=1)
    assert (endgames, sample) == (0, [])
    assert keyed >= 50


def test_each_endgame_is_priced_by_the_search_alone() -> None:
    module = import_module("research.endgames")
    state = deal(get_variant("rainbow"), 3)
    late = list(walk(state, random.Random(3), 400, greedy=False))[-1]
    verdicts, taken = module.cost([late, late], 100_000)
    alone = core.search(late, core.SearchLimits(100_000, arranged=True))
    assert verdicts == {alone.result: 2}
    assert taken == [alone.positions, alone.positions]
    assert "2 " + alone.result in module.describe("as dealt", verdicts, taken)
