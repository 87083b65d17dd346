"""The bounded map behind this process's small memories (`services.kit.bounded_map.BoundedMap`):
never more than its size, the oldest put goes first, and a key held already is
replaced without another entry going."""

from __future__ import annotations

import pytest

from app.services.kit.bounded_map import BoundedMap


def test_it_holds_at_most_its_size() -> None:
    held: BoundedMap[int, str] = BoundedMap(3)
    for key in range(10):
        held.put(key, str(key))
        assert len(held) <= 3
    assert len(held) == 3


def test_the_oldest_goes_first() -> None:
    held: BoundedMap[str, int] = BoundedMap(2)
    held.put("a", 1)
    held.put("b", 2)
    held.put("c", 3)  # full: a goes
    assert "a" not in held and held.get("a") is None
    assert dict(held) == {"b": 2, "c": 3}
    held.put("d", 4)  # then b
    assert list(held) == ["c", "d"]


def test_putting_a_held_key_replaces_it_and_drops_nothing() -> None:
    held: BoundedMap[str, int] = BoundedMap(2)
    held.put("a", 1)
    held.put("b", 2)
    held.put("b", 20)  # full, but b is held: a stays
    assert dict(held) == {"a": 1, "b": 20}
    held.put("a", 10)  # a put again is the newest: the next new key drops b
    held.put("c", 3)
    assert dict(held) == {"a": 10, "c": 3}


def test_pop_takes_an_entry_out() -> None:
    held: BoundedMap[str, int] = BoundedMap(2)
    held.put("a", 1)
    assert held.pop("a") == 1
    assert held.pop("a") is None
    assert len(held) == 0


def test_a_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        BoundedMap(0)
