"""The report's "was the suggested next step taken?" counts an A/B the way it is taken: by its
rule reading an experiment, not by a probe of that name running (an ``A/B …`` step never runs
as a probe, so it always read "not taken")."""

from __future__ import annotations

from pathlib import Path

from casefile.report import ReportOptions, build_report
from tests.report.cases import service_with, truncated

DEV = Path(__file__).resolve().parents[2] / "cases" / "dev"
#: a training job read as data-bound after intake; the pivot at seq 29 ranks the data
#: pipeline A/B first
CASE = "speechbrain-990-voxceleb-ddp-cudnn-deterministic"
PIVOT = 29


def test_an_a_b_suggested_at_a_pivot_is_taken_when_its_rule_reads_an_experiment(
    tmp_path: Path,
) -> None:
    service, case_id = service_with(truncated(DEV / CASE, PIVOT + 1, tmp_path / "case"))
    before = build_report(service, case_id, ReportOptions())
    (advice,) = [a for a in before.health.advice if a.pivot.seq == PIVOT]
    assert advice.probe == "A/B data-pipeline" and advice.taken is None

    outcome = service.writer.record_reported_experiment(
        case_id,
        "num_workers 4 -> 16 in the DataLoader",
        "app-log",
        1.0,
        1.05,
        unit="it/s",
    )
    after = build_report(service, case_id, ReportOptions())
    (advice,) = [a for a in after.health.advice if a.pivot.seq == PIVOT]
    assert advice.taken is not None
    taken = service.reader.events(case_id)[advice.taken.seq - 1]
    assert taken.type == "evidence.assessed"
    assert taken.payload["rule"]["id"] == "experiment.data-pipeline"
    assert outcome is not None


def test_a_probe_suggested_is_still_taken_only_by_its_run() -> None:
    """The reference case's first pivot: nvidia-smi-q suggested, run only at idle."""
    from tests.report.cases import REFERENCE

    service, case_id = service_with(REFERENCE)
    report = build_report(service, case_id, ReportOptions())
    first = report.health.advice[0]
    assert (first.probe, first.taken) == ("nvidia-smi-q", None)
    assert first.otherwise is not None
