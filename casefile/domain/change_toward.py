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
"NIXL over UCX sockets and CUDA IPC" neither). The sides are, in this order: the arrow's;
"NEW instead of OLD", "NEW rather than OLD", "NEW, not OLD", "instead of OLD, NEW";
"replaced OLD with NEW", "from OLD to NEW"; the target of a move with no before side ("switch
the backend to gloo", "fell back to TCP", "use TCP"), unless the words before it advise
against it or leave it ("do not switch to TCP", "stop using gloo"). With none of those, the
``to`` kind named and taken away ("NVLink bridge removed", "without NVLink") is a move off it,
and a setting's value names the state reached ("backend=gloo", "NCCL_NET=Socket"; an excluded
one, "UCX_TLS=^cuda_ipc", the other way). A change whose after side is of no kind, or of the
kind its before side already was, is left to the rule's other readings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from casefile.domain.change_arrow import sides
from casefile.domain.change_forms import ENABLING
from casefile.errors import RuleError

__all__ = ["Toward", "moved_toward", "toward_from"]

#: where a clause ends inside a side written in words: a mark, or a word that gives a reason
#: or a condition ("falls back to TCP when IB is not found", "switched to TCP (was CUDA IPC)")
_CLAUSE_END = re.compile(
    r"(?i)[,;.:()\n]|\b(?:because|since|when|whenever|if|unless|while|but|as|after|until)\b"
)
#: "NEW instead of OLD", "NEW rather than OLD", "NEW, not OLD"; "instead of OLD, NEW"
_INSTEAD = re.compile(r"(?i)\s+(?:instead\s+of|rather\s+than)\s+|,\s*not\s+")
_INSTEAD_FIRST = re.compile(r"(?i)^\s*(?:instead\s+of|rather\s+than)\s+(?P<old>[^,;]{1,80}),")
#: "replaced OLD with NEW", "from OLD to NEW", "moved off OLD to NEW" (read on text whose
#: spaces are single)
_REPLACED = re.compile(
    r"(?i)\b(?:replac\w* (?P<old>[^,;.]{1,60}?) (?:with|by)"
    r"|(?:from|off|away from) (?P<old2>[^,;.]{1,60}?) (?:to|onto))\s(?P<new>[^,;.]{1,80})"
)
#: a verb that moves to something, and what it moves to; or what is used
_MOVED_TO = re.compile(
    r"(?i)\b(?:(?:switch\w*|chang\w*|mov\w*|fall(?:s|ing)?\s+back|fell\s+back|forc\w*"
    r"|revert\w*|went|go(?:es)?|set)\b[^,;.]{0,40}?\b(?:to|onto)|use[ds]?|using)\s+"
    r"(?P<new>[^,;]{1,80})"
)
#: words before a move that say it was left or advised against, not made ("stop using gloo",
#: "moved off gloo", "switched from TCP", "do not switch to TCP")
_LEFT = re.compile(
    r"(?i)\b(?:from|off|away|stop\w*|no\s+longer|not|don't|never|avoid\w*|instead)\b"
)
#: a setting's value: after "=" or ":", a flag, "backend", or MPI's "btl"; not a URL's scheme
#: ("tcp://127.0.0.1:29500" is an address)
_SETTING_VALUE = re.compile(
    r"(?i)(?:[=:]\s*[\"'`]?|(?<![\w-])--?[a-z][\w-]*\s+[\"'`]?|\b(?:backend|btl)\s+)"
    r"(?!(?:btl|backend)\b)(?P<value>[\^!]?[\w.,+-]+)(?!:/)"
)
#: a state reached in words: a backend named, or what a job is split into or bound to
_STATE_WORDS = re.compile(
    r"(?i)\b(?P<backend>[\w.-]+) backend\b"
    r"|\b(?:into|onto|to|on) (?:the |an? )?(?P<place>[\w.-]+(?: [\w.-]+){0,2})"
)
#: words that take a thing out of the machine or the run ("NVLink bridge removed", "without
#: NVLink"); not "not", which as often says a result ("NVLink does not affect the result")
_GONE = re.compile(
    r"(?i)\b(?:without|no|remov\w*|pulled|unplugg\w*|detach\w*|disconnect\w*|stopp?\w*"
    r"|took\s+out|taken\s+out)\b"
)
#: before the thing only: "dropped NVLink" drops it, "NVLink dropped packets" does not
_GONE_BEFORE = re.compile(rf"{_GONE.pattern}|(?i:\bdropp\w*\b)")
_BOTH_WAYS = re.compile(r"(?i)\bwith\s+and\s+without\b|\bwithout\s+and\s+with\b")
#: words that turn a thing off or advise against it, which a one-sided change's kind would
#: otherwise be read as reached ("disable TCP" leaves TCP; "do not run in multiple
#: containers" does not run so)
_OFF = re.compile(
    r"(?i)\bdisabl\w*|\bturn\w*\s+off\b|\bexclud\w*|\bavoid\w*|\bdo\s+not\b|\bdon't\b|\bnever\b"
)


