"""Which way a change moves between the two kinds of thing one rule names.

Most rules tell a change from its reverse by which side of the arrow names what they read:
"NCCL_P2P_DISABLE=1 -> unset" takes P2P's disabling away. The transport rule cannot: "TCP ->
CUDA IPC" and "CUDA IPC -> TCP" both name a transport on each side, and the side its pattern
matches last said nothing about which way the data moved ("sockets -> IB" had read backwards,
"IB -> sockets" forwards). What tells it is the kind each side names: a direct path between
GPUs (CUDA IPC, P2P, NVLink, InfiniBand) or a fallback (TCP, sockets, shared host memory,
gloo). Such a rule names both (``toward = { to = PATTERN, away = PATTERN }`` in TOML): its own
A/B moves onto the ``to`` kind, and a change onto the ``away`` kind is that A/B reversed.

A side is of a kind where it names that kind and not the other ("UCX over TCP" is a fallback,
"NIXL over UCX sockets and CUDA IPC" neither). The sides are the arrow's, else "NEW instead of
OLD" in words, else the target of a move ("switch the backend to gloo", "fell back to TCP")
with no before side. A change whose after side is of no kind, or of the kind its before side
already was, is left to the rule's other readings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from casefile.domain.change_arrow import sides
from casefile.errors import RuleError

__all__ = ["Toward", "moved_toward", "toward_from"]

#: "NEW instead of OLD" in words (the arrow module reads only values so, not words)
_INSTEAD = re.compile(r"(?i)^(?P<new>.{1,200}?)\s+instead\s+of\s+(?P<old>.{1,200})$")
#: a verb that moves to something, and what it moves to (up to a clause's end)
_MOVED_TO = re.compile(
    r"(?i)\b(?:switch\w*|chang\w*|mov\w*|fall(?:s|ing)?\s+back|fell\s+back|forc\w*|revert\w*"
    r"|went|go(?:es)?|set)\b[^,;.]{0,40}?\b(?:to|onto)\s+(?P<new>[^,;]{1,80})"
)


@dataclass(frozen=True)
class Toward:
    """The two kinds a rule's changes move between: onto ``to`` is its own A/B."""

    to: str
    away: str

    def kind(self, side: str) -> str | None:
        """ "to" or "away" where ``side`` names one kind and not the other; else None."""
        onto = re.search(self.to, side, re.IGNORECASE) is not None
        off = re.search(self.away, side, re.IGNORECASE) is not None
        if onto == off:
            return None
        return "to" if onto else "away"


def moved_toward(toward: Toward, change: str) -> bool | None:
    """True where ``change`` moves onto the ``to`` kind, False onto the ``away`` kind, None
    where its sides do not say (see the module's docstring)."""
    text = " ".join(change.split())
    split = sides(text)
    before: str | None
    if split is not None:
        before, after = split
    elif (instead := _INSTEAD.search(text)) is not None:
        before, after = instead["old"], instead["new"]
    elif (moved := _MOVED_TO.search(text)) is not None:
        before, after = None, moved["new"]
    else:
        return None
    landed = toward.kind(after)
    if landed is None or (before is not None and toward.kind(before) == landed):
        return None
    return landed == "to"


def toward_from(value: object, label: str) -> Toward | None:
    """A rule's ``toward`` table as loaded from TOML (None where it has none), checked."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or set(value) != {"to", "away"}:
        raise RuleError(f"{label}: 'toward' needs 'to' and 'away' (two patterns) and no more")
    patterns = []
    for key in ("to", "away"):
        pattern = value[key]
        if not isinstance(pattern, str) or not pattern:
            raise RuleError(f"{label}: 'toward.{key}' must be a pattern over the stated change")
        try:
            re.compile(pattern)
        except re.error as error:
            raise RuleError(f"{label}: 'toward.{key}' is not a valid pattern: {error}") from None
        patterns.append(pattern)
    return Toward(*patterns)
