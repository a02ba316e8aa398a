"""The pivot measure (tests/triage/pivots.py): casefile's pivots placed on the steps of a
thread, against where the thread changed its mind (cases/dev/PIVOTS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.domain.events import Event
from casefile.store.casedir import read_case_dir
from tests.triage.devset import ROOT, case_dirs
from tests.triage.pivots import (
    INTAKE,
    PivotResult,
    builder,
    command_step_times,
    figure,
    material_of,
    material_step_times,
    measure,
    read_labels,
    steps_of,
)

REFERENCE = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"
#: the reference thread's turn: the assistant's words right after the link reading
TURN = "Wait, that changes the picture significantly."


def test_every_development_case_is_labelled_with_a_step_its_material_has() -> None:
    labels = read_labels()
    assert sorted(labels) == [path.name for path in case_dirs()]
    for slug, label in labels.items():
        if label.changed:
            assert label.step is not None and 0 <= label.step < len(material_of(slug)["steps"])


def test_a_change_of_mind_without_a_step_is_refused(tmp_path: Path) -> None:
    table = tmp_path / "PIVOTS.md"
    table.write_text("| slug | changed | step |\n| --- | --- | --- |\n| a-case | yes | |\n")
    with pytest.raises(ValueError, match="a-case: a step goes with 'yes'"):
        read_labels(table)


#: the material steps the builder records as a probe run: output pasted, or a reading stated
RUN_STEPS = ("paste", "stated")


@pytest.mark.parametrize("case_dir", case_dirs(), ids=lambda p: p.name)
def test_each_event_lands_on_the_material_step_that_wrote_it(case_dir: Path) -> None:
    """The builder's clock, not a guess: every probe run falls on a paste (or a stated
    reading) of the same probe, every A/B on an experiment step, the conclusion after the last
    step."""
    material = material_of(case_dir.name)
    steps = material["steps"]
    events, _ = read_case_dir(case_dir)
    step_of = steps_of(events, material_step_times(len(steps)))
    for event in events:
        step = step_of[event.seq]
        if event.type == "probe.ran":
            assert steps[step]["kind"] in RUN_STEPS
            assert event.payload["probe"] == steps[step]["probe"]
        elif event.type.startswith("experiment."):
            assert "experiment" in steps[step]["kind"]
        elif event.type == "case.concluded":
            assert step == len(steps)
        elif event.type in ("case.opened", "question.proposed", "hypothesis.proposed"):
            assert step == INTAKE
    pasted = [i for i, s in enumerate(steps) if s["kind"] in RUN_STEPS]
    runs = [step_of[e.seq] for e in events if e.type == "probe.ran"]
    assert runs == pasted


def test_the_reference_case_pivots_at_the_link_reading() -> None:
    """The GLM-5 thread changed its mind after the PCIe throughput reading (~1 GB/s of a
    ~64 GB/s link): casefile's leader moves off pcie-bound on that very step."""
    events, _ = read_case_dir(REFERENCE)
    step_of = steps_of(events, command_step_times(events))
    turn = next(e for e in events if e.type == "note.added" and e.payload["text"].startswith(TURN))
    reading = max(
        (e for e in events if e.type == "probe.ran" and e.seq < turn.seq), key=lambda e: e.seq
    )
    assert reading.payload["probe"] == "nvidia-smi-q"
    labelled = step_of[reading.seq]
    result = measure("glm5-pcie-pivot", events, step_of, labelled)
    assert result.flagged[0] == labelled
    assert result.towards[0][0] != "pcie-bound"
    assert result.within and result.within_to_root is False  # it ends on compute-launch later
    assert result.root_cause == "compute-launch" and result.towards[-1][0] == "compute-launch"
    assert figure([result]) == (1, 1)


def test_a_pivot_two_steps_away_is_not_within_one() -> None:
    assert PivotResult("c", 2, flagged=(0, 4), moved=(0, 4)).within is False
    assert PivotResult("c", 2, flagged=(0, 3), moved=(0, 3)).within is True
    assert PivotResult("c", None, flagged=(2,), moved=(2,)).within is False


def constructed(tmp_path: Path) -> list[Event]:
    """A case lived through the development set's builder whose thread only talks: notes
    after intake, no reading, no A/B."""
    material = {
        "slug": "constructed-no-pivot",
        "url": "https://example.invalid/thread",
        "title": "A slow job and a conversation about it",
        "symptom": "Training runs at half the expected samples per second.",
        "environment": {"gpus": "8x NVIDIA A100-SXM4-80GB"},
        "intake": {"nodes": "single"},
        "steps": [
            {"kind": "note", "text": "Reporter: it was fast last month."},
            {"kind": "note", "text": "Maintainer: which versions changed since?"},
            {"kind": "note", "text": "Reporter: none that we know of."},
        ],
        "root_cause_class": "upgrade-regression",
        "root_cause": "unknown",
    }
    build = builder()
    with build.database() as scratch:
        slug = build.encode(material, scratch)
        build.casefile("export", slug, str(tmp_path / slug))
    events, _ = read_case_dir(tmp_path / slug)
    return events


def test_a_thread_that_only_talks_flags_no_pivot_on_its_steps(tmp_path: Path) -> None:
    events = constructed(tmp_path)
    step_of = steps_of(events, material_step_times(3))
    assert sorted(set(step_of.values())) == [INTAKE, 0, 1, 2, 3]
    result = measure("constructed-no-pivot", events, step_of, 1)
    assert [step for step in result.flagged if step != INTAKE] == []
    assert not result.within and not result.within_moved
    assert figure([result]) == (0, 1)
