"""The service's reading verbs: cases, status, replay, log, details, graph, the change feed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from casefile.errors import DomainError

if TYPE_CHECKING:
    from pathlib import Path

    from casefile.app.feed import ChangeFeed
    from casefile.app.library import Imported, Verified
    from casefile.app.views import (
        CaseRow,
        EventDetail,
        HypothesisDetail,
        LogRow,
        ReplayView,
        StatusView,
    )
    from casefile.app.views.report_sources import ReportSources
    from casefile.app.views.steps import ProbeRow
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import Event

from casefile.app.service_core import ServiceCore

#: How many "never measured" steps of a replay get the suggestion the tool would have made.
SUGGESTIONS_LIMIT = 20
#: How many pieces of decisive evidence a status carries: the ones that moved the conclusion
#: most (a long case has tens of thousands; every one of them is in its hypotheses' details).
STATUS_DECISIVE = 20


class ViewVerbs(ServiceCore):
    """Reading a case and building the views front ends render (nothing is appended)."""

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
        from casefile.store.base import DirectoryStore

        if isinstance(self.store, DirectoryStore):
            return verify_directory(self.store.directory, head)
        return verify(self.store, case_id, head)

    def export(self, case_id: str, directory: str | Path) -> Path:
        from casefile.app.library import export

        return export(self.store, case_id, directory)

    def import_directory(self, directory: str | Path, *, keep_existing: bool = False) -> Imported:
        from casefile.app.library import import_directory

        return import_directory(self.store, directory, keep_existing=keep_existing)

    def status(self, case_id: str, upto: int | None = None) -> StatusView:
        """The hypothesis tree, warnings, ranked next steps and decisive evidence."""
        from casefile.app.views import build_status
        from casefile.domain.beliefs.ranking import rank_next_steps, rank_probes
        from casefile.domain.beliefs.scoring import decisive_at

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
    ) -> dict[int, ProbeRow]:
        """The best probe at each step that raised a "never measured" warning, ranked on that
        step's captured belief (no refold)."""
        from casefile.app.views.steps_at import CaseSteps

        return CaseSteps(projection, self.candidates(projection)).suggestions(upto, limit)

    def report_sources(self, case_id: str, upto: int | None = None) -> ReportSources:
        """Everything a report reads from the case as it stood after event ``upto`` (``None``:
        now), folded once with its whole history."""
        from casefile.app.views.report_sources import build_report_sources

        head, _ = self.head(case_id)
        if upto is not None and upto > head:
            raise DomainError(f"case {case_id} has no event {upto} (events 1–{head})")
        projection = self.projection(case_id, upto)
        return build_report_sources(case_id, projection, self.candidates(projection), upto)

    def event_hashes(self, case_id: str) -> tuple[str, ...]:
        """The hash of every event of the case, in seq order (what a citation is checked
        against)."""
        return tuple(event.hash for event in self.events(case_id))

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

    def location(self) -> str:
        """Where the store keeps its cases, for a status line: a database URL with any
        password masked, or a case directory's path."""
        return self.store.location()
