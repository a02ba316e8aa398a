"""What an experiment rule's pattern reads, in words a person can check against their change.

A rule's ``change`` is a regular expression (``NCCL_P2P_DISABLE\\s*=\\s*1``); a responder wants
to know whether "export NCCL_P2P_DISABLE=1" or "pip install torch==2.3.1" is one it reads
before recording an A/B. This module renders a pattern as one wording per top-level
alternative (``iommu=(pt | off)``, ``NPS N``), and gives concrete examples, each checked
against the rule itself (its spelling normalisation included), so an example never claims a
wording the rule does not read. It reads the small regex subset patterns are written in —
literals, escapes, classes, groups, alternation and quantifiers — and falls back to the
pattern as written for anything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

# --- a small regex reader ---------------------------------------------------------------------


@dataclass(frozen=True)
class Atom:
    """One element: ``lit`` (a character), ``space``, ``nonspace``, ``digit``, ``word``,
    ``any``, ``class`` (its text in ``text``), or ``boundary`` (matches no character)."""

    kind: str
    text: str = ""


@dataclass(frozen=True)
class Group:
    branches: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True)
class Repeat:
    node: Node
    low: int
    high: int | None


Node = Union[Atom, Group, Repeat]  # noqa: UP007  (a runtime alias, read by the dataclasses)

_ESCAPES = {
    "s": "space",
    "S": "nonspace",
    "d": "digit",
    "w": "word",
    "b": "boundary",
    "W": "space",  # punctuation or a space between words: said as a space
}


class _Unreadable(Exception):
    pass


class _Reader:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def alternatives(self) -> tuple[tuple[Node, ...], ...]:
        branches = [self.sequence()]
        while self.at < len(self.text) and self.text[self.at] == "|":
            self.at += 1
            branches.append(self.sequence())
        return tuple(branches)

    def sequence(self) -> tuple[Node, ...]:
        nodes: list[Node] = []
        while self.at < len(self.text) and self.text[self.at] not in "|)":
            nodes.append(self.quantified(self.atom()))
        return tuple(nodes)

    def atom(self) -> Node:
        char = self.text[self.at]
        self.at += 1
        if char == "\\":
            if self.at >= len(self.text):
                raise _Unreadable
            escaped = self.text[self.at]
            self.at += 1
            if escaped in _ESCAPES:
                return Atom(_ESCAPES[escaped])
            if escaped == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", self.text[self.at : self.at + 2]):
                self.at += 2
                return Atom("lit", chr(int(self.text[self.at - 2 : self.at], 16)))  # \x27: '
            if escaped.isalnum():
                raise _Unreadable  # \B, \A, \1 …: not written in playbooks
            return Atom("lit", escaped)
        if char in "^$":
            return Atom("boundary")  # where the change starts or ends: no word of its own
        if char == "(":
            if self.text.startswith("?:", self.at):
                self.at += 2
            elif self.text.startswith("?=.*", self.at):
                # "mentions X somewhere": the words it must hold, then whatever follows
                # ("N.N … (nccl | torch) … -> …")
                self.at += 4
                inner = Group(self.alternatives())
                if self.at >= len(self.text) or self.text[self.at] != ")":
                    raise _Unreadable
                self.at += 1
                return Group(((inner, Repeat(Atom("any"), 0, None)),))
            elif self.text.startswith(("?=", "?!", "?<=", "?<!"), self.at):
                # a look-around matches no character: it says what may not (or must) stand
                # beside the words, not a word of its own ("… off", not "… (?!false)")
                self.at += 3 if self.text[self.at + 1] == "<" else 2
                self.alternatives()
                if self.at >= len(self.text) or self.text[self.at] != ")":
                    raise _Unreadable
                self.at += 1
                return Atom("boundary")
            elif self.text.startswith("?", self.at):
                raise _Unreadable  # flags, named groups
            group = Group(self.alternatives())
            if self.at >= len(self.text) or self.text[self.at] != ")":
                raise _Unreadable
            self.at += 1
            return group
        if char == "[":
            end = self.text.find("]", self.at + 1)
            if end < 0:
                raise _Unreadable
            body = self.text[self.at : end]
            self.at = end + 1
            return Atom("digit") if body in ("0-9", "\\d") else Atom("class", body)
        if char == ".":
            return Atom("any")
        if char in "*+?{":
            raise _Unreadable
        return Atom("lit", char)

    def quantified(self, node: Node) -> Node:
        if self.at >= len(self.text):
            return node
        char = self.text[self.at]
        bounds: tuple[int, int | None] | None = None
        if char in "*+?":
            self.at += 1
            bounds = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        elif char == "{":
            found = re.match(r"\{(\d+)(?:(,)(\d*))?\}", self.text[self.at :])
            if found is None:
                return node
            self.at += found.end()
            low = int(found[1])
            high = low if not found[2] else (int(found[3]) if found[3] else None)
            bounds = (low, high)
        if bounds is None:
            return node
        if self.at < len(self.text) and self.text[self.at] == "?":
            self.at += 1  # lazy: the same words
        return Repeat(node, *bounds)


def read_pattern(pattern: str) -> tuple[tuple[Node, ...], ...] | None:
    """The pattern's top-level alternatives, or None where it uses more than this reads."""
    reader = _Reader(pattern)
    try:
        branches = reader.alternatives()
    except _Unreadable:
        return None
    return branches if reader.at == len(pattern) else None


