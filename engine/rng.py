"""Deterministic shuffles from an integer seed, identical on every platform.

Each stream is SHA-256 in counter mode over ``"call-to-glory:<seed>:<label>:<counter>"``;
integers below ``n`` come from 64-bit words by rejection sampling, and a shuffle is
Fisher-Yates from the last position down. Nothing depends on Python's ``random``
or on hash randomisation, so a seed means the same cards everywhere, forever.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")


def _words(seed: int, label: str) -> Iterator[int]:
    counter = 0
    while True:
        digest = hashlib.sha256(f"call-to-glory:{seed}:{label}:{counter}".encode()).digest()
        yield from struct.unpack(">4Q", digest)
        counter += 1


def shuffled(items: Sequence[T], seed: int, label: str) -> list[T]:
    """Return a new list with ``items`` shuffled by the stream of (seed, label)."""
    out = list(items)
    words = _words(seed, label)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            w = next(words)
            if w < limit:
                break
        j = w % n
        out[i], out[j] = out[j], out[i]
    return out
