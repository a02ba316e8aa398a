"""A step of the past offers what was still open then: an A/B run later was still to run, an
intake question answered later still to ask. Before, the offers were cut to what the case had
not read by its end, so a replay or a report never showed an A/B the case went on to run."""

from __future__ import annotations

from pathlib import Path

from casefile.app.views.steps_at import CaseSteps
from casefile.domain.beliefs.rules_read import rules_read, rules_read_at
from tests.report.cases import service_with, truncated
from tests.triage.devset import case_dirs

DEV = Path(__file__).resolve().parents[2] / "cases" / "dev"
CASE = "speechbrain-990-voxceleb-ddp-cudnn-deterministic"
STEP = 29
AB = "A/B data-pipeline"


def test_an_a_b_run_later_is_offered_before_it_and_not_after(tmp_path: Path) -> None:
    service, case_id = service_with(truncated(DEV / CASE, STEP + 1, tmp_path / "case"))
    service.writer.record_reported_experiment(
        case_id, "num_workers 4 -> 16 in the DataLoader", "app-log", 1.0, 1.05, unit="it/s"
    )
    projection = service.reader.projection(case_id)
    steps = CaseSteps(projection, service.reader.offers(projection))
    assert AB in [p.probe for p in steps.steps_at(STEP).probes]
    assert AB not in [p.probe for p in steps.steps_at().probes]
    assert AB not in [c.probe for c in service.reader.candidates(projection)]


def test_the_rules_read_at_the_last_step_are_those_read_now_and_none_before_evidence() -> None:
    for path in case_dirs()[:20]:
        service, case_id = service_with(path)
        projection = service.reader.projection(case_id)
        now = set(rules_read(projection))
        assert set(rules_read_at(projection, projection.last_seq - 1)) <= now
        assert set(rules_read_at(projection, projection.last_seq)) == now
        first = min(s.seq for s in projection.evidence.values())
        assert not rules_read_at(projection, first - 1)
        assert set(rules_read_at(projection, first)) == {
            str((projection.evidence[next(iter(projection.evidence))].rule or {}).get("id"))
        }