# --- words ------------------------------------------------------------------------------------


#: ``\s*`` in a wording: a space between two words ("NPS N"), nothing beside a sign ("X=1")
_OPTIONAL_SPACE = "\x00"
#: ``\S+`` in a sample: a value the pattern leaves open
_OPEN_VALUE = "\x01"


def _words(nodes: Sequence[Node]) -> str:
    return _spaced("".join(_word(node) for node in nodes))


def _word(node: Node) -> str:
    if isinstance(node, Group):
        if len(node.branches) == 1:
            return _words(node.branches[0])
        # a branch of no words (an anchor, a lone space) leaves the others optional:
        # "(^|\s)-ngl" is "-ngl", "($|\()" is "[(]"
        said = [w for w in (_words(b).strip() for b in node.branches) if w]
        if not said:
            return " "
        joined = " | ".join(said)
        return f"[{joined}]" if len(said) < len(node.branches) else f"({joined})"
    if isinstance(node, Repeat):
        inner = node.node
        if isinstance(inner, Atom) and inner.kind == "space":
            return _OPTIONAL_SPACE if node.low == 0 else " "
        if isinstance(inner, Atom) and inner.kind == "any":
            return " " if node.high == 1 else " … "
        if isinstance(inner, Atom) and inner.kind in ("nonspace", "word", "class"):
            return "…"
        if isinstance(inner, Atom) and inner.kind == "digit":
            return "N"
        if node.low == 0 and node.high == 1:
            return "[" + _word(inner).strip() + "]"
        return _word(inner)
    return {
        "lit": node.text,
        "space": " ",
        "nonspace": "…",
        "digit": "N",
        "word": "…",
        "any": " ",
        "class": f"[{node.text}]",
        "boundary": "",
    }[node.kind]


def wordings(pattern: str) -> tuple[str, ...]:
    """One human wording per top-level alternative of ``pattern`` (``iommu=(pt | off)``,
    ``NCCL_P2P_LEVEL=…``, ``(nccl | torch | …) … (-> | to | downgrad)``); the pattern itself
    when it is written in more than this module reads."""
    branches = read_pattern(pattern)
    if branches is None:
        return (pattern,)
    out = [" ".join(_words(branch).split()) for branch in branches]
    return tuple(dict.fromkeys(w for w in out if w)) or (pattern,)


# --- examples ---------------------------------------------------------------------------------


def _sample(nodes: Sequence[Node]) -> str:
    return _spaced("".join(_one(node) for node in nodes))


