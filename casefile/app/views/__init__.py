"""Typed view models: one builder per view, shared by the CLI, the TUI and the report.

Every view is a frozen, slotted dataclass of plain values copied out of a folded
:class:`~casefile.domain.beliefs.Projection` (no reference back into it), so it can be built in
a worker thread and handed to a UI. Builders take the projection and whatever the domain has
already ranked; they never fold, rank or read a store. Each view's ``to_json()`` keeps the
stable shapes the README documents and only ever adds keys.

Ranking at a step has one home, :class:`~casefile.app.views.steps_at.CaseSteps`: a read model
that keeps the fold (so it is used in the thread that owns it) and hands out rows; the TUI's
frames, the replay's suggestions and the report rank through it.

- :func:`build_status` → :class:`StatusView` (``status``)
- :func:`build_replay` → :class:`ReplayView` of :class:`ReplayStep` (``replay``)
- :func:`build_log` → :class:`LogRow` (``log``)
- :func:`build_case_row` → :class:`CaseRow` (``cases``)
- :func:`build_event_detail` → :class:`EventDetail` (a detail pane)
- :func:`build_hypothesis_detail` → :class:`HypothesisDetail` (why a confidence is what it is)
- :func:`~casefile.app.views.report_sources.build_report_sources` →
  :class:`~casefile.app.views.report_sources.ReportSources` (all that ``report`` reads)
- :meth:`CaseSteps.steps_at <casefile.app.views.steps_at.CaseSteps.steps_at>` →
  :class:`~casefile.app.views.steps_at.StepsAt` (the probes ranked at a step)
"""

from casefile.app.views.common import (
    CaseHeader,
    HypothesisRow,
    QuestionRow,
    build_case_header,
    runner_up,
)
from casefile.app.views.event_detail import (
    EventDetail,
    EvidenceDetail,
    LikelihoodRow,
    SetAsideDetail,
    build_event_detail,
)
from casefile.app.views.hypothesis import (
    ContributionRow,
    HypothesisDetail,
    build_hypothesis_detail,
)
from casefile.app.views.listing import CaseRow, LeaderRow, LogRow, build_case_row, build_log
from casefile.app.views.names import CATCH_ALL_MEANING, CATCH_ALL_TEXT, names_table
from casefile.app.views.probe_detail import FactRow, ObservationDetail, ProbeRunDetail, RawOutput
from casefile.app.views.replay import ReplayQuestion, ReplayStep, ReplayView, build_replay
from casefile.app.views.replay_summary import FinalLeader, PivotRow, ReplaySummary
from casefile.app.views.status import Conclusion, StatusView, build_status
from casefile.app.views.steps import (
    DecisiveRow,
    NextStepGroup,
    NextStepRow,
    ProbeCost,
    ProbeRow,
    Suggestion,
)
from casefile.app.views.summaries import detail, summarise
from casefile.app.views.warning_groups import WarningGroup, WarningRow

__all__ = [
    "CATCH_ALL_MEANING",
    "CATCH_ALL_TEXT",
    "CaseHeader",
    "CaseRow",
    "Conclusion",
    "ContributionRow",
    "DecisiveRow",
    "EventDetail",
    "EvidenceDetail",
    "FactRow",
    "FinalLeader",
    "HypothesisDetail",
    "HypothesisRow",
    "LeaderRow",
    "LikelihoodRow",
    "LogRow",
    "NextStepGroup",
    "NextStepRow",
    "ObservationDetail",
    "PivotRow",
    "ProbeCost",
    "ProbeRow",
    "ProbeRunDetail",
    "QuestionRow",
    "RawOutput",
    "ReplayQuestion",
    "ReplayStep",
    "ReplaySummary",
    "ReplayView",
    "SetAsideDetail",
    "StatusView",
    "Suggestion",
    "WarningGroup",
    "WarningRow",
    "build_case_header",
    "build_case_row",
    "build_event_detail",
    "build_hypothesis_detail",
    "build_log",
    "build_replay",
    "build_status",
    "detail",
    "names_table",
    "runner_up",
    "summarise",
]
