"""An A/B is read as the answers in force would read it, whatever the order of A/B and answer
(:mod:`casefile.app.experiment_rereading`): "CUDA_VISIBLE_DEVICES=0" is fewer GPUs on a job
that uses several and the device a one-GPU job sees; after an upgrade a slowdown under a version
change is the trouble as it happened."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

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
    assert "[read by rule fewer-gpus, as named]" in cli("log", named).out


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
