"""The application service: the one door every front end goes through.

The CLI, the terminal UI and the report reach the core only through :class:`CaseService`: it
opens sessions on cases, runs the verbs a responder uses (each decides its events on a folded
case and appends them, retrying on a lost race), runs probes from typed requests, and builds
the typed views the front ends render. None of them imports the store, the runners or the
fold; import-linter contracts in ``pyproject.toml`` hold that.

Verbs that need no belief state (a note, an action) append knowing only the case's head, so
their cost does not grow with the case. Verbs that need the fold decide on a
:class:`~casefile.app.session.CaseSession`, which a long-lived front end keeps current by
folding only new events, and which a one-shot command starts from a stored snapshot.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from casefile.app.draft import Draft
from casefile.app.recording import ProbeRecord, opened_from, rules_for
from casefile.app.session import RETRIES, CaseSession
from casefile.app.who import NOW, Who
from casefile.domain import commands
from casefile.domain.events import NewEvent
from casefile.errors import CaseNotFound, ConcurrencyError, DomainError

if TYPE_CHECKING:
    from pathlib import Path

    from casefile.app.feed import ChangeFeed
    from casefile.app.library import Imported, Verified
    from casefile.app.probing import ProbeRequest
    from casefile.app.transcripts.ingest import IngestedRun
    from casefile.app.transcripts.proposal import Proposal
    from casefile.app.views import (
        CaseRow,
        EventDetail,
        HypothesisDetail,
        LogRow,
        ReplayView,
        StatusView,
    )
    from casefile.app.views.lists import HypothesisList, QuestionList
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.views import Candidate, ProbeStep
    from casefile.domain.events import Event
    from casefile.plugins import Registry
    from casefile.probes.api import Probe
    from casefile.probes.runners.cancel import CancelToken
    from casefile.probes.runners.result import RunResult
    from casefile.store.base import EventStore, Removed

__all__ = ["RETRIES", "CaseService", "ProbeRecord"]

#: How many "never measured" steps of a replay get the suggestion the tool would have made.
SUGGESTIONS_LIMIT = 20
#: How many pieces of decisive evidence a status carries: the ones that moved the conclusion
#: most (a long case has tens of thousands; every one of them is in its hypotheses' details).
STATUS_DECISIVE = 20


class CaseService:
    """Every action and view over one event store."""

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

    def __enter__(self) -> CaseService:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- cases -----------------------------------------------------------------------------

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

    def cases(self, *, with_leaders: bool = False) -> list[CaseRow]:
        """Every case in the database, oldest first (leaders cost a fold each: opt in)."""
        from casefile.app.library import list_cases
        from casefile.app.views import build_case_row

        rows = []
        for facts in list_cases(self.store):
            projection = self._current(facts.case_id, history=False) if with_leaders else None
            rows.append(
                build_case_row(
                    facts.case_id,
                    facts.first,
                    facts.last.seq,
                    facts.last.hash,
                    facts.last.recorded_at,
                    projection,
                )
            )
        return rows

    def verify(self, case_id: str, head: str | None = None) -> Verified:
        """Check the case; ``head`` (``SEQ@HASH`` kept elsewhere) must be in its chain too."""
        from casefile.app.library import verify, verify_directory

        directory = getattr(self.store, "directory", None)
        if directory is not None:
            return verify_directory(directory, head)
        return verify(self.store, case_id, head)

    def export(self, case_id: str, directory: str | Path) -> Path:
        from casefile.app.library import export

        return export(self.store, case_id, directory)

    def import_directory(self, directory: str | Path) -> Imported:
        from casefile.app.library import import_directory

        return import_directory(self.store, directory)

    # --- reading ---------------------------------------------------------------------------

    def events(self, case_id: str, *, after: int = 0, upto: int | None = None) -> list[Event]:
        events = self.store.load(case_id, upto, after=after)
        if not events and after == 0:
            raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
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
        is credited only with the rules its run can feed."""
        from casefile.domain.beliefs.ranking import feeds
        from casefile.domain.beliefs.views import Candidate

        probes = self.registry.all_probes()
        out = []
        for playbook in self.registry.all_playbooks().values():
            for rule in playbook.rules:
                if not opened_from(projection, rule.question, playbook.id):
                    continue
                for name in rule.probes:
                    probe = probes.get(name)
                    if probe is not None and not feeds(rule, probe.facts):
                        continue
                    out.append(Candidate(name, rule, probe.cost if probe else "moderate"))
        return out

    def status(self, case_id: str, upto: int | None = None) -> StatusView:
        """The hypothesis tree, warnings, ranked next steps and decisive evidence."""
        from casefile.app.views import build_status
        from casefile.domain.beliefs.scoring import decisive_at
        from casefile.domain.beliefs.views import rank_next_steps, rank_probes

        if upto is None:
            projection = self._current(case_id, history=False)
        else:
            projection = self.projection(case_id, upto)
        offered = self.candidates(projection)
        return build_status(
            projection,
            next_steps=rank_next_steps(projection, offered),
            best_probes=rank_probes(projection, offered),
            decisive=decisive_at(projection, limit=STATUS_DECISIVE),
            integrity=self.integrity_warnings(case_id),
        )

    def integrity_warnings(self, case_id: str) -> list[str]:
        """What this service's sessions noticed about the record (a rewritten history)."""
        return [
            message
            for (cid, _), session in self._sessions.items()
            if cid == case_id
            for message in session.integrity_warnings
        ]

    def replay(self, case_id: str, upto: int | None = None) -> ReplayView:
        """Every step: how confidences moved, pivots, surprise, warnings, and, where the leader
        had never been measured, the probe the tool would have suggested at that moment."""
        from casefile.app.views import build_replay

        projection = self._current(case_id, history=True)
        return build_replay(
            projection, upto=upto, suggestions=self.suggestions_when_unmeasured(projection, upto)
        )

    def suggestions_when_unmeasured(
        self, projection: Projection, upto: int | None = None, limit: int = SUGGESTIONS_LIMIT
    ) -> dict[int, ProbeStep]:
        """The best probe at each step that raised a "never measured" warning, ranked on that
        step's captured belief (no refold)."""
        from casefile.domain.beliefs.views import rank_probes

        offered = self.candidates(projection)
        out: dict[int, ProbeStep] = {}
        for step in projection.trajectory:
            if len(out) >= limit or (upto is not None and step.seq > upto):
                break
            if any(w.code == "never-measured" for w in step.raised):
                ranked = rank_probes(projection, offered, seq=step.seq)
                if ranked:
                    out[step.seq] = ranked[0]
        return out

    def log(self, case_id: str) -> list[LogRow]:
        """One row per event: read, not folded (a row says what its own event recorded)."""
        from casefile.app.views import build_log

        return build_log(self.events(case_id), None)

    def title(self, case_id: str) -> str:
        """The case's title, from its first event."""
        return str(self.events(case_id, upto=1)[0].payload.get("title", ""))

    def log_rows(self, case_id: str, events: Sequence[Event]) -> list[LogRow]:
        """Log rows for events just read (a follower's new ones): no fold needed."""
        from casefile.app.views import build_log

        session = self._sessions.get((case_id, True)) or self._sessions.get((case_id, False))
        projection = session.projection if session is not None and session.loaded else None
        return build_log(list(events), projection)

    def event_detail(self, case_id: str, seq: int) -> EventDetail:
        """One event in full: raw output, parsed facts, likelihoods, why it was set aside."""
        from casefile.app.views import build_event_detail
        from casefile.store.verify import referenced_artifacts

        projection = self._current(case_id, history=True)
        if not 1 <= seq <= projection.last_seq:
            raise DomainError(f"case {case_id} has no event {seq} (events 1–{projection.last_seq})")
        event = projection.events[seq - 1]
        wanted = set(referenced_artifacts(event))
        if event.type == "evidence.assessed":
            run = projection.probe_runs.get(event.payload.get("probe_run_seq") or -1)
            if run is not None:
                wanted |= {d for d in (run.get("stdout_artifact"), run.get("stderr_artifact")) if d}
        blobs = self.store.artifact_digests(wanted) if wanted else {}
        return build_event_detail(event, projection, blobs)

    def hypothesis_detail(
        self, case_id: str, hypothesis_id: str, upto: int | None = None
    ) -> HypothesisDetail:
        """Why a hypothesis's confidence is what it is: its prior and each evidence, in bits."""
        from casefile.app.views import build_hypothesis_detail
        from casefile.domain.beliefs.scoring import contributions, prior_log_odds_bits

        projection = self.projection(case_id, upto)
        if hypothesis_id not in projection.hypothesis_question and not any(
            q.catch_all_id == hypothesis_id for q in projection.questions.values()
        ):
            when = f" at seq {upto}" if upto is not None else ""
            raise DomainError(f"no hypothesis {hypothesis_id!r} in case {case_id}{when}")
        return build_hypothesis_detail(
            projection,
            hypothesis_id,
            contributions=contributions(projection, hypothesis_id),
            prior_log_odds_bits=prior_log_odds_bits(projection, hypothesis_id),
        )

    def graph(self, case_id: str, fmt: str) -> str:
        from casefile.app.graph_export import export_graph

        return export_graph(self._current(case_id, history=True), fmt)

    def graph_json(self, case_id: str) -> dict[str, Any]:
        """The hypothesis graph as plain data (``graph --format json``): nodes sorted by id,
        each with its attributes as the fold holds them (hypotheses with their confidence),
        and edges sorted by source, target and key."""
        projection = self._current(case_id, history=True)
        confidences = projection.confidences()
        graph = projection.graph
        nodes = []
        for node, data in sorted(graph.nodes(data=True)):
            row = {"id": node, **data}
            if node.startswith("h:"):  # rounded as the other formats show it
                row["confidence"] = round(confidences.get(node[2:], 0.0), 6)
            nodes.append(row)
        edges = [
            {"source": source, "target": target, "key": key, **data}
            for source, target, key, data in sorted(
                graph.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))
            )
        ]
        return {"nodes": nodes, "edges": edges}

    def follow(
        self,
        case_id: str,
        after_seq: int,
        after_hash: str,
        on_notice: Callable[[str], None] | None = None,
    ) -> ChangeFeed:
        """A change feed of the events others append after that position (``on_notice`` hears,
        once, when the feed has to poll instead of being told)."""
        from casefile.app.feed import ChangeFeed

        return ChangeFeed(
            self.store, case_id, after_seq=after_seq, after_hash=after_hash, on_notice=on_notice
        )

    def head(self, case_id: str) -> tuple[int, str]:
        return self.store.head(case_id)

    def location(self) -> str:
        """Where the store keeps its cases, for a status line: a database URL with any
        password masked, or a case directory's path."""
        engine = getattr(self.store, "_engine", None)
        if engine is not None:
            return str(engine.url.render_as_string(hide_password=True))
        directory = getattr(self.store, "directory", None)
        return str(directory) if directory is not None else type(self.store).__name__

    # --- writing ---------------------------------------------------------------------------

    def _execute(
        self, case_id: str, decide: Callable[[Draft], Any], who: Who
    ) -> tuple[list[Event], Any]:
        return self.session(case_id, history=False).execute(decide, who)

    def _append_at_head(self, case_id: str, event: NewEvent, who: Who) -> Event:
        """Append one event that needs no belief state, knowing only the head: its cost does
        not grow with the case."""
        stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)
        for _attempt in range(RETRIES):
            seq, _ = self.store.head(case_id)
            if seq == 0:
                raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
            try:
                return self.store.append(case_id, seq, [stamped])[0]
            except ConcurrencyError:
                continue
        raise ConcurrencyError(case_id, seq)

    def _one(self, case_id: str, make: Callable[[Projection], NewEvent], who: Who) -> Event:
        appended, _ = self._execute(case_id, lambda draft: draft.add(make(draft.projection)), who)
        return appended[0]

    def new_case(
        self,
        title: str,
        symptom: str | None = None,
        environment: Mapping[str, str] | None = None,
        case_id: str | None = None,
        playbook: str | None = None,
        who: Who = NOW,
    ) -> str:
        cid = commands.check_case_id(case_id) if case_id else uuid.uuid4().hex[:12]
        if playbook is not None:
            self.registry.playbook(playbook)  # an unknown playbook opens no case
        event = commands.open_case(title, symptom, **dict(environment or {}))
        stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)
        try:
            self.store.append(cid, 0, [stamped])
        except ConcurrencyError:
            raise DomainError(f"case {cid!r} already exists; choose another --id") from None
        if playbook is not None:
            self.open_playbook(cid, playbook, who)
        return cid

    def note(self, case_id: str, text: str, who: Who = NOW) -> Event:
        if not text.strip():
            raise DomainError("a note needs some text")
        return self._append_at_head(case_id, NewEvent("note.added", {"text": text}), who)

    def act(self, case_id: str, text: str, outcome: str | None = None, who: Who = NOW) -> Event:
        if not text.strip():
            raise DomainError("an action needs some text")
        payload = {"text": text, **({"outcome": outcome} if outcome else {})}
        return self._append_at_head(case_id, NewEvent("action.taken", payload), who)

    def conclude(
        self,
        case_id: str,
        summary: str,
        root_cause: str | None = None,
        recommendations: Sequence[str] = (),
        lessons: Sequence[str] = (),
        who: Who = NOW,
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

        return self._one(case_id, make, who)

    def add_question(
        self,
        case_id: str,
        text: str,
        question_id: str | None = None,
        catch_all: float = 0.1,
        who: Who = NOW,
    ) -> str:
        event = self._one(
            case_id, lambda p: commands.propose_question(p, text, question_id, catch_all), who
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
        who: Who = NOW,
    ) -> str:
        event = self._one(
            case_id,
            lambda p: commands.propose_hypothesis(p, text, under, prior, hypothesis_id, meaning),
            who,
        )
        return str(event.payload["hypothesis_id"])

    def refine_hypothesis(
        self, case_id: str, hid: str, text: str, reason: str | None = None, who: Who = NOW
    ) -> Event:
        return self._one(case_id, lambda p: commands.refine_hypothesis(p, hid, text, reason), who)

    def retire_hypothesis(self, case_id: str, hid: str, reason: str, who: Who = NOW) -> Event:
        return self._one(case_id, lambda p: commands.retire_hypothesis(p, hid, reason), who)

    def reinstate_hypothesis(
        self, case_id: str, hid: str, reason: str | None = None, who: Who = NOW
    ) -> Event:
        return self._one(case_id, lambda p: commands.reinstate_hypothesis(p, hid, reason), who)

    def assess(
        self,
        case_id: str,
        likelihoods: Mapping[str, float],
        rationale: str,
        who: Who = NOW,
        **options: Any,
    ) -> Event:
        """Record evidence; ``options`` are those of :func:`commands.assess_evidence`."""
        return self._one(
            case_id,
            lambda p: commands.assess_evidence(p, likelihoods, rationale, **options),
            who,
        )

    def open_playbook(self, case_id: str, playbook_id: str, who: Who = NOW) -> str:
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

        _, qid = self._execute(case_id, decide, who)
        return str(qid)

    # --- probes ----------------------------------------------------------------------------

    def probe(self, name: str) -> Probe:
        return self.registry.probe(name)

    def run_probe(
        self,
        case_id: str,
        request: ProbeRequest,
        who: Who = NOW,
        cancel: CancelToken | None = None,
    ) -> Iterator[ProbeRecord]:
        """Run a probe where the request says and record each host's run as it lands.

        A failed run is recorded like any other (it is data) and its record says why it
        failed; pasted output takes the time it was taken unless ``who`` says otherwise.
        Once ``cancel`` is cancelled (Ctrl-C), each run still going is recorded within about a
        second as a cancelled, failed run (``record.result.cancelled``).
        """
        from casefile.app.probing import collect, failure_reason

        probe = self.registry.probe(request.probe).with_facts(request.facts)
        if self.store.head(case_id)[0] == 0:
            raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
        for result in collect(probe, request, cancel):
            at = who.when(result.started_at if result.source == "pasted" else None)
            yield self.record_probe(
                case_id,
                probe,
                result,
                load=request.load,
                reconstructed=request.reconstructed,
                note=request.note,
                who=Who(who.actor, at),
                failure=failure_reason(result),
            )

    def record_probe(
        self,
        case_id: str,
        probe: Probe,
        result: RunResult,
        load: str = "unknown",
        reconstructed: bool = False,
        note: str | None = None,
        who: Who = NOW,
        apply_rules: bool = True,
        failure: str | None = None,
    ) -> ProbeRecord:
        """Store a run's raw output, its parsed facts, and what the rules make of them."""
        from casefile.app.probing import failure_reason
        from casefile.app.recording import decide_run, outcome_failure, parse_run, store_output

        stored = store_output(self.store.put_artifact, result)
        if stored.result is not result:  # the output could not be stored: a failed run now
            result = stored.result
            failure = failure_reason(result)
        collected = parse_run(
            probe,
            result,
            stdout_digest=stored.stdout_digest,
            stderr_digest=stored.stderr_digest,
            load=load,
            reconstructed=reconstructed,
            note=note,
            rules=rules_for(self.registry, probe.name) if apply_rules else [],
        )
        appended, (run_seq, obs_seq, evidence_ids, set_aside) = self._execute(
            case_id, lambda draft: decide_run(draft, collected), who
        )
        return ProbeRecord(
            run_seq,
            obs_seq,
            collected.parsed,
            evidence_ids,
            set_aside,
            result,
            outcome_failure(collected.parsed, result, failure),
            tuple(event.seq for event in appended),
        )

    # --- lists, priors, removal ------------------------------------------------------------

    def hypothesis_list(self, case_id: str, question_id: str | None = None) -> HypothesisList:
        """Every hypothesis (or one question's) with its id, text, status and confidence."""
        from casefile.app.views.lists import build_hypothesis_list

        projection = self._current(case_id, history=False)
        if question_id is not None and question_id not in projection.questions:
            known = ", ".join(sorted(projection.questions)) or "none yet"
            raise DomainError(f"no question {question_id!r} in case {case_id} (questions: {known})")
        return build_hypothesis_list(projection, question_id)

    def question_list(self, case_id: str) -> QuestionList:
        """Every question with its leader, its leader's confidence and its catch-all."""
        from casefile.app.views.lists import build_question_list

        return build_question_list(self._current(case_id, history=False))

    def add_hypothesis_rebalanced(
        self,
        case_id: str,
        text: str,
        under: str,
        prior: float,
        hypothesis_id: str | None = None,
        meaning: str | None = None,
        *,
        force: bool = False,
        who: Who = NOW,
    ) -> str:
        """Propose a hypothesis, first scaling the others down in proportion where it would
        not fit (one ``priors.rebalanced`` event, then the proposal, in one append)."""

        def decide(draft: Draft) -> str:
            room = commands.room_for_hypothesis(draft.projection, under, prior, force)
            if room is not None:
                draft.add(room)
            event = commands.propose_hypothesis(
                draft.projection, text, under, prior, hypothesis_id, meaning
            )
            draft.add(event)
            return str(event.payload["hypothesis_id"])

        _, hid = self._execute(case_id, decide, who)
        return str(hid)

    def set_prior(
        self,
        case_id: str,
        hypothesis_id: str,
        prior: float,
        reason: str | None = None,
        *,
        force: bool = False,
        who: Who = NOW,
    ) -> Event:
        """Correct one hypothesis's prior, its siblings making room in proportion."""
        return self._one(
            case_id,
            lambda p: commands.set_prior(p, hypothesis_id, prior, reason, force),
            who,
        )

    def remove_case(self, case_id: str) -> Removed:
        """Delete a case from the database: its events, snapshots and the artifacts no other
        case refers to. A case directory is refused: its folder is the user's to delete."""
        directory = getattr(self.store, "directory", None)
        if directory is not None:
            raise DomainError(
                f"{directory} is a case directory: casefile does not delete folders; "
                "delete the folder yourself if you mean to"
            )
        for key in [k for k in self._sessions if k[0] == case_id]:
            del self._sessions[key]  # a removed case leaves no fold to snapshot on close
        return self.store.remove_case(case_id)

    # --- transcripts -----------------------------------------------------------------------

    def propose_ingest(
        self,
        data: bytes,
        fmt: str = "auto",
        timing: bytes | None = None,
        load: str = "unknown",
        exclude: Callable[[str], bool] | None = None,
        host: str = "unknown",
    ) -> Proposal:
        """What a recorded session proposes (nothing is stored): runs and notes to review."""
        from casefile.app.transcripts.ingest import shapes
        from casefile.app.transcripts.proposal import propose

        return propose(
            data,
            shapes(self.registry),
            fmt=fmt,
            timing=timing,
            load=load,
            exclude=exclude,
            host=host,
        )

    def ingest(
        self,
        case_id: str,
        proposal: Proposal,
        accept: Sequence[int] | None = None,
        who: Who = NOW,
    ) -> list[IngestedRun]:
        """Append the accepted items of ``proposal`` (all for None) in one append, the source
        stored as an artifact each event points into; the same file twice is refused."""
        from casefile.app.transcripts import ingest

        if self.store.head(case_id)[0] == 0:
            raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
        digest = self.store.put_artifact(proposal.source)
        seen = ingest.already_ingested(self.store.load(case_id), digest)
        if seen is not None:
            raise DomainError(
                f"this transcript was ingested into {case_id} already (events {seen[0]}–"
                f"{seen[1]}); nothing appended"
            )
        prepared = ingest.prepare(proposal, accept, digest, self.store.put_artifact, self.registry)
        self._execute(case_id, lambda draft: ingest.decide_ingest(draft, prepared, digest), who)
        return prepared.runs
