"""The reader: every view of a case, built from its fold (nothing is appended).

Status, replay, the log, one event or hypothesis in detail, the graph, intake as it stands,
what the report reads, and the change feed a watcher follows. Views of the case as it stands
now come from the session the sessions keep folded; views at an earlier step fold up to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from casefile.app import experiments, intake
from casefile.app.candidates import candidates, offers
from casefile.app.verbs import verb
from casefile.domain.event_types.case import CaseOpened
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.event_types.probe import ObservationRecorded
from casefile.domain.event_types.stored import StoredRun
from casefile.errors import DomainError, did_you_mean

if TYPE_CHECKING:
    from casefile.app.feed import ChangeFeed
    from casefile.app.intake import IntakeItem
    from casefile.app.sessions import CaseSessions
    from casefile.app.views import (
        EventDetail,
        HypothesisDetail,
        LogRow,
        ReplayView,
        StatusView,
    )
    from casefile.app.views.lists import HypothesisList, QuestionList
    from casefile.app.views.report_sources import ReportSources
    from casefile.app.views.steps import ProbeRow
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.ranking import Candidate
    from casefile.domain.events import Event

#: How many "never measured" steps of a replay get the suggestion the tool would have made.
SUGGESTIONS_LIMIT = 20
#: How many pieces of decisive evidence a status carries: the ones that moved the conclusion
#: most (a long case has tens of thousands; every one of them is in its hypotheses' details).
STATUS_DECISIVE = 20


class CaseReader:
    """Reads a case and builds the views front ends render."""

    def __init__(self, sessions: CaseSessions) -> None:
        self.sessions = sessions

    experiment_rules = verb(experiments.experiment_rules)
    experiment_rule_list = verb(experiments.experiment_rule_list)

    def intake(self, case_id: str) -> list[IntakeItem]:
        """Every intake question of the case's playbooks, with its answer or a known one."""
        projection = self.sessions.current(case_id, history=False)
        return intake.intake_items(self.sessions, case_id, projection)

    def events(self, case_id: str, *, after: int = 0, upto: int | None = None) -> list[Event]:
        return self.sessions.events(case_id, after=after, upto=upto)

    def projection(self, case_id: str, upto: int | None = None) -> Projection:
        """The case folded with its whole history (up to ``upto``)."""
        return self.sessions.projection(case_id, upto)

    def candidates(self, projection: Projection) -> list[Candidate]:
        """Every step the case can take now (see :func:`candidates`)."""
        return candidates(self.sessions.registry, projection)

    def offers(self, projection: Projection) -> list[Candidate]:
        """Every step the playbooks opened in the case offer at one step or another, for
        :class:`~casefile.app.views.steps_at.CaseSteps` (see :func:`offers`)."""
        return offers(self.sessions.registry, projection)

    def head(self, case_id: str) -> tuple[int, str]:
        return self.sessions.store.head(case_id)

    def integrity_warnings(self, case_id: str) -> list[str]:
        """What the sessions noticed about the record (a rewritten history)."""
        return self.sessions.integrity_warnings(case_id)

    def status(self, case_id: str, upto: int | None = None) -> StatusView:
        """The hypothesis tree, warnings, ranked next steps and decisive evidence."""
        from casefile.app.views import build_status
        from casefile.domain.beliefs.ranking import rank_next_steps, rank_probes
        from casefile.domain.beliefs.scoring import decisive_at

        if upto is None:
            projection = self.sessions.current(case_id, history=False)
        else:
            projection = self.sessions.projection(case_id, upto)
        offered = candidates(self.sessions.registry, projection)
        return build_status(
            projection,
            next_steps=rank_next_steps(projection, offered),
            best_probes=rank_probes(projection, offered),
            decisive=decisive_at(projection, limit=STATUS_DECISIVE),
            integrity=self.sessions.integrity_warnings(case_id),
        )

    def replay(self, case_id: str, upto: int | None = None) -> ReplayView:
        """Every step: how confidences moved, pivots, surprise, warnings, and, where the leader
        had never been measured, the probe the tool would have suggested at that moment."""
        from casefile.app.views import build_replay

        projection = self.sessions.current(case_id, history=True)
        return build_replay(
            projection, upto=upto, suggestions=self.suggestions_when_unmeasured(projection, upto)
        )

    def suggestions_when_unmeasured(
        self, projection: Projection, upto: int | None = None, limit: int = SUGGESTIONS_LIMIT
    ) -> dict[int, ProbeRow]:
        """The best probe at each step that raised a "never measured" warning, ranked on that
        step's captured belief (no refold)."""
        from casefile.app.views.steps_at import CaseSteps

        return CaseSteps(projection, offers(self.sessions.registry, projection)).suggestions(
            upto, limit
        )

    def report_sources(self, case_id: str, upto: int | None = None) -> ReportSources:
        """Everything a report reads from the case as it stood after event ``upto`` (``None``:
        now), folded once with its whole history."""
        from casefile.app.views.report_sources import build_report_sources

        head, _ = self.sessions.store.head(case_id)
        if upto is not None and upto > head:
            raise DomainError(f"case {case_id} has no event {upto} (events 1–{head})")
        projection = self.sessions.projection(case_id, upto)
        return build_report_sources(
            case_id, projection, offers(self.sessions.registry, projection), upto
        )

    def event_hashes(self, case_id: str) -> tuple[str, ...]:
        """The hash of every event of the case, in seq order (what a citation is checked
        against)."""
        return tuple(event.hash for event in self.sessions.events(case_id))

    def log(self, case_id: str) -> list[LogRow]:
        """One row per event: read, not folded (a row says what its own event recorded)."""
        from casefile.app.views import build_log

        return build_log(self.sessions.events(case_id), None)

    def title(self, case_id: str) -> str:
        """The case's title, from its first event."""
        return CaseOpened.of(self.sessions.events(case_id, upto=1)[0].payload).title

    def log_rows(self, case_id: str, events: Sequence[Event]) -> list[LogRow]:
        """Log rows for events just read (a follower's new ones): no fold needed."""
        from casefile.app.views import build_log

        return build_log(list(events), self.sessions.loaded(case_id))

    def event_detail(self, case_id: str, seq: int) -> EventDetail:
        """One event in full: raw output, parsed facts, likelihoods, why it was set aside."""
        from casefile.app.views import build_event_detail
        from casefile.store.verify import referenced_artifacts

        projection = self.sessions.current(case_id, history=True)
        if not 1 <= seq <= projection.last_seq:
            raise DomainError(f"case {case_id} has no event {seq} (events 1–{projection.last_seq})")
        event = projection.events[seq - 1]
        wanted = set(referenced_artifacts(event))
        run_seq: int | None = None
        if event.type == "evidence.assessed":
            run_seq = EvidenceAssessed.of(event.payload).probe_run_seq
        elif event.type == "observation.recorded":  # its detail shows the run's output too
            run_seq = ObservationRecorded.of(event.payload).probe_run_seq
        if run_seq is not None:
            run = projection.probe_runs.get(run_seq)
            if run is not None:
                stored = StoredRun(run)
                wanted |= {d for d in (stored.stdout_artifact, stored.stderr_artifact) if d}
        blobs = self.sessions.store.artifact_digests(wanted) if wanted else {}
        return build_event_detail(event, projection, blobs)

    def hypothesis_detail(
        self, case_id: str, hypothesis_id: str, upto: int | None = None
    ) -> HypothesisDetail:
        """Why a hypothesis's confidence is what it is: its prior and each evidence, in bits."""
        from casefile.app.views import build_hypothesis_detail
        from casefile.domain.beliefs.scoring import contributions, prior_log_odds_bits

        projection = self.sessions.projection(case_id, upto)
        if hypothesis_id not in projection.hypothesis_question and not any(
            q.catch_all_id == hypothesis_id for q in projection.questions.values()
        ):
            when = f" at seq {upto}" if upto is not None else ""
            hint = did_you_mean(hypothesis_id, projection.hypothesis_question)
            raise DomainError(f"no hypothesis {hypothesis_id!r}{hint} in case {case_id}{when}")
        return build_hypothesis_detail(
            projection,
            hypothesis_id,
            contributions=contributions(projection, hypothesis_id),
            prior_log_odds_bits=prior_log_odds_bits(projection, hypothesis_id),
        )

    def graph(self, case_id: str, fmt: str) -> str:
        from casefile.app.graph_export import export_graph

        return export_graph(self.sessions.current(case_id, history=False), fmt)

    def graph_json(self, case_id: str) -> dict[str, Any]:
        """The hypothesis graph as plain data (``graph --format json``)."""
        from casefile.app.graph_export import graph_data

        return graph_data(self.sessions.current(case_id, history=False))

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
            self.sessions.store,
            case_id,
            after_seq=after_seq,
            after_hash=after_hash,
            on_notice=on_notice,
        )

    def hypothesis_list(self, case_id: str, question_id: str | None = None) -> HypothesisList:
        """Every hypothesis (or one question's) with its id, text, status and confidence."""
        from casefile.app.views.lists import build_hypothesis_list

        projection = self.sessions.current(case_id, history=False)
        if question_id is not None and question_id not in projection.questions:
            known = ", ".join(sorted(projection.questions)) or "none yet"
            raise DomainError(f"no question {question_id!r} in case {case_id} (questions: {known})")
        return build_hypothesis_list(projection, question_id)

    def question_list(self, case_id: str) -> QuestionList:
        """Every question with its leader, its leader's confidence and its catch-all."""
        from casefile.app.views.lists import build_question_list

        return build_question_list(self.sessions.current(case_id, history=False))
