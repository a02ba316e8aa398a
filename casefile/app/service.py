"""The application service: every action a responder takes, over one event store.

The CLI and the terminal UI are thin layers over this class. Each action re-reads the case,
folds it, lets a domain command decide which events to append, and appends them stating the
``seq`` it read; if another writer got in first, it re-reads and decides again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from casefile.domain import commands
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.views import (
    Candidate,
    Decisive,
    NextStep,
    ProbeStep,
    decisive_evidence,
    rank_next_steps,
    rank_probes,
)
from casefile.domain.catalogue import validate_payload
from casefile.domain.events import Event, NewEvent, seal
from casefile.domain.facts import Fact, ParseResult
from casefile.domain.rules import Applied, Rule, SetAside, evaluate
from casefile.errors import CaseNotFound, ConcurrencyError, DomainError
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.probes.runners.result import RunResult
from casefile.store.base import EventStore

RETRIES = 8


@dataclass
class Draft:
    """Events decided but not yet appended, folded provisionally so later ones can refer to them.

    A probe run, its observation and the evidence rules derive from it are one append: the
    evidence must name the observation's ``seq``, which the draft predicts.
    """

    projection: Projection
    case_id: str
    events: list[NewEvent] = field(default_factory=list)

    @property
    def next_seq(self) -> int:
        return self.projection.last_seq + 1

    def add(self, new: NewEvent) -> int:
        payload = validate_payload(new.type, new.version, new.payload)
        normal = NewEvent(new.type, payload, new.actor, new.occurred_at, new.version)
        seq = self.next_seq
        provisional = seal(self.case_id, seq, "provisional", normal, recorded_at="")
        project([provisional], into=self.projection)
        self.events.append(normal)
        return seq


@dataclass(frozen=True)
class ProbeRecord:
    """What recording one probe run appended."""

    probe_run_seq: int
    observation_seq: int
    parse: ParseResult
    evidence_ids: list[str]
    set_aside: list[str]
    result: RunResult


def opened_from(projection: Projection, question_id: str, playbook_id: str) -> bool:
    """Whether the case's question was opened from that playbook (any version)."""
    question = projection.questions.get(question_id)
    return (
        question is not None
        and question.playbook is not None
        and question.playbook.split("@", 1)[0] == playbook_id
    )