def _clause(text: str) -> str:
    """``text`` up to the end of its first clause (see :data:`_CLAUSE_END`)."""
    end = _CLAUSE_END.search(text)
    return text[: end.start()] if end else text


def _last_clause(text: str) -> str:
    """The last clause of ``text`` (what stands just before "instead of")."""
    cut = 0
    for mark in re.finditer(r"[,;.:()\n]", text):
        cut = mark.end()
    return text[cut:]


@dataclass(frozen=True)
class Toward:
    """The two kinds a rule's changes move between: onto ``to`` is its own A/B. Or, where the
    things are ranked rather than of two kinds, their ``order``: up it is the rule's own A/B
    (NCCL's P2P levels, LOC to SYS: a wider level lets the library take a path it declined)."""

    to: str = ""
    away: str = ""
    order: tuple[str, ...] = ()

    def kind(self, side: str) -> str | None:
        """ "to" or "away" where ``side`` names one kind and not the other; else None."""
        onto = re.search(self.to, side, re.IGNORECASE) is not None
        off = re.search(self.away, side, re.IGNORECASE) is not None
        if onto == off:
            return None
        return "to" if onto else "away"


def _taken_away(toward: Toward, text: str) -> bool:
    """Whether a one-sided change takes the rule's own kind away: named once, not excluded in
    a list ("^cuda_ipc"), with a removal word at most three words before or after it
    ("NVLink bridge removed", "without NVLink"), and nothing enabled ("Enable GET over CUDA
    IPC on GPU without NVLink" enables the one and describes the other)."""
    named = list(re.finditer(toward.to, text, re.IGNORECASE))
    if len(named) != 1 or toward.kind(text) != "to" or ENABLING.search(text):
        return False
    if _BOTH_WAYS.search(text):  # "tested with and without NVLink" moved nowhere
        return False
    match = named[0]
    if text[max(0, match.start() - 1) : match.start()] in ("^", "!"):
        return False
    before = " ".join(text[: match.start()].split()[-3:])
    after = " ".join(text[match.end() :].split()[:3])
    return _GONE_BEFORE.search(before) is not None or _GONE.search(after) is not None


def _sides_in_words(text: str) -> tuple[str | None, str] | None:
    """A change's before and after sides where words, not an arrow, say them (see the
    module's docstring); None where no such wording is found."""
    first = _INSTEAD_FIRST.search(text)
    if first is not None:
        return first["old"], _clause(text[first.end() :].strip())
    instead = _INSTEAD.search(text)
    if instead is not None:  # bounded on each side: a long preamble costs nothing more
        new = _last_clause(text[max(0, instead.start() - 120) : instead.start()])
        return _clause(text[instead.end() : instead.end() + 120]), new
    replaced = _REPLACED.search(text)
    if replaced is not None:
        return replaced["old"] or replaced["old2"], _clause(replaced["new"])
    moved = _MOVED_TO.search(text)
    if moved is not None and not _LEFT.search(_last_clause(text[: moved.start("new")])):
        return None, _clause(moved["new"])
    return None


