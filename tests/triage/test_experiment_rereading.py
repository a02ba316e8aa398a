"""An A/B is read as the answers in force would read it, whatever the order of A/B and answer
(:mod:`casefile.app.experiment_rereading`): "CUDA_VISIBLE_DEVICES=0" is fewer GPUs on a job
that uses several and the device a one-GPU job sees; after an upgrade a slowdown under a version
change is the trouble as it happened."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from casefile.domain.events import GENESIS_HASH, NewEvent, seal
from tests.cli.conftest import CLI
from tests.triage.conftest import nccl_table
from tests.triage.test_experiments import log, paste

HIDE = ("--change", "CUDA_VISIBLE_DEVICES=0", "--reported", "10:30", "--unit", "tok/s")


def _confidences(cli: CLI, case: str) -> dict[str, float]:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return {h["id"]: round(h["confidence"], 12) for h in hypotheses}


def _new(cli: CLI) -> str:
    return cli("new", "slow generation", "--playbook", "gpu-throughput@3").out.strip()


def _intake(cli: CLI, case: str, *answers: str) -> dict[str, object]:
    done = cli("intake", case, *answers, "--json")
    assert done.code == 0, done.err
    out: dict[str, object] = json.loads(done.out)
    return out


def _ab(cli: CLI, case: str, *args: str) -> dict[str, object]:
    done = cli("experiment", case, *args, "--json")
    assert done.code == 0, done.err
    out: dict[str, object] = json.loads(done.out)
    return out


@pytest.mark.parametrize("answer", ["gpu-count=one", "gpu-count=several"])
def test_an_ab_read_before_the_answer_ends_as_one_read_after_it(cli: CLI, answer: str) -> None:
    first = _new(cli)
    _intake(cli, first, answer)
    _ab(cli, first, *HIDE)
    last = _new(cli)
    _ab(cli, last, *HIDE)
    said = _intake(cli, last, answer)
    assert _confidences(cli, last) == _confidences(cli, first)
    reader = "visible-devices" if answer.endswith("one") else "fewer-gpus"
    assert _ab_reader(cli, first) == _ab_reader(cli, last) == f"experiment.{reader}"
    if answer.endswith("one"):  # fewer-gpus read it while the GPU count was open
        (again,) = said["experiments"]  # type: ignore[misc]
        assert again["before"] == "fewer-gpus 'faster'" and again["now"].startswith(
            "visible-devices"
        )
        assert "gpu-count = one" in again["because"] and "rules fewer-gpus out" in again["because"]
    else:
        assert said["experiments"] == []


def test_a_corrected_answer_reads_it_back_and_forth_to_the_same_confidences(cli: CLI) -> None:
    case = _new(cli)
    _ab(cli, case, *HIDE)
    for answer in ("gpu-count=one", "gpu-count=several", "gpu-count=one"):
        _intake(cli, case, answer)
    once = _new(cli)
    _intake(cli, once, "gpu-count=one")
    _ab(cli, once, *HIDE)
    assert _confidences(cli, case) == _confidences(cli, once)
    # each re-reading supersedes the one before: one reading weighs at the end
    readings = [
        e
        for e in log(cli, case)
        if e["type"] == "evidence.assessed" and e["payload"].get("experiment_id")  # type: ignore[union-attr]
    ]
    assert len(readings) == 4
    chain = [r["payload"].get("supersedes") for r in readings[1:]]  # type: ignore[union-attr]
    assert chain == [r["payload"]["evidence_id"] for r in readings[:-1]]  # type: ignore[index]


def test_an_ab_no_rule_reads_under_the_answers_is_withdrawn_and_comes_back(cli: CLI) -> None:
    """ "6 GPUs -> 1 GPU" only fewer-gpus reads, which needs several GPUs: on a case said to
    be of one GPU its reading is withdrawn, weighing nothing, and back when corrected."""
    fewer = ("--change", "6x RTX 4090 -> 1x RTX 4090", "--reported", "10:30", "--unit", "tok/s")
    case = _new(cli)
    _intake(cli, case, "gpu-count=several")
    _ab(cli, case, *fewer)
    said = _intake(cli, case, "gpu-count=one")
    (gone,) = said["experiments"]  # type: ignore[misc]
    assert gone["now"] is None and "gpu-count = one" in gone["because"]
    never = _new(cli)
    _intake(cli, never, "gpu-count=one")
    assert _confidences(cli, case) == _confidences(cli, never)
    line = cli("log", case).out.splitlines()[-1]
    assert "rule experiment.fewer-gpus's reading 'faster' withdrawn" in line, line
    back = _intake(cli, case, "gpu-count=several")
    (again,) = back["experiments"]  # type: ignore[misc]
    assert again["before"] is None and again["now"] == "fewer-gpus 'faster'"
    answered_first = _new(cli)
    _intake(cli, answered_first, "gpu-count=several")
    _ab(cli, answered_first, *fewer)
    assert _confidences(cli, case) == _confidences(cli, answered_first)


def test_a_rule_a_person_named_or_hypotheses_named_are_never_read_again(cli: CLI) -> None:
    named = _new(cli)
    _ab(cli, named, *HIDE, "--rule", "fewer-gpus")
    tested = _new(cli)
    _ab(cli, tested, *HIDE, "--tests", "gpu-unused")
    for case in (named, tested):
        said = _intake(cli, case, "gpu-count=one")
        assert said["experiments"] == [], case
    assert "[rule fewer-gpus named to read it]" in cli("log", named).out


def test_a_reading_a_person_re_assessed_is_left_to_them(cli: CLI) -> None:
    case = _new(cli)
    read = _ab(cli, case, *HIDE)
    done = cli(
        "evidence", "add", case, "--supersedes", str(read["evidence_id"]), "--likelihood",
        "gpu-unused=0.9", "--otherwise", "0.3", "--because", "the hidden GPU was the idle one",
    )  # fmt: skip
    assert done.code == 0, done.err
    assert _intake(cli, case, "gpu-count=one")["experiments"] == []


def _ab_reader(cli: CLI, case: str) -> str:
    """The rule of the A/B reading in force (the last reading that nothing superseded)."""
    readings = [
        e["payload"]
        for e in log(cli, case)
        if e["type"] == "evidence.assessed" and e["payload"].get("experiment_id")  # type: ignore[union-attr]
    ]
    superseded = {p.get("supersedes") for p in readings}  # type: ignore[union-attr]
    (last,) = [p for p in readings if p["evidence_id"] not in superseded]  # type: ignore[index]
    return str(last["rule"]["id"])  # type: ignore[index]


def test_an_upgrade_said_after_a_version_ab_reads_its_slowdown_as_the_trouble(cli: CLI) -> None:
    """After an upgrade, a slowdown under a version change that does not say it goes back is
    the trouble as it happened (the version rule's ``runs_back``): the answer given after the
    A/B reads it so too."""
    upgrade = ("--change", "torch 2.1 -> 2.2", "--reported", "30:10", "--unit", "tok/s")
    first = _new(cli)
    _intake(cli, first, "after-upgrade=framework")
    read_first = _ab(cli, first, *upgrade)
    last = _new(cli)
    read_last = _ab(cli, last, *upgrade)
    said = _intake(cli, last, "after-upgrade=framework")
    assert read_first["rule"] == read_last["rule"] == "experiment.version"
    assert read_first["outcome"] == "faster" and read_last["outcome"] == "slower"
    (again,) = said["experiments"]  # type: ignore[misc]
    assert (again["before"], again["now"]) == ("version 'slower'", "version 'faster'")
    assert _confidences(cli, last) == _confidences(cli, first)


def _answered_first_and_last(cli: CLI, answers: list[str], *records: list[str]) -> None:
    """Each A/B of ``records`` recorded after the answers, and before them with the answers
    given after: the two cases end on the same confidences."""
    first = _new(cli)
    for answer in answers:
        _intake(cli, first, answer)
    for record in records:
        _ab(cli, first, *record)
    last = _new(cli)
    for record in records:
        _ab(cli, last, *record)
    for answer in answers:
        _intake(cli, last, answer)
    assert _confidences(cli, last) == _confidences(cli, first)


def test_a_retelling_is_read_again_with_the_ab_it_retells(cli: CLI) -> None:
    """A finding told twice ("10 -> 30 tok/s", later "fixed by it") is one finding: the
    answer that changes its reader reads its latest telling again."""
    told = [*HIDE]
    again = ["--change", "CUDA_VISIBLE_DEVICES=0", "--outcome", "fixed", "--restates", "x1"]
    _answered_first_and_last(cli, ["gpu-count=one"], told, again)
    case = _new(cli)
    _ab(cli, case, *told)
    _ab(cli, case, *again)
    (read,) = _intake(cli, case, "gpu-count=one")["experiments"]  # type: ignore[misc]
    assert read["experiment_id"] == "x1"
    assert read["now"] == "visible-devices 'faster' (as told in x2)", read
    assert read["before"] == "fewer-gpus 'faster' (as told in x2)", read


def test_a_finding_withdrawn_and_told_again_comes_back_in_its_latest_telling(cli: CLI) -> None:
    """Withdrawn while no rule read it, retold then (read by none either), and read again
    when the answer allowed it: the retelling counts, as with the answer given first."""
    case = _new(cli)
    _intake(cli, case, "gpu-count=several")
    _ab(cli, case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed")
    _intake(cli, case, "gpu-count=one")
    retold = ("--change", "NCCL_P2P_DISABLE=1", "--reported", "10:20", "--unit", "GB/s")
    _ab(cli, case, *retold, "--restates", "x1")
    (back,) = _intake(cli, case, "gpu-count=several")["experiments"]  # type: ignore[misc]
    assert back["now"].startswith("p2p-disable 'faster' (as told in x2)"), back
    straight = _new(cli)
    _intake(cli, straight, "gpu-count=several")
    _ab(cli, straight, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed")
    _ab(cli, straight, *retold, "--restates", "x1")
    assert _confidences(cli, case) == _confidences(cli, straight)


def test_a_measured_ab_retold_in_words_stands_and_is_read_again(cli: CLI, tmp_path: Path) -> None:
    """A measured A/B whose retelling adds nothing (the measurement stands) is read again
    itself when the answers change."""

    retold = ("--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed", "--restates", "x1")
    first, last = _measured_and_retold_either_side(cli, tmp_path, retold)
    # --no-known: the runs name their GPUs, which answer gpu-class when known answers are
    # recorded with this one (and were not yet when the first case was answered)
    (gone,) = _intake(cli, last, "gpu-count=one", "--no-known")["experiments"]  # type: ignore[misc]
    assert gone["now"] is None and gone["before"] == "p2p-disable 'faster'", gone
    assert _confidences(cli, last) == _confidences(cli, first)
    (back,) = _intake(cli, last, "gpu-count=several", "--no-known")["experiments"]  # type: ignore[misc]
    assert back["now"] == "p2p-disable 'faster'", back  # the measurement, not its retelling


def test_reported_figures_are_taken_as_the_new_readers_probe(cli: CLI) -> None:
    """GB/s figures with no probe named are the reading rule's benchmark's (nccl-tests for
    p2p-disable, a 5 % margin): read again, as if recorded under the answer."""
    figures = ["--change", "NCCL_P2P_DISABLE=1", "--reported", "20:21.5", "--unit", "GB/s"]
    _answered_first_and_last(cli, ["gpu-count=one", "gpu-count=several"], figures)
    case = _new(cli)
    _intake(cli, case, "gpu-count=one")
    _ab(cli, case, *figures)
    (read,) = _intake(cli, case, "gpu-count=several")["experiments"]  # type: ignore[misc]
    assert read["before"] is None and read["now"] == "p2p-disable 'faster'", read
    assert read["because"].startswith("gpu-count = several (seq"), read


def test_an_ab_recorded_before_casefile_kept_who_chose_is_left_as_read(
    cli: CLI, tmp_path: Path
) -> None:
    """An ``experiment.recorded`` without ``chosen`` (written before it was kept, perhaps with
    a rule named) is never read again."""
    case = _new(cli)
    _ab(cli, case, *HIDE, "--rule", "visible-devices")
    exported = tmp_path / "out"
    assert cli("export", case, str(exported)).code == 0
    lines = (exported / "events.jsonl").read_text(encoding="utf-8").splitlines()
    older = [json.loads(line) for line in lines]
    for event in older:
        if event["type"] == "experiment.recorded":
            event["payload"].pop("named_rule")
            assert "chosen" not in event["payload"]
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "events.jsonl").write_text(_resealed(older, "old"), encoding="utf-8")
    assert cli("import", str(tmp_path / "old")).code == 0
    assert _intake(cli, "old", "after-upgrade=no")["experiments"] == []
    assert _intake(cli, "old", "gpu-count=several")["experiments"] == []


def _measured_and_retold_either_side(
    cli: CLI, tmp_path: Path, retold: tuple[str, ...]
) -> tuple[str, str]:
    """Two cases with the measured A/B and ``retold``: the first told gpu-count = one before
    them, the second not yet."""
    first = _new(cli)
    _intake(cli, first, "gpu-count=one", "--no-known")
    _measured_and_retold(cli, tmp_path, first, retold)
    last = _new(cli)
    _measured_and_retold(cli, tmp_path, last, retold)
    return first, last


def _measured_and_retold(cli: CLI, tmp_path: Path, case: str, retold: tuple[str, ...]) -> None:
    """A measured A/B of NCCL_P2P_DISABLE=1 (nccl-tests, 6 -> 18 GB/s), then ``retold``."""
    seqs = [
        paste(cli, case, tmp_path, f"{case}-{n}.txt", nccl_table(bw, "NVIDIA A40"))
        for n, bw in ((0, 6.0), (1, 18.0))
    ]
    _ab(cli, case, "--change", "NCCL_P2P_DISABLE=1", "--baseline", str(seqs[0]),
        "--variant", str(seqs[1]))  # fmt: skip
    _ab(cli, case, *retold)


def _resealed(events: list[dict[str, Any]], case_id: str) -> str:
    """The events as a case directory's lines, under ``case_id``, chained and hashed anew."""
    lines, prev = [], GENESIS_HASH
    for number, event in enumerate(events, start=1):
        new = NewEvent(
            event["type"], event["payload"], event["actor"], event["occurred_at"], event["version"]
        )
        sealed = seal(case_id, number, prev, new, event["recorded_at"])
        lines.append(sealed.to_line() + "\n")
        prev = sealed.hash
    return "".join(lines)


def test_figures_with_no_unit_take_the_direction_of_the_rule_that_reads_them_now(
    cli: CLI,
) -> None:
    """With no unit, which way is better is the reading rule's; recorded while no rule read
    them, the figures had none, and read again they take the new reader's."""
    fewer = ["--change", "8 GPUs -> 2 GPUs", "--reported", "10:30"]
    _answered_first_and_last(cli, ["gpu-count=one", "gpu-count=several"], fewer)
    case = _new(cli)
    _intake(cli, case, "gpu-count=one")
    assert _ab(cli, case, *fewer)["evidence_id"] is None
    (read,) = _intake(cli, case, "gpu-count=several")["experiments"]  # type: ignore[misc]
    assert read["now"] == "fewer-gpus 'faster'", read


def test_figures_of_a_metric_of_ones_own_choosing_take_no_rules_direction_when_read_again(
    cli: CLI,
) -> None:
    """The rule's direction is its own metric's: figures of a metric a person chose, with no
    unit and a name that says neither way ("score" may be a loss), stay unread when a rule
    comes to read the change, as they were when recorded."""
    case = _new(cli)
    _intake(cli, case, "gpu-count=one")
    fewer = ["--change", "8 GPUs -> 2 GPUs", "--reported", "10:30", "--metric", "score"]
    assert _ab(cli, case, *fewer)["evidence_id"] is None
    assert _intake(cli, case, "gpu-count=several")["experiments"] == []


def test_a_named_retelling_keeps_its_reader_when_the_finding_is_read_again(
    cli: CLI, tmp_path: Path
) -> None:
    """A retelling named to a rule, read by nothing while the measurement it retells stood,
    keeps its named reader when the measured A/B is read again; which telling counts follows
    the answers."""

    retold = ("--change", "NCCL_P2P_DISABLE=1 (retold)", "--outcome", "fixed", "--restates",
              "x1", "--rule", "p2p-disable")  # fmt: skip
    first, last = _measured_and_retold_either_side(cli, tmp_path, retold)
    # the measurement read while the GPU count was open, its retelling read by nothing; told
    # it is one GPU, the measurement has no reader, and the retelling its named one
    (now,) = _intake(cli, last, "gpu-count=one", "--no-known")["experiments"]  # type: ignore[misc]
    assert now["before"] == "p2p-disable 'faster'", now
    assert now["now"] == "p2p-disable 'faster' (as told in x2)", now
    assert _confidences(cli, last) == _confidences(cli, first)
