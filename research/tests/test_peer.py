"""research/peer.py hands our deals to a peer solver: the deal file must be the deal, card
for card, in the peer's orientation (the peer itself is not part of the project)."""

from __future__ import annotations

import json
from collections import Counter
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

from app.engine import CODE, deal, get_variant


def peer() -> ModuleType:
    return import_module("research.peer")


@pytest.mark.parametrize("game", ["canfield", "rainbow", "forty-thieves"])
def test_the_deal_file_holds_every_card_where_the_deal_put_it(game: str) -> None:
    module = peer()
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
    contradicts = peer().contradicts
    assert contradicts("unsolvable", "solved", "inside")  # their line is legal in ours
    assert not contradicts("solved", "unsolvable", "inside")  # their game is smaller
    assert contradicts("solved", "unsolvable", "same")
    assert not contradicts("unknown", "solved", "same")
    assert not contradicts("unsolvable", "timed-out", "same")


def test_a_stopped_run_resumes_after_the_deals_it_wrote(tmp_path: Path) -> None:
    done_before = peer().done_before
    out = tmp_path / "peer.jsonl"
    assert done_before(out) == set()  # no file yet: nothing to skip
    rows = [{"game": "forty-thieves", "deal": 22, "ours": "unsolvable", "solvitaire": "x"}]
    rows.append({"game": "canfield", "deal": 90, "ours": "solved", "solvitaire": "y"})
    out.write_text("".join(json.dumps(row) + "\n" for row in rows) + "\n")
    assert done_before(out) == {("forty-thieves", 22), ("canfield", 90)}
    assert done_before(None) == set()


def test_a_rerun_asks_only_the_deals_not_written_and_mends_a_torn_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``main`` end to end, with a stand-in for the peer's binary that notes how it is
    called: with the cache bound asked for; a deal already in ``--out`` is not asked
    again; the deal of a torn last line (a run stopped mid-write) is, and its row starts
    on a line of its own."""
    asked = tmp_path / "asked"
    binary = tmp_path / "solvitaire"
    binary.write_text(f'#!/bin/sh\necho "$*" >> {asked}\necho Solved\n')
    binary.chmod(0o755)
    rows = tmp_path / "forty-thieves-10m.jsonl"
    rows.write_text("".join(json.dumps({"deal": n, "result": "solved"}) + "\n" for n in (3, 4, 5)))
    out = tmp_path / "peer.jsonl"
    written = {"game": "forty-thieves", "deal": 3, "ours": "solved", "solvitaire": "solved"}
    out.write_text(json.dumps(written) + "\n" + '{"game": "forty-thieves", "de')
    argv = ["peer.py", "--solvitaire", str(binary), "--rows", str(rows), "--out", str(out)]
    argv += ["--cache-capacity", "1000"]
    monkeypatch.setattr("sys.argv", argv)
    assert peer().main() == 0
    capsys.readouterr()
    calls = [line.split() for line in asked.read_text().splitlines()]
    assert [Path(call[-1]).name for call in calls] == [
        "forty-thieves-4.json",
        "forty-thieves-5.json",
    ]
    assert all(" --cache-capacity 1000 " in " ".join(call) for call in calls)
    lines = out.read_text().splitlines()
    assert lines[1] == '{"game": "forty-thieves", "de'  # the torn line, ended
    assert [json.loads(line)["deal"] for line in lines[2:]] == [4, 5]
    assert peer().done_before(out) == {("forty-thieves", n) for n in (3, 4, 5)}
