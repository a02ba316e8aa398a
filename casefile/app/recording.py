"""Recording one probe run: its raw output, its parsed facts, and what the rules make of them.

One append per run: the probe run, the observation (even when nothing parsed: the raw output is
kept and the observation says why), then, for each rule of an open playbook that reads this
probe, either an evidence event or a visible set-aside record.

The raw output is stored first, as the exact bytes the runner captured (never re-encoded from
the decoded text, which replaced what was not UTF-8). A run whose output could not be stored is
still recorded, as a failed run that says why; a stream the runner cut to its head and tail is
named, with its byte counts, in the probe run's ``truncated`` and in the observation's problems.

Output recorded under the generic ``command`` probe, or under a probe that could not read it,
is offered to every other installed probe that recognises it (:class:`Readers`): people paste
a profiler table or a training log from whatever command printed it. Each one that reads it
adds its facts to the observation (which names them in ``read_as``) and its rules to those
that judge the run, which keeps the probe it was recorded under.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from casefile.app.rule_verdicts import apply_rules, opened_from
from casefile.domain.events import NewEvent
from casefile.domain.facts import Fact, ParseResult
from casefile.domain.rules import Rule
from casefile.domain.stated import SOURCE as STATED
from casefile.domain.stated import read_statement
from casefile.errors import StoreError

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.domain.playbook import Playbook
    from casefile.plugins import Registry
    from casefile.probes.api import Probe, RunOutput
    from casefile.probes.runners.result import RunResult, Truncation


@dataclass(frozen=True)
class ProbeRecord:
    """What recording one probe run appended, and why it failed if it did."""

    probe_run_seq: int
    observation_seq: int
    parse: ParseResult
    evidence_ids: list[str]
    set_aside: list[str]
    result: RunResult
    #: one line: why the run failed or taught nothing (None when it ran and parsed)
    failure: str | None = None
    #: every seq this run appended, in order
    seqs: tuple[int, ...] = ()
    #: the other setup the run was taken on (``--setup``): no rule read it
    setup: str | None = None
    #: the other probes that read the output (see :class:`Readers`), by name
    read_as: tuple[str, ...] = ()
    #: how many different secrets were scrubbed before the run was sealed
    scrubbed: int = 0
    #: what rules that could not read the run still needed: a stated reading's other facts
    #: (``power-headroom also needs power.limit``), or what the case must state
    #: (``rdma-rate also needs the ports' rate …``)
    wanting: tuple[str, ...] = ()
    #: the intake answers a stated reading's facts give (``gpu-class: consumer``)
    intake_reads: tuple[str, ...] = ()
    #: readings withdrawn at once, as ``nccl-network (does not apply: nodes = single (seq
    #: 29))``: an answer in force rules their rule out
    withdrawn: tuple[str, ...] = ()


@dataclass(frozen=True)
class Collected:
    """A run's output stored and parsed, ready to be decided into events."""

    probe: Probe
    result: RunResult
    parsed: ParseResult
    run_payload: dict[str, Any]
    conditions: dict[str, Any]
    rules: list[tuple[Playbook, Rule]]
    #: the other probes that read the output (see :class:`Readers`), by name
    read_as: tuple[str, ...] = ()


#: The probe that runs any command; what it records is offered to the probes that know it.
COMMAND = "command"


@dataclass
class Readers:
    """The installed probes a run's output may be offered to, and the rules of each.

    Output recorded under ``command``, or under a probe that could not read it, is offered to
    every other probe whose ``recognises`` accepts it, in name order (so a run always reads
    the same way). A probe that covers another that also recognised it reads for both.
    """

    probes: Mapping[str, Probe]
    #: the (playbook, rule) pairs that read a probe, by its name; none when rules are off
    rules_of: Callable[[str], list[tuple[Playbook, Rule]]]
    _rules: dict[str, list[tuple[Playbook, Rule]]] = field(default_factory=dict)

    @classmethod
    def of(cls, registry: Registry, with_rules: bool = True) -> Readers:
        def rules_of(name: str) -> list[tuple[Playbook, Rule]]:
            return rules_for(registry, name) if with_rules else []

        return cls(registry.all_probes(), rules_of)

    def rules(self, name: str) -> list[tuple[Playbook, Rule]]:
        if name not in self._rules:
            self._rules[name] = self.rules_of(name)
        return self._rules[name]

    def recognising(self, recorded: str, text: str) -> list[Probe]:
        """The probes other than ``recorded`` (and ``command``) that recognise ``text``."""
        from casefile.probes.api import unwrap_paste

        plain = unwrap_paste(text)
        found = [
            probe
            for name, probe in sorted(self.probes.items())
            if name not in (recorded, COMMAND) and _recognises(probe, plain)
        ]
        covered = {name for probe in found for name in probe.covers}
        return [probe for probe in found if probe.name not in covered]


def _recognises(probe: Probe, text: str) -> bool:
    """Whether ``probe`` says ``text`` is its output; a recogniser's bug says no."""
    if probe.recognises is None:
        return False
    try:
        return bool(probe.recognises(text))
    except Exception:  # a plugin's recogniser must never cost the run
        return False


