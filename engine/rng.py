"""Deterministic shuffles from an integer seed, identical on every platform.

Each stream is SHA-256 in counter mode over ``"<namespace>:<seed>:<label>:<counter>"`` (the namespace is
the game's key, so two games never share a stream);
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


def words(seed: int, label: str, namespace: str = "call-to-glory") -> Iterator[int]:
    """The stream of 64-bit words of (namespace, seed, label)."""
    counter = 0
    while True:
        digest = hashlib.sha256(f"{namespace}:{seed}:{label}:{counter}".encode()).digest()
        yield from struct.unpack(">4Q", digest)
        counter += 1


def below(stream: Iterator[int], n: int) -> int:
    """A whole number from 0 to ``n`` - 1, uniformly, from the stream (rejection sampling)."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        w = next(stream)
        if w < limit:
            return w % n


def shuffled(items: Sequence[T], seed: int, label: str, namespace: str = "call-to-glory") -> list[T]:
    """Return a new list with ``items`` shuffled by the stream of (namespace, seed, label)."""
    out = list(items)
    stream = words(seed, label, namespace)
    for i in range(len(out) - 1, 0, -1):
        j = below(stream, i + 1)
        out[i], out[j] = out[j], out[i]
    return out
