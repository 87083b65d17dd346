"""A map of at most `size` entries where the oldest goes: this process's small
memories (positions by their bytes, games as last written, players by token hash).

Not locked: each is used from the event loop's one thread only, as the maps it
replaces were.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMap(Mapping[K, V]):
    """At most `size` entries. Putting a new key when full drops the entry put longest
    ago; putting a key already held replaces its value, drops nothing, and makes it the
    newest."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, not {size}")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        return self._entries[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)  # oldest first

    def __len__(self) -> int:
        return len(self._entries)

    def put(self, key: K, value: V) -> None:
        if key in self._entries:
            self._entries.move_to_end(key)
        elif len(self._entries) >= self.size:
            self._entries.popitem(last=False)  # full: the oldest goes
        self._entries[key] = value

    def pop(self, key: K) -> V | None:
        """Take the entry out: its value, or None when it is not held."""
        return self._entries.pop(key, None)