def read_by_others(
    readers: Readers, probe: Probe, parsed: ParseResult, text: str, output: RunOutput
) -> tuple[ParseResult, list[Probe]]:
    """``parsed`` with the facts of every other probe that recognises ``text`` and reads it,
    and those probes; as it was, and none, where ``probe`` is not ``command`` and read it."""
    if not text.strip() or (probe.name != COMMAND and parsed.parsed):
        return parsed, []
    facts, problems, read = list(parsed.facts), list(parsed.problems), []
    for other in readers.recognising(probe.name, text):
        result = other.safe_parse(text, output)
        if result.parsed and result.facts:
            read.append(other)
            facts.extend(result.facts)
            problems.extend(f"{other.name}: {problem}" for problem in result.problems)
    if not read:
        return parsed, []
    return ParseResult(facts, problems, True), read


def rules_for(registry: Registry, probe_name: str) -> list[tuple[Playbook, Rule]]:
    """(playbook, rule) for every installed rule, of every playbook version, that reads this
    probe; each is applied only to a question opened from its own version."""
    rules: list[tuple[Playbook, Rule]] = []
    for playbook in registry.all_playbook_versions():
        rules.extend((playbook, rule) for rule in playbook.rules_for_probe(probe_name))
    return rules


def parse_run(
    probe: Probe,
    result: RunResult,
    *,
    stdout_digest: str | None,
    stderr_digest: str | None,
    load: str,
    reconstructed: bool,
    note: str | None,
    rules: list[tuple[Playbook, Rule]],
    setup: str | None = None,
    readers: Readers | None = None,
    scrubbed: int = 0,
    scrub: bool = True,
) -> Collected:
    """Parse a run and build the probe run's payload (artifacts already stored).

    With ``readers``, output recorded under ``command``, or that ``probe`` could not read, is
    offered to the other probes that recognise it: their facts join the observation, their
    rules join ``rules``, and the run's note says which read it.

    A run on another ``setup`` than the one under investigation is parsed and kept like any
    other, but no rule reads it: its facts describe a different system (the old version, the
    fixed machine, an experiment's variant), and read as the case's state they would count
    against the very cause the comparison is meant to show. An experiment compares it.

    ``scrubbed`` secrets were taken out of the run before it came here
    (:func:`casefile.app.scrubbing.scrub_run`);
    ``scrub=False`` records that the user kept them.
    """
    from casefile.app.probing import failure_reason
    from casefile.probes.api import RunOutput

    stated = result.source == STATED
    timed = result.source not in ("pasted", STATED)
    output = RunOutput(
        result.argv,
        result.stdout,
        result.stderr,
        result.exit_status,
        result.duration_s if timed else None,
        result.source,
    )
    parsed = read_statement(result.stdout) if stated else probe.safe_parse(result.stdout, output)
    read: list[Probe] = []
    if stated:
        pass  # told as this probe's facts: no other parser reads a statement
    elif result.error and not result.stdout:
        parsed = ParseResult.unparsed(f"no output: {failure_reason(result)}")
    elif readers is not None:
        parsed, read = read_by_others(readers, probe, parsed, result.stdout, output)
    read_as = tuple(other.name for other in read)
    if read_as and readers is not None:
        said = "read as " + ", ".join(read_as)
        note = f"{note} ({said})" if note else said
        rules = _merged(rules, *(readers.rules(name) for name in read_as))
    if result.truncated:
        cuts = [cut.describe() for cut in result.truncated]
        parsed = ParseResult(list(parsed.facts), [*parsed.problems, *cuts], parsed.parsed)
    conditions: dict[str, Any] = {"load": load, "host": result.host}
    if setup is not None:
        conditions["setup"] = setup
    payload: dict[str, Any] = {
        "probe": probe.name,
        "argv": list(result.argv),
        "host": result.host,
        "source": result.source,
        "exit_status": result.exit_status,
        "timed_out": result.timed_out,
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "duration_s": result.duration_s,
        "stdout_artifact": stdout_digest,
        "stderr_artifact": stderr_digest,
        # recorded with the advice a front end gives (--trust-host), not the runner's own
        "error": failure_reason(result) if result.error else None,
        "error_kind": result.error_kind,
        "conditions": conditions,
        "reconstructed": reconstructed,
        "note": note,
        # absent, not empty, when nothing was cut: earlier runs' payloads stay as they were
        "truncated": [_truncation(cut) for cut in result.truncated] or None,
        "scrubbed": scrubbed or None,
        "scrub": None if scrub else False,
    }
    # A run that produced nothing readable gives the rules nothing to judge: no evidence and
    # no set-aside records for a reading that does not exist (the unparsed warning stands).
    readable = parsed.parsed and bool(parsed.facts)
    return Collected(
        probe,
        result,
        parsed,
        {k: v for k, v in payload.items() if v is not None},
        conditions,
        rules if readable and setup is None else [],
        read_as,
    )


