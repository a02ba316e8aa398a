"""The dict-returning names of the old ``casefile.app.views`` module, kept for the transition.

Each is a thin wrapper over a typed builder and returns exactly what ``to_json`` does; new code
should call the builders and keep the typed views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casefile.app.views.common import build_case_header
from casefile.app.views.common import hypothesis_rows as _hypothesis_rows
from casefile.app.views.replay import build_replay, replay_step
from casefile.app.views.status import build_status
from casefile.domain.beliefs import Projection, Step
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.beliefs.ranking import NextStep, ProbeStep
from casefile.domain.beliefs.scoring import Decisive
from casefile.domain.beliefs.warnings import CaseWarning
from casefile.domain.events import Event


def case_header(projection: Projection) -> dict[str, Any]:
    return build_case_header(projection).to_json()


def hypothesis_rows(
    question: QuestionState, confidences: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    """The question's rows as dicts (``confidences`` is ignored: rows read the question's)."""
    return [row.to_json() for row in _hypothesis_rows(question)]


def status_view(
    projection: Projection,
    next_steps: Sequence[NextStep],
    decisive: Sequence[Decisive],
    best_probes: Sequence[ProbeStep] = (),
) -> dict[str, Any]:
    view = build_status(
        projection, next_steps=next_steps, best_probes=best_probes, decisive=decisive
    )
    return view.to_json()


def replay_view(projection: Projection, upto: int | None = None) -> dict[str, Any]:
    return build_replay(projection, upto=upto).to_json()


def step_view(
    step: Step, event: Event, projection: Projection, previous: Step | None
) -> dict[str, Any]:
    return replay_step(step, event, previous).to_json()


def warning_line(warning: CaseWarning) -> str:
    return f"[{warning.code}] {warning.message} (seq {warning.seq})"