class CaseService:
    def __init__(self, store: EventStore, registry: Registry | None = None) -> None:
        self.store = store
        self.registry = registry or Registry()

    # --- reading ---------------------------------------------------------------------------

    def events(self, case_id: str, upto: int | None = None) -> list[Event]:
        events = self.store.load(case_id, upto)
        if not events:
            raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
        return events

    def projection(self, case_id: str, upto: int | None = None) -> Projection:
        return project(self.events(case_id, upto))

    def cases(self) -> list[tuple[str, Projection]]:
        return [(cid, project(self.store.load(cid, 1))) for cid in self.store.case_ids()]

    # --- writing ---------------------------------------------------------------------------

    def _execute(
        self, case_id: str, decide: Callable[[Draft], Any], actor: str, occurred_at: str | None
    ) -> tuple[list[Event], Any]:
        """Decide events against the current state and append them; retry on a lost race."""
        for _attempt in range(RETRIES):
            events = self.store.load(case_id)
            if not events:
                raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
            draft = Draft(project(events), case_id)
            result = decide(draft)
            stamped = [
                NewEvent(e.type, e.payload, actor, e.occurred_at or occurred_at, e.version)
                for e in draft.events
            ]
            try:
                return self.store.append(case_id, events[-1].seq, stamped), result
            except ConcurrencyError:
                continue
        raise ConcurrencyError(case_id, events[-1].seq)

    def new_case(
        self,
        title: str,
        symptom: str | None = None,
        environment: Mapping[str, str] | None = None,
        case_id: str | None = None,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> str:
        cid = commands.check_case_id(case_id) if case_id else uuid.uuid4().hex[:12]
        event = commands.open_case(title, symptom, **dict(environment or {}))
        try:
            self.store.append(
                cid, 0, [NewEvent(event.type, event.payload, actor, occurred_at, event.version)]
            )
        except ConcurrencyError:
            raise DomainError(f"case {cid!r} already exists; choose another --id") from None
        return cid

    def _one(
        self,
        case_id: str,
        make: Callable[[Projection], NewEvent],
        actor: str,
        occurred_at: str | None,
    ) -> Event:
        appended, _ = self._execute(
            case_id, lambda draft: draft.add(make(draft.projection)), actor, occurred_at
        )
        return appended[0]

    def note(
        self, case_id: str, text: str, actor: str = "user", occurred_at: str | None = None
    ) -> Event:
        if not text.strip():
            raise DomainError("a note needs some text")
        return self._one(
            case_id, lambda _: NewEvent("note.added", {"text": text}), actor, occurred_at
        )

    def act(
        self,
        case_id: str,
        text: str,
        outcome: str | None = None,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> Event:
        payload = {"text": text, **({"outcome": outcome} if outcome else {})}
        return self._one(case_id, lambda _: NewEvent("action.taken", payload), actor, occurred_at)

    def conclude(
        self,
        case_id: str,
        summary: str,
        root_cause: str | None = None,
        recommendations: Sequence[str] = (),
        lessons: Sequence[str] = (),
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> Event:
        def make(p: Projection) -> NewEvent:
            if root_cause is not None and root_cause not in p.hypothesis_question:
                raise DomainError(f"no hypothesis {root_cause!r} to name as the root cause")
            payload: dict[str, Any] = {
                "summary": summary,
                "recommendations": list(recommendations),
                "lessons": list(lessons),
            }
            if root_cause:
                payload["root_cause"] = root_cause
            return NewEvent("case.concluded", payload)

        return self._one(case_id, make, actor, occurred_at)

    def add_question(
        self,
        case_id: str,
        text: str,
        question_id: str | None = None,
        catch_all: float = 0.1,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> str:
        event = self._one(
            case_id,
            lambda p: commands.propose_question(p, text, question_id, catch_all),
            actor,
            occurred_at,
        )
        return str(event.payload["question_id"])

    def add_hypothesis(
        self,
        case_id: str,
        text: str,
        under: str,
        prior: float,
        hypothesis_id: str | None = None,
        meaning: str | None = None,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> str:
        event = self._one(
            case_id,
            lambda p: commands.propose_hypothesis(p, text, under, prior, hypothesis_id, meaning),
            actor,
            occurred_at,
        )
        return str(event.payload["hypothesis_id"])

    def refine_hypothesis(
        self,
        case_id: str,
        hid: str,
        text: str,
        reason: str | None = None,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> Event:
        return self._one(
            case_id, lambda p: commands.refine_hypothesis(p, hid, text, reason), actor, occurred_at
        )

    def retire_hypothesis(
        self,
        case_id: str,
        hid: str,
        reason: str,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> Event:
        return self._one(
            case_id, lambda p: commands.retire_hypothesis(p, hid, reason), actor, occurred_at
        )

    def reinstate_hypothesis(
        self,
        case_id: str,
        hid: str,
        reason: str | None = None,
        actor: str = "user",
        occurred_at: str | None = None,
    ) -> Event:
        return self._one(
            case_id, lambda p: commands.reinstate_hypothesis(p, hid, reason), actor, occurred_at
        )

    def assess(
        self,
        case_id: str,
        likelihoods: Mapping[str, float],
        rationale: str,
        actor: str = "user",
        occurred_at: str | None = None,
        **options: Any,
    ) -> Event:
        """Record evidence; ``options`` are those of :func:`commands.assess_evidence`."""
        return self._one(
            case_id,
            lambda p: commands.assess_evidence(p, likelihoods, rationale, **options),
            actor,
            occurred_at,
        )

    def open_playbook(
        self, case_id: str, playbook_id: str, actor: str = "user", occurred_at: str | None = None
    ) -> str:
        """Propose a playbook's question and hypothesis tree in the case, as ordinary events."""
        playbook = self.registry.playbook(playbook_id)

        def decide(draft: Draft) -> str:
            draft.add(
                commands.propose_question(
                    draft.projection,
                    playbook.question_text,
                    playbook.question_id,
                    playbook.catch_all,
                    playbook=f"{playbook.id}@{playbook.version}",
                )
            )
            for spec in playbook.hypotheses:
                draft.add(
                    commands.propose_hypothesis(
                        draft.projection,
                        spec.text,
                        spec.parent or playbook.question_id,
                        spec.prior,
                        spec.id,
                        spec.meaning,
                    )
                )
            return playbook.question_id

        _, qid = self._execute(case_id, decide, actor, occurred_at)
        return str(qid)

    # --- probes ----------------------------------------------------------------------------

    def record_probe(
        self,
        case_id: str,
        probe: Probe,
        result: RunResult,
        load: str = "unknown",
        reconstructed: bool = False,
        note: str | None = None,
        actor: str = "user",
        occurred_at: str | None = None,
        apply_rules: bool = True,
    ) -> ProbeRecord:
        """Store a run's raw output, its parsed facts, and what the rules make of them.

        One append: the probe run, the observation (even when nothing parsed — the raw
        output is kept and the observation says why), then for each rule of an open playbook
        that reads this probe either an evidence event or a visible set-aside record.
        """
        stdout_digest = self.store.put_artifact(result.stdout.encode("utf-8"))
        stderr_digest = (
            self.store.put_artifact(result.stderr.encode("utf-8")) if result.stderr else None
        )
        parsed = probe.safe_parse(result.stdout)
        if result.error and not result.stdout:
            parsed = ParseResult.unparsed(f"no output: {result.error}")
        conditions: dict[str, Any] = {"load": load, "host": result.host}
        run_payload: dict[str, Any] = {
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
            "error": result.error,
            "conditions": conditions,
            "reconstructed": reconstructed,
            "note": note,
        }
        # A run that produced nothing readable gives the rules nothing to judge: no evidence and
        # no set-aside records for a reading that does not exist (the unparsed warning stands).
        readable = parsed.parsed and bool(parsed.facts)
        rules = self._rules_for(probe.name) if apply_rules and readable else []

        def decide(draft: Draft) -> tuple[int, int, list[str], list[str]]:
            run_seq = draft.add(
                NewEvent("probe.ran", {k: v for k, v in run_payload.items() if v is not None})
            )
            obs_seq = draft.add(
                NewEvent(
                    "observation.recorded",
                    {
                        "probe_run_seq": run_seq,
                        "probe": probe.name,
                        "facts": [fact.to_dict() for fact in parsed.facts],
                        "parsed": parsed.parsed,
                        "problems": parsed.problems,
                        "conditions": conditions,
                    },
                )
            )
            evidence_ids, set_aside = self._apply_rules(draft, rules, parsed.facts, load, obs_seq)
            return run_seq, obs_seq, evidence_ids, set_aside

        _, (run_seq, obs_seq, evidence_ids, set_aside) = self._execute(
            case_id, decide, actor, occurred_at
        )
        return ProbeRecord(run_seq, obs_seq, parsed, evidence_ids, set_aside, result)

    def _rules_for(self, probe_name: str) -> list[tuple[str, Rule]]:
        """(playbook id, rule) for every installed rule that reads this probe."""
        rules: list[tuple[str, Rule]] = []
        for playbook in self.registry.all_playbooks().values():
            rules.extend((playbook.id, rule) for rule in playbook.rules_for_probe(probe_name))
        return rules

    def _apply_rules(
        self,
        draft: Draft,
        rules: Sequence[tuple[str, Rule]],
        facts: Sequence[Fact],
        load: str,
        obs_seq: int,
    ) -> tuple[list[str], list[str]]:
        """Apply each rule to a question opened from its own playbook (never to a question that
        merely shares its id)."""
        evidence_ids: list[str] = []
        set_aside: list[str] = []
        run_seq = draft.projection.observations[obs_seq]["probe_run_seq"]
        for playbook_id, rule in rules:
            if not opened_from(draft.projection, rule.question, playbook_id):
                continue
            verdict = evaluate(rule, facts, load)
            if isinstance(verdict, SetAside):
                draft.add(commands.set_aside(verdict, obs_seq))
                set_aside.append(rule.id)
            elif isinstance(verdict, Applied):
                try:
                    event = commands.evidence_from_rule(draft.projection, verdict, obs_seq, run_seq)
                except DomainError:
                    continue  # none of the hypotheses the rule names are in this case
                draft.add(event)
                evidence_ids.append(str(event.payload["evidence_id"]))
        return evidence_ids, set_aside

    def reapply_rules(self, case_id: str, observation_seq: int, actor: str = "user") -> list[str]:
        """Run today's rules again over a recorded observation (superseding earlier verdicts)."""

        def decide(draft: Draft) -> list[str]:
            obs = draft.projection.observations.get(observation_seq)
            if obs is None:
                raise DomainError(f"seq {observation_seq} is not an observation of this case")
            facts = [Fact.from_dict(f) for f in obs["facts"]]
            load = obs.get("conditions", {}).get("load", "unknown")
            ids, _ = self._apply_rules(
                draft, self._rules_for(obs["probe"]), facts, load, observation_seq
            )
            return ids

        _, ids = self._execute(case_id, decide, actor, None)
        return list(ids)

    # --- views -----------------------------------------------------------------------------

    def candidates(self, projection: Projection) -> list[Candidate]:
        """Every probe + rule pair that the playbooks opened in this case offer."""
        probes = self.registry.all_probes()
        out = []
        for playbook in self.registry.all_playbooks().values():
            for rule in playbook.rules:
                if not opened_from(projection, rule.question, playbook.id):
                    continue
                for name in rule.probes:
                    probe = probes.get(name)
                    out.append(Candidate(name, rule, probe.cost if probe else "moderate"))
        return out

    def next_steps(self, projection: Projection, limit: int | None = None) -> list[NextStep]:
        ranked = rank_next_steps(projection, self.candidates(projection))
        return ranked if limit is None else ranked[:limit]

    def best_probes(self, projection: Projection) -> list[ProbeStep]:
        return rank_probes(projection, self.candidates(projection))

    def suggestions_when_unmeasured(
        self, events: Sequence[Event], limit: int = 20
    ) -> dict[int, ProbeStep]:
        """The best probe to run at each step where a "never measured" warning was raised.

        This is what the tool would have told the responder at that moment: replay shows it
        under the warning. Each needs the case as it stood then, so at most ``limit`` are made.
        """
        projection = project(events)
        out: dict[int, ProbeStep] = {}
        for step in projection.trajectory:
            if len(out) >= limit:
                break
            if any(w.code == "never-measured" for w in step.raised):
                before = project(events[: step.seq])
                ranked = self.best_probes(before)
                if ranked:
                    out[step.seq] = ranked[0]
        return out

    def decisive(self, projection: Projection) -> list[Decisive]:
        return decisive_evidence(projection)