def _merged(*groups: list[tuple[Playbook, Rule]]) -> list[tuple[Playbook, Rule]]:
    """The rules of every group, each (playbook version, rule) once, in order."""
    seen: set[tuple[str, str]] = set()
    merged: list[tuple[Playbook, Rule]] = []
    for group in groups:
        for playbook, rule in group:
            if (playbook.ref, rule.id) not in seen:
                seen.add((playbook.ref, rule.id))
                merged.append((playbook, rule))
    return merged


def _truncation(cut: Truncation) -> dict[str, Any]:
    """A stream's cut as the probe run records it (what was omitted follows from these)."""
    return {
        "stream": cut.stream,
        "total_bytes": cut.total_bytes,
        "head_bytes": cut.head_bytes,
        "tail_bytes": cut.tail_bytes,
    }


@dataclass(frozen=True)
class StoredOutput:
    """The digests of a run's raw output, and the run as it is to be recorded."""

    stdout_digest: str | None
    stderr_digest: str | None
    #: the run itself, or, when its output could not be stored, the run marked failed
    result: RunResult


def store_output(put: Callable[[bytes], str], result: RunResult) -> StoredOutput:
    """Store the run's exact output bytes with ``put``; a store that refuses them makes the
    run a failed one (recorded all the same) rather than an exception that loses it."""
    try:
        stdout_digest = put(result.raw_stdout())
        stderr = result.raw_stderr()
        stderr_digest = put(stderr) if stderr else None
    except StoreError as error:
        why = f"raw output could not be stored: {error}"
        message = f"{result.error}; {why}" if result.error else why
        failed = replace(result, error=message, error_kind=result.error_kind or "artifact")
        return StoredOutput(None, None, failed)
    return StoredOutput(stdout_digest, stderr_digest, result)


@dataclass(frozen=True)
class Decided:
    """What deciding one run added: its seqs, the evidence, the rules that set it aside, and
    for a stated reading, what the rules that read a stated fact still needed."""

    run_seq: int
    obs_seq: int
    evidence_ids: list[str]
    set_aside: list[str]
    wanting: list[str]
    #: the intake answers a stated reading's facts give (``gpu-class: consumer``)
    intake_reads: list[str] = field(default_factory=list)
    #: readings withdrawn at once: an answer in force rules their rule out
    withdrawn: list[str] = field(default_factory=list)


def decide_run(draft: Draft, collected: Collected, at: str | None = None) -> Decided:
    """Add the probe run, its observation and the rules' verdicts to the draft (the run and
    its observation occurred ``at``, when given: a run read from a recording)."""
    run_seq = draft.add(NewEvent("probe.ran", collected.run_payload, occurred_at=at))
    parsed = collected.parsed
    observation: dict[str, Any] = {
        "probe_run_seq": run_seq,
        "probe": collected.probe.name,
        "facts": [fact.to_dict() for fact in parsed.facts],
        "parsed": parsed.parsed,
        "problems": parsed.problems,
        "conditions": collected.conditions,
    }
    if collected.read_as:  # absent otherwise: earlier observations hash as they did
        observation["read_as"] = list(collected.read_as)
    obs_seq = draft.add(NewEvent("observation.recorded", observation, occurred_at=at))
    load = str(collected.conditions["load"])
    stated = collected.run_payload.get("source") == STATED
    verdicts = apply_rules(
        draft, collected.rules, parsed.facts, load, obs_seq, run_seq, reported=stated
    )
    intake = intake_reads(draft, collected.rules, parsed.facts) if stated else []
    return Decided(
        run_seq,
        obs_seq,
        verdicts.evidence_ids,
        verdicts.set_aside,
        verdicts.wanting,
        intake,
        verdicts.withdrawn,
    )


def intake_reads(
    draft: Draft, rules: Sequence[tuple[Playbook, Rule]], facts: Sequence[Fact]
) -> list[str]:
    """The intake answers the facts give, as ``gpu-class: consumer`` (a stated GPU name
    answers gpu-class): a statement no rule read may still have answered a question."""
    answered: list[str] = []
    seen: set[str] = set()
    for playbook, rule in rules:
        if playbook.ref in seen or not opened_from(draft.projection, rule.question, playbook.ref):
            continue
        seen.add(playbook.ref)
        for question in playbook.intake:
            answered += [
                f"{question.id}: {spec.answer}"
                for spec in question.facts
                for fact in facts
                if fact.name == spec.fact and spec.holds(fact.value)
            ]
    return list(dict.fromkeys(answered))


def outcome_failure(record_parse: ParseResult, result: RunResult, reason: str | None) -> str | None:
    """The run's failure, or, for a run that worked but taught nothing, why it did not parse."""
    if reason is None and not record_parse.parsed:
        # a sampler that could not start, or output of another tool: nothing was learned
        why = "; ".join(record_parse.problems[:1]) or "no reason given"
        return f"output did not parse: {why} (the raw output is recorded)"
    return reason
