"""A content-hash cache of tested candidates, so no candidate is ever tested twice.

Keys are 128-bit BLAKE2b digests of the candidate bytes; values say whether it was interesting.
Every candidate the engine will ever try from now on is smaller than the current best (at most as
long: edit/order.py), so an entry longer than the best can never be hit again: when the best
shrinks, those entries are evicted
(seed 002, ch. 4: most of the memory goes away and nothing useful is lost).
"""

from __future__ import annotations

import hashlib
import threading


def digest(candidate: bytes) -> bytes:
    """The cache key of a candidate."""
    return hashlib.blake2b(candidate, digest_size=16).digest()


class Cache:
    """Thread-safe map from candidate digest to outcome, bounded by the current best's size."""

    def __init__(self) -> None:
        # digest -> (size, interesting, rejected by the syntax check rather than the test)
        self._entries: dict[bytes, tuple[int, bool, bool]] = {}
        self._lock = threading.Lock()
        self._swept_at: int | None = None
        self.hits = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: bytes) -> bool | None:
        """The recorded outcome, counting a hit, or None if never seen."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self.hits += 1
            return entry[1]

    def put(self, key: bytes, size: int, interesting: bool, by_syntax: bool = False) -> None:
        with self._lock:
            self._entries[key] = (size, interesting, by_syntax)

    def forget_syntax_rejections(self) -> int:
        """Drop the entries the syntax check decided (before a pass that checks no syntax, whose
        test must answer them); returns how many."""
        with self._lock:
            rejected = [k for k, (_, _, by_syntax) in self._entries.items() if by_syntax]
            for k in rejected:
                del self._entries[k]
            return len(rejected)

    def shrink_to(self, best_size: int) -> int:
        """Evict every entry of more than `best_size` bytes; returns how many were evicted.

        Sweeping is linear in the cache, so it only happens once the best has shrunk by a tenth
        since the last sweep (amortized constant per commit).
        """
        with self._lock:
            if self._swept_at is not None and best_size > self._swept_at * 0.9:
                return 0
            self._swept_at = best_size
            stale = [k for k, (size, _, _) in self._entries.items() if size > best_size]
            for k in stale:
                del self._entries[k]
            return len(stale)
