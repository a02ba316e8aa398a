"""The labels in front of sysstat's rows and the tables the rows are gathered in: what the
mpstat and pidstat readers (:mod:`casefile_probes.cpu_sysstat`) and the choice of the report
to read (:mod:`casefile_probes._sysstat_report`) both need, kept apart so that neither imports
the other.

A row of mpstat or pidstat starts with its time (``11:30:51``, ``11:30:51 AM``,
``14时05分27秒``) or a label ending in a colon: the locale's ``Average:``, or a parallel shell's
``node008:`` or ``10.0.0.12:`` before everything else. The times say whether a report is an
average since boot (one time on a header and its rows) or an interval one, so they are kept
with each table, apart from the labels beside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._host_prefix import is_host_name

__all__ = ["BANNER", "Table", "is_average", "leading_labels", "row_node", "stamp"]

#: a row's leading tokens: a time (``11:30:51``, ``AM``, ``14时05分27秒``), or a label ending in
#: a colon: the locale's ``Average:``, a parallel shell's ``node008:`` or ``10.0.0.12:``
_TIME_TOKEN = re.compile(
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,6})?|[AaPp]\.?[Mm]\.?"
    r"|\d{1,2}[时時]\d{1,2}分\d{1,2}秒|[^\s\d]\S{0,40}:|\d{1,3}(?:\.\d{1,3}){3}:)$"
)
#: sysstat's first line, "Linux 6.8.0 (host)  10/01/2024  _x86_64_  (4 CPU)", indented with
#: the rest of a paste that a reading has not unwrapped. A parallel shell's ``node1: `` before
#: it is taken off, with the node's other prefixes, before the lines are read (_sysstat_report)
BANNER = re.compile(r"^\s{0,16}Linux\s+\S+\s+\(")


def leading_labels(tokens: list[str]) -> int:
    """How many leading tokens are the row's time stamp or label (``11:30:51 AM``,
    ``14时05分27秒``, ``Average:``, a pdsh ``node008:``)."""
    count = 0
    while count < len(tokens) and _TIME_TOKEN.match(tokens[count]):
        count += 1
    return count


def stamp(tokens: list[str]) -> tuple[str, ...]:
    """The time among a row's (or a header's) leading tokens, without the labels beside it (a
    pdsh ``node008:`` or ``10.0.0.12:``, ``Average:``): ``("11:30:51", "AM")``; ``()`` where
    none is printed. No time ends in a colon, so every token that does is a label."""
    kept = tuple(token for token in tokens if not token.endswith(":"))
    return kept if any(ch.isdigit() for ch in "".join(kept)) else ()


def is_average(tokens: list[str], prefix: int) -> bool:
    """An ``Average:`` row (whatever the locale calls it): labels without a time, a pdsh
    ``node008:`` among them (its digits are a host's, not a time's)."""
    return prefix > 0 and not stamp(tokens[:prefix])


def row_node(tokens: list[str], prefix: int) -> str | None:
    """The node a parallel shell named in front of a row or a header (``node008: 11:19:24``,
    ``10.0.0.12: Average:``): a host name and a colon, first of two leading tokens or more;
    None where no shell prefixed the line (``Average:`` alone is sysstat's label)."""
    if prefix < 2 or not tokens[0].endswith(":"):
        return None
    name = tokens[0][:-1]
    return name if is_host_name(name) else None


@dataclass
class Table:
    """Rows of a sysstat report, read by the column names of the header above them."""

    columns: list[str]
    #: which report of the paste (each starts with a "Linux … (N CPU)" banner)
    report: int = 0
    #: the header's own time (the start of its interval, or the one time of a report since
    #: boot); () where it prints none
    stamp: tuple[str, ...] = ()
    #: the node a parallel shell named in front of the header (None: no prefix)
    node: str | None = None
    interval: list[list[str]] = field(default_factory=list)
    average: list[list[str]] = field(default_factory=list)
    #: the times of the interval rows, by the node that printed them (None: no prefix); a
    #: node with interval rows here has an entry, empty where its rows print no time
    stamps: dict[str | None, set[tuple[str, ...]]] = field(default_factory=dict)

    def add_interval(self, row: list[str], node: str | None, stamp: tuple[str, ...]) -> None:
        """One interval row of ``node``, with its time (``()``: none printed)."""
        self.interval.append(row)
        self.stamps.setdefault(node, set()).update(filter(None, [stamp]))