def _spaced(text: str) -> str:
    """Each optional space as a space between two words, else as nothing."""
    return re.sub(
        f"(.?){_OPTIONAL_SPACE}+(.?)",
        lambda m: m[1] + (" " if m[1].isalnum() and m[2].isalnum() else "") + m[2],
        text,
    )


def _one(node: Node) -> str:
    if isinstance(node, Group):
        return _sample(node.branches[0])
    if isinstance(node, Repeat):
        inner = node.node
        if isinstance(inner, Atom) and inner.kind == "any":
            return " "  # ".*" between words: a space reads naturally
        if isinstance(inner, Atom) and inner.kind == "space" and node.low == 0:
            return _OPTIONAL_SPACE
        return _one(inner) * max(node.low, 1 if node.high is None and node.low else node.low)
    if node.kind == "class":
        first = node.text.lstrip("^")[:1]
        return first if first.isalnum() else "x"
    return {
        "lit": node.text,
        "space": " ",
        "nonspace": _OPEN_VALUE,
        "digit": "1",
        "word": "x",
        "any": " ",
        "boundary": "",
    }[node.kind]


def _literal_words(nodes: Sequence[Node]) -> list[str]:
    """Runs of literal letters, digits and ``_`` in the pattern, first branches first."""
    words: list[str] = []
    run = ""
    for node in nodes:
        if (
            isinstance(node, Atom)
            and node.kind == "lit"
            and (node.text.isalnum() or node.text == "_")
        ):
            run += node.text
            continue
        if len(run) >= 3:
            words.append(run)
        run = ""
        if isinstance(node, Group):
            for branch in node.branches:
                words += _literal_words(branch)
    if len(run) >= 3:
        words.append(run)
    return words


#: Spellings people write, tried on the names a pattern holds; only those the rule reads stay.
_ASSIGNED = ("{name}: {value}",)
#: an environment variable's name, the only kind ``export`` is written for
_ENVIRONMENT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_SWITCHES = {"1": "{name}=on", "0": "{name}=off"}
_VERSIONS = (
    "{name} 2.18.3 -> 2.19.3",
    "pip install {name}==2.19.3",
    "downgraded {name} to 2.18.3",
    "{name} from 2.18.3 to 2.19.3",
)


def examples(pattern: str, reads: Callable[[str], bool], limit: int = 5) -> tuple[str, ...]:
    """Concrete changes the rule reads: a sample of each alternative, then the spellings of
    it people also write (``export X=1``, ``X: 1``, ``X=on``) and, where a name alone is not
    enough, version changes of it (``pip install torch==2.19.3``). ``reads`` is the rule's
    own matching; every example passes it."""
    branches = read_pattern(pattern)
    if branches is None:
        return ()
    candidates: list[str] = []
    for name in _literal_words(branches[0])[:2]:
        # a name the rule reads only as part of a version change ("nccl" in "nccl 2.18 ->
        # 2.19"): the version spellings are the examples worth showing
        if not reads(name) and reads(f"{name} version 2.18.3 -> 2.19.3"):
            candidates += [form.format(name=name) for form in _VERSIONS]
    for branch in branches[:3]:
        raw = " ".join(_sample(branch).split())
        sample = raw.replace(_OPEN_VALUE, "1")
        words = sample.split()
        if words and not (words[0][0].isalnum() and re.search(r"\w", words[-1])):
            continue  # a dangling sign ("nccl ->"): no one writes that
        candidates.append(sample)
        assigned = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.]*)=(\S+)", sample)
        if assigned is not None:
            name, value = assigned[1], assigned[2]
            if _ENVIRONMENT.fullmatch(name):
                candidates.append(f"export {name}={value}")
            candidates += [form.format(name=name, value=value) for form in _ASSIGNED]
            if value in _SWITCHES and _OPEN_VALUE not in raw:
                candidates.append(_SWITCHES[value].format(name=name))
    kept = [c for c in dict.fromkeys(candidates) if c.strip() and reads(c)]
    return tuple(kept[:limit])
