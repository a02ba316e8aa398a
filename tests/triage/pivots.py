"""Where casefile flags a pivot against where the people in a thread changed their minds.

Issue 21's third figure: "a pivot is flagged within one step of where the people in the thread
changed their minds". The labels are ``cases/dev/PIVOTS.md`` (one row per development case:
whether the thread changed its mind about the cause, and after which of the material's
``steps``), written from the threads before this measure existed. This module reads them, finds
casefile's pivots in each case and says which material step each pivot fell on.

A pivot is what the TUI marks ◆ and the report lists as one: a fold step whose ``pivots`` hold
the question, i.e. its top-level leader changed (:attr:`Step.pivots`). A move of the leading
leaf under the same top-level leader (the TUI's ◇ "subpivot", in :attr:`Step.pivot_depths`) is
counted apart, as ``moved``.

From events to material steps: the builder (``cases/_build/build_dev_cases.py``) does not
record which events a step wrote, but it records every command at its own time from one
``Clock``, one tick per command: the case's opening, the source note, intake, then one per
material step in order, then the conclusion. So an event's ``occurred_at`` says which step
wrote it; the ticks are taken from the builder's own ``Clock``, so the mapping follows it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from casefile.domain.beliefs import project
from casefile.domain.events import Event
from casefile.store.casedir import read_case_dir
from tests.triage.devset import DEV, QUESTION, ROOT

LABELS = DEV / "PIVOTS.md"
BUILDER = ROOT / "cases" / "_build" / "build_dev_cases.py"
#: how far (in material steps) a pivot may fall from the labelled step and still count
TOLERANCE = 1
#: the step index of what the builder writes before the thread's steps (opening, source, intake)
INTAKE = -1
#: the builder's commands before the first material step: new, the source note, intake
_OPENING_TICKS = 3


@dataclass(frozen=True)
class PivotLabel:
    """One row of ``PIVOTS.md``: whether the thread changed its mind, and after which step."""

    slug: str
    changed: bool
    step: int | None


@dataclass(frozen=True)
class PivotResult:
    """One case: the labelled step and the steps where casefile's leader moved."""

    slug: str
    labelled: int | None
    #: material steps where the top-level leader changed (◆), in order; INTAKE for intake
    flagged: tuple[int, ...]
    #: material steps where the leading leaf changed (◆ or ◇), in order
    moved: tuple[int, ...]
    #: the leader path (top-level leader … leading leaf) right after each pivot of ``flagged``
    towards: tuple[tuple[str, ...], ...] = ()
    #: the case's concluded root cause ("" when not concluded)
    root_cause: str = ""

    @property
    def within(self) -> bool:
        """A pivot (◆) is flagged within TOLERANCE steps of the labelled one."""
        return _near(self.labelled, self.flagged)

    @property
    def within_moved(self) -> bool:
        """The leading leaf moved (◆ or ◇) within TOLERANCE steps of the labelled one."""
        return _near(self.labelled, self.moved)

    @property
    def within_to_root(self) -> bool:
        """A pivot within TOLERANCE steps of the labelled one leads to the concluded root
        cause (the belief the thread ended on): it is the new leader or on its path."""
        return any(
            _near(self.labelled, (step,)) and self.root_cause in path
            for step, path in zip(self.flagged, self.towards, strict=True)
        )


def _near(labelled: int | None, steps: Iterable[int]) -> bool:
    return labelled is not None and any(abs(s - labelled) <= TOLERANCE for s in steps)


def read_labels(path: Path = LABELS) -> dict[str, PivotLabel]:
    """The rows of the labels' table (``| slug | yes/no | step | ...``), by slug."""
    labels: dict[str, PivotLabel] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[1] not in ("yes", "no"):
            continue
        changed = cells[1] == "yes"
        if changed != bool(cells[2]):
            raise ValueError(f"{path.name}: {cells[0]}: a step goes with 'yes' and only there")
        labels[cells[0]] = PivotLabel(cells[0], changed, int(cells[2]) if changed else None)
    return labels


def builder() -> ModuleType:
    """``cases/_build/build_dev_cases.py``, loaded once per process (the builders are scripts,
    not a package)."""
    name = "build_dev_cases"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BUILDER)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _when(event: Event) -> datetime:
    if event.occurred_at is None:
        raise ValueError(f"seq {event.seq}: no occurred_at, so no step")
    return _moment(event.occurred_at)


def material_step_times(step_count: int) -> dict[datetime, int]:
    """The time the builder records each command at → the material step it belongs to
    (INTAKE for the opening, the source note and intake; ``step_count`` for the conclusion)."""
    clock = builder().Clock()
    times = {_moment(clock()): INTAKE for _ in range(_OPENING_TICKS)}
    times.update({_moment(clock()): index for index in range(step_count)})
    times[_moment(clock())] = step_count
    return times


def command_step_times(events: Iterable[Event]) -> dict[datetime, int]:
    """Each distinct ``occurred_at`` in order → its place: for a case whose every command was
    recorded at its own time (the reference case's builder), one command is one step."""
    times: dict[datetime, int] = {}
    for event in events:
        times.setdefault(_when(event), len(times))
    return times


def steps_of(events: Iterable[Event], times: Mapping[datetime, int]) -> dict[int, int]:
    """seq → the step that wrote the event; an event at a time no step has is an error (the
    builder's clock and the case disagree)."""
    out: dict[int, int] = {}
    for event in events:
        moment = _when(event)
        if moment not in times:
            raise ValueError(f"seq {event.seq}: {event.occurred_at} is no step's time")
        out[event.seq] = times[moment]
    return out


def measure(
    slug: str, events: list[Event], step_of: Mapping[int, int], labelled: int | None
) -> PivotResult:
    """Fold ``events`` and place each leader change of the question on its step."""
    projection = project(events)
    trajectory = projection.trajectory
    pivots = [s for s in trajectory if QUESTION in s.pivots]
    return PivotResult(
        slug,
        labelled,
        flagged=tuple(step_of[s.seq] for s in pivots),
        moved=tuple(step_of[s.seq] for s in trajectory if QUESTION in s.pivot_depths),
        towards=tuple(s.snapshots[QUESTION].leader_path for s in pivots),
        root_cause=str((projection.concluded or {}).get("root_cause") or ""),
    )


def material_of(slug: str, dev: Path = DEV) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (dev / "material" / f"{slug}.json").read_text(encoding="utf-8")
    )
    return data


def evaluate(case_dir: Path, label: PivotLabel | None) -> PivotResult:
    """One development case against its label (None: not labelled, measured all the same);
    its material is the one beside it (``<dev>/material/<slug>.json``)."""
    events, _ = read_case_dir(case_dir)
    steps = material_of(case_dir.name, case_dir.parent)["steps"]
    times = material_step_times(len(steps))
    step = None if label is None else label.step
    return measure(case_dir.name, events, steps_of(events, times), step)


def evaluate_all(dev: Path = DEV) -> list[PivotResult]:
    """Every case of a development set (``cases/dev``, or a copy of it at another commit)
    against the labels of that set."""
    labels = read_labels(dev / LABELS.name)
    cases = sorted(p for p in dev.iterdir() if (p / "events.jsonl").is_file())
    return [evaluate(path, labels.get(path.name)) for path in cases]


def figure(results: Iterable[PivotResult]) -> tuple[int, int]:
    """(cases with a pivot flagged within one step of the labelled one, labelled cases)."""
    labelled = [r for r in results if r.labelled is not None]
    return sum(r.within for r in labelled), len(labelled)
