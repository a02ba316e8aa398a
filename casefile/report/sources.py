"""What a report is built from: the service's view of one fold of the case.

The report reads the case through one view of the service's,
:class:`~casefile.app.views.report_sources.ReportSources`: the case folded once, with its
history, up to ``--to``; the status view for where the case ended, and the fold's own
trajectory (one captured step per event, the same steps the replay view is built from, never
refolded) for how it got there, so its numbers are the ones ``status`` and ``replay`` show at
the same seq. Rankings and scores come from the view's read model at a step.
Helpers here turn events into references and short readings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from casefile.app.views import StatusView
from casefile.domain.event_types.case import CaseOpened
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.event_types.stored import StoredFact
from casefile.report.model import Ref
from casefile.report.times import case_zone, show

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.views.hypothesis import ContributionRow
    from casefile.app.views.report_sources import CaseFold, Event, TrajectoryStep
    from casefile.app.views.steps import DecisiveRow
    from casefile.app.views.steps_at import CaseSteps

#: Readings and reasons quoted inside another claim are cut to this many characters.
QUOTE_CHARS = 200


@dataclass(frozen=True)
class Sources:
    case_id: str
    events: Sequence[Event]
    projection: CaseFold  # the fold's questions, evidence, probe runs and readings
    trajectory: Sequence[TrajectoryStep]
    names: Mapping[str, str]  # hypothesis id → its wording, catch-alls included
    status: StatusView
    decisive: Sequence[DecisiveRow]  # every active evidence, most decisive first
    steps: CaseSteps  # rankings and scores at a step of the fold
    zone: tzinfo
    zone_name: str
    upto: int | None

    def ref(self, seq: int) -> Ref:
        return Ref(seq, self.events[seq - 1].hash)

    def event(self, seq: int) -> Event:
        return self.events[seq - 1]

    def when(self, seq: int) -> str:
        """The event time of ``seq`` as the report prints it."""
        return show(self.events[seq - 1].when, self.zone)

    def contributions(self, hypothesis: str) -> tuple[ContributionRow, ...]:
        """Each active evidence's leave-one-out shift of ``hypothesis``'s log-odds (bits)."""
        return self.steps.contributions(hypothesis)


def gather(service: CaseService, case_id: str, upto: int | None) -> Sources:
    """The case as the service's report view holds it, up to ``upto``, in the case's zone."""
    case = service.reader.report_sources(case_id, upto)
    environment = CaseOpened.of(case.events[0].payload).environment
    zone, zone_name = case_zone(dict(environment))
    return Sources(
        case_id=case.case_id,
        events=case.events,
        projection=case.fold,
        trajectory=case.trajectory,
        names=case.names,
        status=case.status,
        decisive=case.decisive,
        steps=case.steps,
        zone=zone,
        zone_name=zone_name,
        upto=case.upto,
    )


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (a claim quotes, the table holds all)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def statistic_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def reading_of(payload: EvidenceAssessed) -> str:
    """What an evidence event read, in one line: its rule's outcome, else its rationale."""
    rule = payload.rule
    intake = payload.intake
    if intake is not None:
        source = intake.source
        said = "answered" if source == "answered" else f"from {intake.basis or source}"
        return f"intake {intake.id} → {intake.answer} ({said})"
    if rule is not None and payload.experiment_id:
        ratio = payload.statistic
        times = f"{ratio:.2f}×" if isinstance(ratio, int | float) else f"stated {ratio}"
        return (
            f"experiment {payload.experiment_id} read by rule {rule.id} "
            f"v{rule.version} → {payload.outcome} ({times})"
        )
    if rule is not None:
        shown = statistic_text(payload.statistic)
        stat = f" (statistic {shown})" if shown is not None else ""
        return f"rule {rule.id} v{rule.version} → {payload.outcome}{stat}"
    return quote(payload.rationale)


def conditions_text(conditions: Mapping[str, Any] | None) -> str | None:
    """``host=…, load=…`` (sorted, so the same conditions always read the same)."""
    if not conditions:
        return None
    return ", ".join(f"{key}={conditions[key]}" for key in sorted(conditions))


def fact_digest(facts: Sequence[StoredFact], limit: int = 4) -> str | None:
    """A few facts, measurements (facts with units) first: ``name[subject]=value unit``."""
    ordered = [f for f in facts if f.unit] + [f for f in facts if not f.unit]
    shown = []
    for fact in ordered[:limit]:
        unit = f" {fact.unit}" if fact.unit else ""
        shown.append(f"{fact.name}[{fact.subject}]={fact.value}{unit}")
    if not shown:
        return None
    more = f", … +{len(facts) - limit}" if len(facts) > limit else ""
    return ", ".join(shown) + more
