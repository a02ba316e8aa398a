"""The head a case directory records beside its events: ``events.head``, one line ``SEQ@HASH``.

Why a separate file. The hash chain proves that every event follows from the one before it,
but nothing in ``events.jsonl`` says where the chain *ends*: cut the file at a line boundary,
or rewrite it from some seq on with freshly computed hashes, and what is left is still a valid
chain. ``events.head`` names the last event the writer wrote, so cutting the file short (the
head's seq is past the end) or rewriting it (the head's hash is not that seq's hash) is caught
unless the head file is rewritten too; for that, ``casefile verify --head SEQ@HASH`` compares
against a head kept somewhere else.

Order of writes. ``events.jsonl`` is written (and synced) first, then ``events.head``, so a
crash between the two leaves a head *behind* a valid chain: that is accepted (the chain still
holds the recorded event, with its hash), while a chain shorter than its head never is. A
directory without the file (exported by an older casefile) is accepted, with a note saying its
end cannot be checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEAD_FILE = "events.head"
HEAD_LIMIT = 200
"""More bytes than any ``SEQ@HASH`` line needs; a bigger file is refused unread."""

_HEAD = re.compile(r"([1-9][0-9]{0,18})@([0-9a-f]{64})")


@dataclass(frozen=True, slots=True)
class Head:
    """A case's last event, as ``seq`` and ``hash``; written and read as ``SEQ@HASH``."""

    seq: int
    hash: str

    def __str__(self) -> str:
        return f"{self.seq}@{self.hash}"


def parse_head(text: str) -> Head | None:
    """``SEQ@HASH`` (a seq from 1, a full lower-case SHA-256 hex digest) as a head, or ``None``."""
    match = _HEAD.fullmatch(text)
    if match is None:
        return None
    return Head(int(match.group(1)), match.group(2))


def head_line(head: Head) -> bytes:
    """The bytes of ``events.head`` for ``head``."""
    return f"{head}\n".encode("ascii")


def head_mismatch(
    recorded: Head, last_seq: int, hash_at_seq: str | None, source: str
) -> str | None:
    """Why a chain ending at ``last_seq`` does not hold ``recorded``, or ``None`` if it does.

    ``hash_at_seq`` is the chain's hash at ``recorded.seq`` (``None`` if the chain is shorter);
    ``source`` names where the head came from (``events.head``, ``--head``). A chain that has
    grown past the head is fine: appends only add to the end.
    """
    if recorded.seq > last_seq:
        gone = (
            f"seq {recorded.seq} was"
            if recorded.seq == last_seq + 1
            else f"seqs {last_seq + 1} to {recorded.seq} were"
        )
        return (
            f"the chain ends at seq {last_seq} but {source} records seq {recorded.seq}: "
            f"{gone} removed (the case was cut short)"
        )
    if hash_at_seq != recorded.hash:
        return (
            f"seq {recorded.seq} has hash {hash_at_seq} but {source} records {recorded.hash}: "
            "the chain was rewritten from there or earlier"
        )
    return None
