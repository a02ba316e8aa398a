"""Intake: a playbook's questions about the shape of the symptom, answered without probabilities.

A responder knows things before any probe runs: the job does not scale past two GPUs, it got
slower after an upgrade, it runs in a VM. Those answers carry real information, but asking a
new user for P(answer | hypothesis) is asking them to invent numbers. So a playbook declares
each intake question with its discrete answers and a likelihood table per answer (a rule whose
outcomes are the answers), and an answer becomes evidence of kind ``reported`` carrying exactly
that table. Answers the case already holds — the ``--env`` it was opened with, a fact an
earlier probe recorded, another answer that settles it (a job on several nodes uses several
GPUs) — answer a question on their own and say where they came from.

In TOML::

    [[intake]]
    id = "scaling"
    version = 1
    text = "Does throughput scale with the number of GPUs?"
    answers = ["yes", "no", "worse"]
    help = "yes: close to linear; no: flat; worse: more GPUs are slower"
    environment = ["scaling"]                   # --env keys that answer it
    environment_matches = [ { key = "gpus", matches = 'GeForce|RTX [2-5]0[5-9]0',
                              answer = "consumer" } ]  # --env values that answer it
    synonyms = { linear = "yes", flat = "no" }  # other words for the answers
    facts = [ { fact = "host.virtualized", equals = true, answer = "vm" } ]  # or any_of,
                                                # matches (a pattern), at_least or below (numbers)
    implied_by = [ { intake = "nodes", answers = ["multi"], answer = "several",
                     why = "a job on several nodes uses several GPUs" } ]
    reliability = 0.7
    rationale = "..."
    [intake.likelihoods]
    compute-launch = { yes = 0.5, no = 0.4, worse = 0.1 }
    otherwise = { yes = 0.3, no = 0.4, worse = 0.3 }
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from casefile.domain.environment import entry, key_form
from casefile.domain.facts import Fact, FactValue
from casefile.domain.kinds import STATED_RELIABILITY
from casefile.domain.rule_loading import rule_from_dict
from casefile.domain.rules import Rule
from casefile.errors import RuleError

#: a described value's first word, followed by a separator or the end ("yes, after ten
#: minutes" -> "yes"; "bare metal" has no one-word answer in it)
#: a typed count with at most a note in brackets ("3", "16 (two nodes)")
_JUST_A_COUNT = re.compile(r"^\s*[0-9]+\s*(?:\([^()]*\))?\s*$")
_LEADING_WORD = re.compile(r"\s{0,8}([A-Za-z0-9][A-Za-z0-9_-]{0,40})[ \t]*+(?:[,;:(]|$|-\s)")
#: what, in the rest of a described value, takes back its first word ("CUDA: unchanged",
#: "yes (probably)")
_TAKEN_BACK = re.compile(
    r"(?i)\b(?:unchanged|no change|not|never|probably|maybe|perhaps|likely|unsure|unknown|"
    r"unclear|assumed|guess)\b|\?"
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,40}")

#: How far an intake answer is trusted unless its question says otherwise: what a person
#: states about their own system, firmer than a guess and weaker than a measurement.
DEFAULT_INTAKE_RELIABILITY = STATED_RELIABILITY
#: The prefix of an intake question's rule id, so evidence shows where it came from.
RULE_PREFIX = "intake."
ANSWER_FACT = "intake.answer"


@dataclass(frozen=True)
class FactAnswer:
    """A fact that answers an intake question when it holds (``gpu.name`` matching GeForce)."""

    fact: str
    answer: str
    equals: FactValue | None = None
    any_of: tuple[str, ...] = ()
    matches: str | None = None
    at_least: float | None = None
    below: float | None = None
    #: what ``matches`` reads, in words ("a GeForce, TITAN or GTX name"): shown in its place
    says: str = ""

    def holds(self, value: FactValue) -> bool:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if self.at_least is not None or self.below is not None:
            if not number:
                return False
            low = self.at_least is None or float(value) >= self.at_least
            return low and (self.below is None or float(value) < self.below)
        if self.equals is not None:
            return value == self.equals
        if self.any_of:
            return str(value) in self.any_of
        if self.matches is not None:
            return re.search(self.matches, str(value), re.IGNORECASE) is not None
        return bool(value)


@dataclass(frozen=True)
class EnvironmentAnswer:
    """An ``--env`` value that answers a question when it matches (``gpus`` naming a GeForce
    card answers gpu-class with consumer): for keys whose values are not answers themselves."""

    key: str
    matches: str
    answer: str
    #: what ``matches`` reads, in words ("a count of one GPU"): a pattern is for the machine
    says: str = ""

    def holds(self, value: str) -> bool:
        return re.search(self.matches, value, re.IGNORECASE) is not None


@dataclass(frozen=True)
class ImpliedAnswer:
    """Another question's answer that settles this one by what the words mean, not by odds: a
    job on several nodes uses several GPUs; a one-GPU job runs on one node."""

    intake: str
    answers: tuple[str, ...]
    answer: str
    why: str = ""


@dataclass(frozen=True)
class Known:
    """An answer the case already holds, and where it came from."""

    answer: str
    source: str  # "environment", "observation", or "answered" (implied by another answer)
    basis: str
    observation_seq: int | None = None
    fact: str | None = None


@dataclass(frozen=True)
class IntakeQuestion:
    id: str
    version: int
    text: str
    answers: tuple[str, ...]
    rule: Rule
    help: str = ""
    environment: tuple[str, ...] = ()
    synonyms: Mapping[str, str] = field(default_factory=dict)
    facts: tuple[FactAnswer, ...] = ()
    environment_matches: tuple[EnvironmentAnswer, ...] = ()
    implied_by: tuple[ImpliedAnswer, ...] = ()

    @property
    def rule_id(self) -> str:
        return self.rule.id

    def normalise(self, value: str) -> str | None:
        """The answer a typed ``value`` gives, or None: read as ``--env QUESTION=value`` reads
        it, so the terminal's prompt, ``--answer``, the TUI and ``--env`` agree. A declared
        answer or synonym (case and spacing aside), else a described value that opens with an
        answer ("no (fresh install)"), else what ``environment_matches`` on this question's own
        keys read in it ("3" GPUs is several, "bare metal" is bare-metal)."""
        return self._word(value) or self._leading(value) or self._described(value)

    def taken_as(self, value: str) -> str | None:
        """The answer ``value`` is read as when it is other words than the answer ("1", "bare
        metal"; not "One"), for a front end to say which it took; None otherwise."""
        answer = self.normalise(value)
        return answer if answer is not None and answer != value.strip().lower() else None

    def _word(self, value: str) -> str | None:
        """The declared answer ``value`` names as a word (case and spacing aside), or None."""
        key = " ".join(value.strip().lower().replace("_", "-").split())
        if key in self.answers:
            return key
        return self.synonyms.get(key)

    def _described(self, value: str) -> str | None:
        """The one answer the ``environment_matches`` for keys that name this question read in
        ``value`` (``gpu-count = "3"``: several); None when none does, or two disagree. A
        pattern for another key (``gpus`` naming cards) reads another kind of value. A typed
        value that opens with a number is read so only where it is that number alone, a note
        in brackets aside ("16 (two nodes)"): "1 node, 8 GPUs" counts nodes, not GPUs, and
        "8 GPUs on one node" is no count of nodes."""
        if value.lstrip()[:1].isdigit() and _JUST_A_COUNT.match(value) is None:
            return None
        read = {
            spec.answer
            for spec in self.environment_matches
            if self.named_by(spec.key) and spec.holds(value)
        }
        return read.pop() if len(read) == 1 else None

    def _leading(self, value: str) -> str | None:
        """The answer a described value opens with ("yes, after ten minutes", "no (fresh
        install)", "vm (AWS EC2)"): its first word, an answer itself (not another word for
        one: "inference, large batch" is not small-batch inference), where a separator
        follows it, and nothing after it takes it back ("CUDA: unchanged", "yes (probably)")
        or names another answer ("cloud (bare-metal instance)")."""
        found = _LEADING_WORD.match(value)
        if found is None:
            return None
        answer = " ".join(found.group(1).lower().replace("_", "-").split())
        if answer not in self.answers:
            return None
        rest = value[found.end() :]
        if _TAKEN_BACK.search(rest):
            return None
        others = {self._word(word.group(0)) for word in _WORD.finditer(rest)} - {None}
        return answer if others <= {answer} else None

    def from_environment(self, environment: Mapping[str, str]) -> Known | None:
        """The answer the case's ``--env`` gives: a key whose value is an answer first (the
        question's id or one of its ``environment`` keys, however spelled), then
        a value one of ``environment_matches`` reads. Values that read as two answers
        (``--env gpus=…`` naming GeForce cards on one machine and an RTX 8000 on another, or
        two keys that disagree) give none: which is the slow job's is the question's to ask."""
        for key in (self.id, *self.environment):
            given = entry(environment, key)
            if given is not None:
                answer = self._word(given[1]) or self._leading(given[1])
                if answer is not None:
                    return Known(answer, "environment", f"--env {given[0]}={given[1]}")
        found: Known | None = None
        for spec in self.environment_matches:
            given = entry(environment, spec.key)
            if given is None or not spec.holds(given[1]):
                continue
            if found is None:
                found = Known(spec.answer, "environment", f"--env {given[0]}={given[1]}")
            elif found.answer != spec.answer:
                return None
        return found

    def named_by(self, key: str) -> bool:
        """Whether ``key`` names this question: its id or one of its ``--env`` keys, however
        spelled (``Degrades-Over-Time``, ``degrades``)."""
        form = key_form(key)
        return any(key_form(k) == form for k in (self.id, *self.environment))

    def from_facts(self, seq: int, facts: Sequence[Fact]) -> Known | None:
        for spec in self.facts:
            for fact in facts:
                if fact.name == spec.fact and spec.holds(fact.value):
                    basis = f"{fact.name} = {fact.value} on {fact.subject} (seq {seq})"
                    return Known(spec.answer, "observation", basis, seq, fact.name)
        return None

    def from_answers(self, answers: Mapping[str, str]) -> Known | None:
        """The answer other questions' answers settle (question id -> answer), if one does:
        it counts as the person's own answer, since it is what theirs means."""
        found = self.implying(answers)
        if found is None:
            return None
        spec, value = found
        why = f": {spec.why}" if spec.why else ""
        return Known(spec.answer, "answered", f"{spec.intake} = {value}{why}")

    def implying(self, answers: Mapping[str, str]) -> tuple[ImpliedAnswer, str] | None:
        """The first ``implied_by`` the answers meet, and the answer that meets it."""
        for spec in self.implied_by:
            value = answers.get(spec.intake)
            if value in spec.answers:
                return spec, str(value)
        return None

    def answer_fact(self, answer: str) -> Fact:
        """The answer as the one fact its rule reads."""
        return Fact(ANSWER_FACT, answer)


def intake_from_dict(data: Any, question: str, known: set[str], where: str) -> IntakeQuestion:
    """Build and check an intake question; every problem names the question and the field."""
    if not isinstance(data, Mapping):
        raise RuleError(f"{where}: each [[intake]] must be a table")
    qid = data.get("id")
    if not isinstance(qid, str) or not qid:
        raise RuleError(f"{where}: 'id' must be a non-empty string")
    label = f"intake {qid}"
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise RuleError(f"{label}: 'text' (the question asked) is required")
    answers = data.get("answers")
    if (
        not isinstance(answers, list)
        or len(answers) < 2
        or not all(isinstance(a, str) and a == a.strip().lower() and a for a in answers)
        or len(set(answers)) != len(answers)
    ):
        raise RuleError(f"{label}: 'answers' must list at least two distinct lower-case answers")
    synonyms = data.get("synonyms", {})
    if not isinstance(synonyms, Mapping) or not all(
        isinstance(k, str) and v in answers for k, v in synonyms.items()
    ):
        raise RuleError(f"{label}: 'synonyms' must map words to declared answers")
    environment = data.get("environment", [])
    if not isinstance(environment, list) or not all(isinstance(k, str) for k in environment):
        raise RuleError(
            f"{label}: 'environment' must list environment keys (the case's KEY=VALUE entries)"
        )
    facts = tuple(_fact_answer(item, answers, label) for item in data.get("facts", []))
    matches = data.get("environment_matches", [])
    if not isinstance(matches, list):
        raise RuleError(f"{label}: 'environment_matches' must be a list of tables")
    by_value = tuple(
        spec for item in matches for spec in _environment_answers(item, answers, label)
    )
    implied = data.get("implied_by", [])
    if not isinstance(implied, list):
        raise RuleError(f"{label}: 'implied_by' must be a list of tables")
    implied_by = tuple(_implied_answer(item, answers, label) for item in implied)
    rule = rule_from_dict(
        {
            "id": RULE_PREFIX + qid,
            "version": data.get("version"),
            "title": f"Intake: {text.strip()}",
            "probes": ["intake"],
            "statistic": {"aggregate": "values", "fact": ANSWER_FACT},
            "outcomes": [{"name": a, "any_of": [a]} for a in answers],
            "likelihoods": data.get("likelihoods"),
            "rationale": data.get("rationale"),
            "reliability": data.get("reliability", DEFAULT_INTAKE_RELIABILITY),
            # what the case must state for the question to be worth asking (scaling means
            # nothing for a job on one GPU)
            "requires": data.get("requires", []),
        },
        question,
        where=label,
    )
    unknown = sorted(set(rule.likelihoods) - known)
    if unknown:
        raise RuleError(f"{label}: likelihoods name unknown hypotheses {unknown}")
    return IntakeQuestion(
        id=qid,
        version=rule.version,
        text=text.strip(),
        answers=tuple(answers),
        rule=rule,
        help=str(data.get("help", "")),
        environment=tuple(environment),
        synonyms={" ".join(k.lower().split()): v for k, v in synonyms.items()},
        facts=facts,
        environment_matches=by_value,
        implied_by=implied_by,
    )


def _implied_answer(item: Any, answers: list[str], label: str) -> ImpliedAnswer:
    if not isinstance(item, Mapping) or not isinstance(item.get("intake"), str):
        raise RuleError(f"{label}: each of 'implied_by' needs an 'intake' (another question)")
    given = item.get("answers")
    if not isinstance(given, list) or not given or not all(isinstance(a, str) for a in given):
        raise RuleError(f"{label}: implied_by needs 'answers' (that question's answers)")
    answer = item.get("answer")
    if answer not in answers:
        raise RuleError(f"{label}: implied_by answer {answer!r}, which is not a declared answer")
    why = item.get("why", "")
    if not isinstance(why, str):
        raise RuleError(f"{label}: implied_by 'why' must be a string")
    return ImpliedAnswer(str(item["intake"]), tuple(given), str(answer), why.strip())


def _environment_answers(
    item: Any, answers: list[str], label: str
) -> tuple[EnvironmentAnswer, ...]:
    """One table of ``environment_matches``: its ``key``, or each of its ``keys`` (one pattern
    for the keys people put one description under: platform, host, instance)."""
    if isinstance(item, Mapping) and "keys" in item and "key" not in item:
        keys = item["keys"]
        if (
            not isinstance(keys, list)
            or not keys
            or not all(isinstance(k, str) and k for k in keys)
        ):
            raise RuleError(f"{label}: environment_matches 'keys' must list environment keys")
        return tuple(_environment_answer({**item, "key": key}, answers, label) for key in keys)
    return (_environment_answer(item, answers, label),)


def _environment_answer(item: Any, answers: list[str], label: str) -> EnvironmentAnswer:
    if not isinstance(item, Mapping) or not isinstance(item.get("key"), str) or not item["key"]:
        raise RuleError(
            f"{label}: each of 'environment_matches' needs a 'key' (an environment key) or "
            "'keys' (several)"
        )
    answer = item.get("answer")
    if answer not in answers:
        raise RuleError(
            f"{label}: environment_matches answer {answer!r}, which is not a declared answer"
        )
    pattern = item.get("matches")
    if not isinstance(pattern, str) or not pattern:
        raise RuleError(f"{label}: environment_matches needs 'matches' (a pattern)")
    try:
        re.compile(pattern)
    except re.error as error:
        raise RuleError(
            f"{label}: environment_matches 'matches' is not a valid pattern: {error}"
        ) from None
    return EnvironmentAnswer(
        key=str(item["key"]), matches=pattern, answer=str(answer), says=_says(item, label)
    )


def _says(item: Mapping[str, Any], label: str) -> str:
    """A pattern's words (``says``), optional: without them the pattern itself is shown."""
    says = item.get("says", "")
    if not isinstance(says, str):
        raise RuleError(f"{label}: 'says' must be a string (what the pattern reads, in words)")
    return says.strip()


def _fact_answer(item: Any, answers: list[str], label: str) -> FactAnswer:
    if not isinstance(item, Mapping) or not isinstance(item.get("fact"), str):
        raise RuleError(f"{label}: each of 'facts' needs a 'fact' name")
    answer = item.get("answer")
    if answer not in answers:
        raise RuleError(f"{label}: facts answer {answer!r}, which is not a declared answer")
    matches = item.get("matches")
    if matches is not None:
        try:
            re.compile(str(matches))
        except re.error as error:
            raise RuleError(f"{label}: facts 'matches' is not a valid pattern: {error}") from None
    at_least, below = item.get("at_least"), item.get("below")
    for name, bound in (("at_least", at_least), ("below", below)):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int | float)):
            raise RuleError(f"{label}: facts {name!r} must be a number")
    return FactAnswer(
        at_least=float(at_least) if at_least is not None else None,
        below=float(below) if below is not None else None,
        fact=str(item["fact"]),
        answer=str(answer),
        equals=item.get("equals"),
        any_of=tuple(str(v) for v in item.get("any_of", ())),
        matches=str(matches) if matches is not None else None,
        says=_says(item, label),
    )


