"""The experiment rules a change that no rule reads is nearest to, by its words: a hint to the
person recording it, never evidence.

A rule reads a change by its pattern. Where none does, the change's words are set beside each
rule's own (its title, its suggestion, its examples, the words of its pattern), each shared word
weighed by how few rules hold it: a word one rule alone has says most, one every rule has says
nothing. Tried as a reader on fresh public wordings the patterns missed, the nearest rule was
right 10 times and wrong 8 (``cases/dev/EVALUATIONS.md``, change 128): too often wrong to count,
often enough to name. So the nearest rules are offered with the words they share, and the
person chooses: ``--rule`` reads the change by one, ``--tests`` names the hypotheses instead.
A rule whose pattern reads the change and whose ``unless`` leaves it (host-work's "replaced the
fast tokenizer with the slow one": the opposite of its own A/B) is never named: forced onto it,
the change would be read the wrong way round.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from casefile.domain.experiments import ExperimentRule

__all__ = ["Nearness", "nearest_rules"]

#: a hint needs at least this weight of shared words: one word that two rules share at most
#: (its weight ln(n / 2) is about 2.7 among 29 rules), or several commoner ones
MIN_WEIGHT = 2.5
#: how many rules a hint names
LIMIT = 2
#: a rule after the nearest is named only where its words weigh this share of the nearest's
NEXT_SHARE = 0.5
#: words that say nothing of what a change is about
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "from",
        "by",
        "at",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "then",
        "than",
        "into",
        "onto",
        "via",
        "per",
        "each",
        "all",
        "any",
        "some",
        "one",
        "two",
        "only",
        "also",
        "so",
        "not",
        "no",
        "yes",
        "we",
        "you",
        "he",
        "she",
        "they",
        "my",
        "our",
        "your",
        "their",
        "after",
        "before",
        "when",
        "while",
        "set",
        "setting",
        "settings",
        "changed",
        "change",
        "changing",
        "use",
        "using",
        "used",
        "run",
        "running",
        "runs",
        "same",
        "other",
        "another",
        "new",
        "old",
        "more",
        "less",
        "instead",
        "back",
        "up",
        "down",
        "off",
        "out",
        "just",
        "now",
        "like",
        "make",
        "made",
        "get",
        "got",
    ]
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,60}")
#: a pattern's escapes (``\b``, ``\s``) are no words
_ESCAPE = re.compile(r"\\[A-Za-z]")


@dataclass(frozen=True)
class Nearness:
    """A rule a change is near, and the words that bring it near."""

    rule_id: str
    words: tuple[str, ...]
    #: where the rule reads the change itself but an answer in force rules it out, that
    #: answer (``gpu-count = one (seq 27)``): no hint then, the reason the change is unread
    ruled_out: str | None = None
    #: ... and what the rule needs there (``gpu-count is several``)
    needs: str = ""


def nearest_rules(rules: Sequence[ExperimentRule], change: str) -> tuple[Nearness, ...]:
    """The rules (at most :data:`LIMIT`) whose words ``change`` shares with a weight of at
    least :data:`MIN_WEIGHT`, nearest first; none where no rule comes that near."""
    if not rules:
        return ()
    key = tuple((rule.id, rule.version, rule.change) for rule in rules)
    if key not in _WEIGHED:
        _WEIGHED.clear()  # one playbook's rules at a time: the cache holds the last
        _WEIGHED[key] = _weighed(rules)
    vocabulary, weights = _WEIGHED[key]
    said = _words(change)
    scored = []
    for rule, words in zip(rules, vocabulary, strict=True):
        if rule.leaves(change):
            continue  # its ``unless`` left this change on purpose: forced, it would misread it
        shared = sorted(said.keys() & words)
        weight = math.fsum(weights[w] for w in shared)
        if weight >= MIN_WEIGHT:
            scored.append((-weight, rule.id, tuple(dict.fromkeys(said[w] for w in shared))))
    scored.sort()
    near = [s for s in scored[:LIMIT] if s[0] <= scored[0][0] * NEXT_SHARE]
    return tuple(Nearness(rule_id, words) for _, rule_id, words in near)


#: the last rules' words and weights, by the rules' ids, versions and patterns
_WEIGHED: dict[
    tuple[tuple[str, int, str], ...], tuple[tuple[frozenset[str], ...], dict[str, float]]
] = {}


def _weighed(
    rules: Sequence[ExperimentRule],
) -> tuple[tuple[frozenset[str], ...], dict[str, float]]:
    """Each rule's words, and each word's weight: ln(rules / rules that hold it)."""
    vocabulary = tuple(
        frozenset(_words(" ".join((r.title, r.suggest, *r.examples, _ESCAPE.sub(" ", r.change)))))
        for r in rules
    )
    held = Counter(word for words in vocabulary for word in words)
    return vocabulary, {word: math.log(len(rules) / n) for word, n in held.items()}


def _words(text: str) -> dict[str, str]:
    """A text's words in one form, each with the first spelling the text gave it: lower
    case, a setting's name also in its parts (``NCCL_P2P_DISABLE``: nccl, p2p, disable), a
    plural or tense ending cut from a long word."""
    out: dict[str, str] = {}
    for raw in _TOKEN.findall(text):
        low = raw.lower().strip("._")
        for part in (low, *re.split(r"[_.]", low)):
            if len(part) >= 2 and part not in _STOP and not part.isdigit():
                out.setdefault(_stem(part), part)
    return out


def _stem(word: str) -> str:
    for ending in ("ing", "ed", "es", "s"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word
