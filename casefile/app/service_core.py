"""What every verb of the service stands on: the store and plugins, the sessions that hold
cases folded, and the write loop (decide on the fold, append, retry on a lost race)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from casefile.app.draft import Draft
from casefile.app.recording import opened_from
from casefile.app.session import CaseSession, write_retrying
from casefile.app.who import Who
from casefile.domain.events import NewEvent
from casefile.errors import SEE_CASES, CaseNotFound

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.ranking import Candidate
    from casefile.domain.events import Event
    from casefile.plugins import Registry
    from casefile.store.base import EventStore


class ServiceCore:
    """The service's state and the means its verbs share."""

    def __init__(self, store: EventStore, registry: Registry | None = None) -> None:
        if registry is None:
            from casefile.plugins import Registry

            registry = Registry()
        self.store = store
        self.registry = registry
        self._sessions: dict[tuple[str, bool], CaseSession] = {}

    def flush(self) -> None:
        """Write the fold snapshots that folding big cases made due (after a command has
        answered: the next one on that case then starts from it)."""
        for session in self._sessions.values():
            session.save_snapshot()

    def close(self) -> None:
        self.flush()
        self._sessions.clear()
        self.store.close()

    def resolve(self, reference: str) -> str:
        """The case id a reference names: exact (one indexed read), else a unique prefix."""
        from casefile.app.opening import resolve_reference

        if self.store.head(reference)[0] > 0:
            return reference
        return resolve_reference(self.store.case_ids(), reference)

    def session(self, case_id: str, *, history: bool = True) -> CaseSession:
        """The session on a case, kept for this service's lifetime (a TUI's case stays folded).

        ``history=False`` holds the current state only (no trajectory) and may start from a
        stored snapshot: the state and its views are the same (one-shot commands use that).
        """
        full = self._sessions.get((case_id, True))
        if full is not None:
            return full  # a session with the whole history serves every view and verb
        key = (case_id, history)
        session = self._sessions.get(key)
        if session is None:
            session = CaseSession(self.store, case_id, history=history)
            self._sessions[key] = session
            if history:
                state_only = self._sessions.pop((case_id, False), None)
                if state_only is not None:  # one fold per case: the full one from now on
                    state_only.save_snapshot()
        return session

    def _current(self, case_id: str, *, history: bool) -> Projection:
        session = self.session(case_id, history=history)
        session.refresh()
        return session.projection

    def events(self, case_id: str, *, after: int = 0, upto: int | None = None) -> list[Event]:
        events = self.store.load(case_id, upto, after=after)
        if not events and after == 0:
            raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)
        return events

    def projection(self, case_id: str, upto: int | None = None) -> Projection:
        """The case folded with its whole history (up to ``upto``)."""
        from casefile.domain.beliefs import project

        if upto is None:
            return self._current(case_id, history=True)
        return project(self.events(case_id, upto=upto))

    def candidates(self, projection: Projection) -> list[Candidate]:
        """Every probe + rule pair that the playbooks opened in this case offer, less the pairs
        whose rule reads facts the probe says it cannot give (see ``ranking.feeds``): a probe
        is credited only with the rules its run can feed. Each experiment rule not yet read in
        the case is offered too, as ``A/B <id>`` at the experiment's own cost (a benchmark
        rerun, or a reboot into firmware settings), and each intake question not yet answered
        as ``intake <id>``, at no cost: a person knows whether the slowdown followed an
        upgrade sooner than a benchmark can show it."""
        from casefile.domain.beliefs.ranking import (
            EXPERIMENT_PREFIX,
            INTAKE_PREFIX,
            Candidate,
            feeds,
        )

        probes = self.registry.all_probes()
        out = []
        read = {
            str(state.rule.get("id"))
            for state in projection.evidence.values()
            if state.active and state.rule is not None
        }
        for playbook in self.registry.all_playbook_versions():
            for rule in playbook.rules:
                if not opened_from(projection, rule.question, playbook.ref):
                    continue
                for name in rule.probes:
                    probe = probes.get(name)
                    if probe is not None and not feeds(rule, probe.facts):
                        continue
                    out.append(Candidate(name, rule, probe.cost if probe else "moderate"))
            for experiment in playbook.experiments:
                rule = experiment.rule
                if opened_from(projection, rule.question, playbook.ref) and rule.id not in read:
                    out.append(Candidate(EXPERIMENT_PREFIX + experiment.id, rule, experiment.cost))
            for question in playbook.intake:
                rule = question.rule
                if not opened_from(projection, rule.question, playbook.ref) or rule.id in read:
                    continue
                answering = {spec.fact for spec in question.facts}
                if answering and any(
                    other.id in read and answering & set(other.reads) for other in playbook.rules
                ):
                    continue  # a probe's rule counted the reading that answers it: not twice
                out.append(Candidate(INTAKE_PREFIX + question.id, rule, "instant"))
        return out

    def integrity_warnings(self, case_id: str) -> list[str]:
        """What this service's sessions noticed about the record (a rewritten history)."""
        return [
            message
            for (cid, _), session in self._sessions.items()
            if cid == case_id
            for message in session.integrity_warnings
        ]

    def head(self, case_id: str) -> tuple[int, str]:
        return self.store.head(case_id)

    def _execute(
        self, case_id: str, decide: Callable[[Draft], Any], who: Who
    ) -> tuple[list[Event], Any]:
        return self.session(case_id, history=False).execute(decide, who)

    def _append_at_head(self, case_id: str, event: NewEvent, who: Who) -> Event:
        """Append one event that needs no belief state, knowing only the head: its cost does
        not grow with the case."""
        stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)

        def attempt() -> Event:
            seq, _ = self.store.head(case_id)
            if seq == 0:
                raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)
            return self.store.append(case_id, seq, [stamped])[0]

        return write_retrying(self.store, case_id, attempt)

    def _one(self, case_id: str, make: Callable[[Projection], NewEvent], who: Who) -> Event:
        appended, _ = self._execute(case_id, lambda draft: draft.add(make(draft.projection)), who)
        return appended[0]