@dataclass(frozen=True)
class Disagreement:
    """Two answers in force that cannot both hold, by what the words mean (``implied_by``): one
    GPU in all, yet several nodes. Neither is withdrawn (which is wrong is the person's to
    say), but the front ends say so rather than record the second without a word."""

    question: str
    answer: str
    #: the other question, its answer, and the answer that one implies here
    premise: str
    premise_answer: str
    implied: str
    why: str = ""

    @property
    def said(self) -> str:
        why = f" ({self.why})" if self.why else ""
        return (
            f"the answers disagree: {self.question} = {self.answer}, but "
            f"{self.premise} = {self.premise_answer} means {self.question} = {self.implied}{why}"
        )


def disagreements(
    questions: Sequence[IntakeQuestion], answers: Mapping[str, str]
) -> list[Disagreement]:
    """Each answer in force (question id -> answer) that another answer in force implies
    otherwise, each pair of questions once (nodes = multi against gpu-count = one is the
    same contradiction as gpu-count = one against nodes = multi)."""
    found: list[Disagreement] = []
    for question in questions:
        answer = answers.get(question.id)
        implied = question.implying(answers) if answer is not None else None
        if answer is None or implied is None or implied[0].answer == answer:
            continue
        spec, value = implied
        if any({d.question, d.premise} == {question.id, spec.intake} for d in found):
            continue
        found.append(Disagreement(question.id, answer, spec.intake, value, spec.answer, spec.why))
    return found