def _setting_state(toward: Toward, text: str) -> bool | None:
    """The kind a setting's value names, as reached: True the ``to`` kind, False ``away``;
    an excluded value ("^cuda_ipc") the other way. Else the kind a backend is named, or the
    words after "into" or "to" ("gloo backend", "split into separate containers", "bound to
    the remote NUMA node"). None where none names one kind."""
    for found in _SETTING_VALUE.finditer(text):
        value = found["value"]
        kind = toward.kind(value)
        if kind is not None:
            return (kind == "to") != value.startswith(("^", "!"))
    for found in _STATE_WORDS.finditer(text):
        kind = toward.kind(found["backend"] or found["place"])
        if kind is not None:
            return kind == "to"
    return None


def moved_toward(toward: Toward, change: str, both_sides: bool = False) -> bool | None:
    """True where ``change`` moves onto the ``to`` kind, False onto the ``away`` kind, None
    where its sides do not say (see the module's docstring). ``both_sides``: only a change
    that names both sides is read so; a rule that raises a number reads a one-sided change
    by its own words ("power limit raised to 450 W")."""
    # one space or one newline between words: a run of either costs nothing more to read
    text = re.sub(r"\s+", lambda run: "\n" if "\n" in run.group() else " ", change).strip()
    split = sides(" ".join(change.split()))
    if toward.order:
        return _up_the_order(toward.order, split or _sides_in_words(text), text)
    before: str | None
    if split is not None:
        before, after = split
    elif (worded := _sides_in_words(text)) is not None and toward.kind(worded[1]) is not None:
        before, after = worded
        if before is None and both_sides:
            return None
    elif both_sides:
        return None
    elif _taken_away(toward, text):
        return False
    elif _OFF.search(text) is None and not _GONE.search(text):
        return _setting_state(toward, text)
    else:
        return None
    landed = toward.kind(after)
    if landed is None or (before is not None and toward.kind(before) == landed):
        return None
    if both_sides and (before is None or toward.kind(before) is None):
        return None  # "power limit 300 -> 450W": the numbers say it, not the unit on one side
    return landed == "to"


def _up_the_order(
    order: tuple[str, ...], split: tuple[str | None, str] | None, text: str
) -> bool | None:
    """Whether a change moves up ``order``: the before side's last ranked word against the
    after side's first. A change naming one rank alone says a way only at the bottom
    ("NCCL_P2P_LEVEL=LOC", as low as it goes: down) or the top ("=SYS": up)."""
    ranked = re.compile(rf"(?i)(?<![\w-])({'|'.join(map(re.escape, order))})(?![\w-])")
    if split is None or split[0] is None:
        named = {found.group(1).upper() for found in ranked.finditer(text)}
        ends = {order[0].upper(): False, order[-1].upper(): True}
        return ends.get(named.pop()) if len(named) == 1 else None
    old = [found.group(1).upper() for found in ranked.finditer(split[0])]
    new = [found.group(1).upper() for found in ranked.finditer(split[1])]
    ranks = [word.upper() for word in order]
    if not old or not new or old[-1] == new[0]:
        return None
    return ranks.index(new[0]) > ranks.index(old[-1])


def toward_from(value: object, label: str) -> Toward | None:
    """A rule's ``toward`` table as loaded from TOML (None where it has none), checked."""
    if value is None:
        return None
    if isinstance(value, Mapping) and set(value) == {"order"}:
        order = value["order"]
        if not (isinstance(order, list) and len(order) >= 2 and all(order)) or not all(
            isinstance(word, str) for word in order
        ):
            raise RuleError(f"{label}: 'toward.order' must list two or more words, lowest first")
        return Toward(order=tuple(order))
    if not isinstance(value, Mapping) or set(value) != {"to", "away"}:
        raise RuleError(
            f"{label}: 'toward' needs 'to' and 'away' (two patterns), or 'order', and no more"
        )
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
    return Toward(to=patterns[0], away=patterns[1])
