"""research/peer.py hands our deals to a peer solver: the deal file must be the deal, card
for card, in the peer's orientation (the peer itself is not part of the project)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.engine import CODE, deal, get_variant
from research import dataset, peer
from research.tests.helpers import add_survey, fresh

M = 1_000_000


@pytest.mark.parametrize("game", ["canfield", "rainbow", "forty-thieves"])
def test_the_deal_file_holds_every_card_where_the_deal_put_it(game: str) -> None:
    module = peer
    state = deal(get_variant(game), 7)
    out = module.deal_json(state)
    cards = [
        *(card for pile in out["tableau piles"] for card in pile),
        *out["stock"],
        *out.get("reserve", []),
        *out.get("foundations", []),
    ]
    deck = Counter(text for text in cards)
    assert sum(deck.values()) == 52 * state.variant.decks
    assert set(deck.values()) == {state.variant.decks}  # each card once per deck
    assert all(len(text) in (2, 3) and not text.startswith("T") for text in deck)  # "10H"
    # The peer deals the stock's last card first and plays the reserve's last: as ours.
    assert out["stock"][-1] == module.card_text(state.stock[-1])
    assert out["tableau piles"][0][-1] == module.card_text(state.tableau[0][-1])
    if state.reserve:
        assert out["reserve"][-1] == module.card_text(state.reserve[-1])
        assert out["foundations"] == [module.card_text(f[0]) for f in state.foundations if f]
    assert module.card_text(next(c for c in range(52) if CODE[c] == "TD")) == "10D"


def test_which_verdicts_contradict() -> None:
    contradicts = peer.contradicts
    assert contradicts("unsolvable", "solved", "inside")  # their line is legal in ours
    assert not contradicts("solved", "unsolvable", "inside")  # their game is smaller
    assert contradicts("solved", "unsolvable", "same")
    assert not contradicts("unknown", "solved", "same")
    assert not contradicts("unsolvable", "timed-out", "same")


def test_a_rerun_asks_only_the_deals_not_answered_and_records_each_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``main`` end to end, with a stand-in for the peer's binary that notes how it is
    called: with the cache bound asked for, on the deals whose verdict is the one asked
    (ours, from the dataset), each answer a row; a deal already answered with the same
    settings is not asked again, nor one not asked for."""
    asked = tmp_path / "asked"
    binary = tmp_path / "solvitaire"
    binary.write_text(f'#!/bin/sh\necho "$*" >> {asked}\necho Solved\n')
    binary.chmod(0o755)
    path, connection = fresh(tmp_path)
    add_survey(connection, "forty-thieves", M, "native", *((n, "solved") for n in (3, 4, 5)))
    add_survey(connection, "forty-thieves", M, "native", (6, "unknown"))
    argv = ["forty-thieves", "--solvitaire", str(binary), "--budget", "1m", "--deals", "6"]
    argv += ["--only", "solved", "--cache-capacity", "1000", "--dataset", str(path)]
    assert peer.main([*argv, "--deal", "3"]) == 0
    assert peer.main(argv) == 0
    capsys.readouterr()
    calls = [line.split() for line in asked.read_text().splitlines()]
    assert [Path(call[-1]).name for call in calls] == [
        "forty-thieves-3.json",
        "forty-thieves-4.json",
        "forty-thieves-5.json",
    ]
    assert all(" --cache-capacity 1000 " in " ".join(call) for call in calls)
    settings = {"solver": "solvitaire", "timeout": 60.0, "cache_capacity": 1000}
    assert peer.done_before(connection, "forty-thieves", settings) == {3, 4, 5}
    rows = connection.execute("SELECT * FROM searches WHERE kind = 'peer'").fetchall()
    assert {(row["verdict"], dataset.extra(row)["ours"]) for row in rows} == {("solved", "solved")}
    assert dataset.contradictions(connection) == []  # a peer's word is not a row of ours
