"""A rule's reading weighs only while the case's answers let the rule apply: NCCL names the
network it set up on a one-node job too, but ``nccl-network`` reads the network between nodes,
so on a job the case says runs on one node its reading is recorded and withdrawn at once; it
comes back when the node count is corrected, and a reading that weighed is withdrawn when a
later answer rules its rule out (:mod:`casefile.domain.reading_scope`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.app.draft import Draft
from casefile.app.rescoping import required_questions, requires_of
from casefile.domain import commands, triage
from casefile.domain.beliefs import project
from casefile.domain.event_types.evidence import IntakeWithdrawal
from casefile.domain.events import event_from_dict
from casefile.domain.reading_scope import rescoped, restoration
from casefile.domain.rule_loading import rule_from_dict
from casefile.errors import RuleError
from tests.cli.conftest import CLI

IB = "h:1:1 [0] NCCL INFO Using network IB\n"


def _confidences(cli: CLI, case: str) -> dict[str, float]:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return {h["id"]: round(h["confidence"], 12) for h in hypotheses}


def _case(cli: CLI, *answers: str) -> str:
    case = cli(
        "new", "allreduce slow", "--playbook", "gpu-throughput@3", "--env", "gpus=8x A100 SXM4"
    ).out.strip()
    if answers:
        said = cli("intake", case, *answers)
        assert said.code == 0, said.err
    return case


def _paste(cli: CLI, case: str, tmp_path: Path, *args: str) -> str:
    log = tmp_path / "nccl.txt"
    log.write_text(IB, encoding="utf-8")
    done = cli("probe", case, "nccl-debug", "--paste", str(log), *args)
    assert done.code == 0, done.err
    return done.out


def _draft(cli: CLI, case: str, tmp_path: Path) -> Draft:
    """The case as exported and folded anew, in a draft to add events to."""
    exported = tmp_path / "out"
    assert cli("export", case, str(exported)).code == 0
    lines = (exported / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return Draft(project([event_from_dict(json.loads(line)) for line in lines]), case)


def test_a_reading_taken_under_an_answer_that_rules_its_rule_out_weighs_nothing(
    cli: CLI, tmp_path: Path
) -> None:
    case = _case(cli, "nodes=single", "workload=training")
    said = _paste(cli, case, tmp_path)
    assert "withdrawn at once: nccl-network (does not apply: nodes = single (seq " in said
    logged = cli("log", case).out
    assert "evidence e" in logged and "rule nccl-network v1 → 'rdma'" in logged
    assert "rule nccl-network's reading 'rdma' withdrawn (does not apply now: nodes = single" in (
        logged
    )
    plain = _case(cli, "nodes=single", "workload=training")
    assert _confidences(cli, case) == _confidences(cli, plain)


def test_the_json_of_the_run_names_the_reading_withdrawn(cli: CLI, tmp_path: Path) -> None:
    case = _case(cli, "nodes=single")
    out = json.loads(_paste(cli, case, tmp_path, "--json"))
    runs = out if isinstance(out, list) else out.get("runs", [out])
    assert runs[0]["withdrawn"][0].startswith("nccl-network (does not apply: nodes = single")


def test_the_reading_comes_back_when_the_answer_is_corrected(cli: CLI, tmp_path: Path) -> None:
    case = _case(cli, "nodes=single", "workload=training")
    _paste(cli, case, tmp_path)
    corrected = cli("intake", case, "nodes=multi")
    assert corrected.code == 0, corrected.err
    assert "rule nccl-network's reading 'rdma' restored (nodes = single (seq " in corrected.out
    # the same as a case that said several nodes before the reading was taken
    direct = _case(cli, "nodes=multi", "workload=training")
    _paste(cli, direct, tmp_path)
    assert _confidences(cli, case) == _confidences(cli, direct)


def test_a_reading_that_weighed_is_withdrawn_by_a_later_answer(cli: CLI, tmp_path: Path) -> None:
    case = _case(cli, "nodes=multi", "workload=training")
    _paste(cli, case, tmp_path)
    before = _confidences(cli, case)
    later = json.loads(cli("intake", case, "nodes=single", "--json").out)
    (reading,) = later["readings"]
    assert reading["rule"] == "nccl-network" and reading["now"] == "withdrawn"
    assert reading["because"].startswith("nodes = single (seq ")
    plain = _case(cli, "nodes=single", "workload=training")
    assert _confidences(cli, case) == _confidences(cli, plain) != before
    # and an answer no rule requires moves no reading
    unrelated = json.loads(cli("intake", case, "platform=vm", "--json").out)
    assert unrelated["readings"] == []


def test_replay_and_the_report_say_the_same(cli: CLI, tmp_path: Path) -> None:
    case = _case(cli, "nodes=single")
    _paste(cli, case, tmp_path)
    cli("intake", case, "nodes=multi")
    report = cli("report", case, "--format", "json")
    assert report.code == 0, report.err
    rows = json.loads(report.out)["evidence"]
    said = [row["withdraws"] for row in rows if row.get("withdraws")]
    assert any(s.startswith("rule nccl-network's reading 'rdma' withdrawn") for s in said)
    projection = _draft(cli, case, tmp_path).projection
    active = [e for e in projection.evidence.values() if e.active and e.rule]
    assert any(e.rule and e.rule["id"] == "nccl-network" for e in active)
    # nothing left to withdraw or restore: a second pass finds the case in step
    assert list(rescoped(projection, lambda _id, _v: (("nodes", ("multi",)),))) == []


def test_a_withdrawal_made_by_hand_of_no_reading_restores_nothing(cli: CLI, tmp_path: Path) -> None:
    """A scope withdrawal superseding a person's evidence (an event made by hand) names no
    rule reading: nothing is restored from it, whatever the answers say."""
    case = _case(cli, "nodes=single")
    added = cli(
        "evidence", "add", case, "--likelihood", "internode-network=0.9", "--otherwise", "0.3",
        "--because", "a person's hunch",
    )  # fmt: skip
    assert added.code == 0, added.err
    draft = _draft(cli, case, tmp_path)
    person = next(e for e in draft.projection.evidence.values() if not e.rule)
    hand = commands.assess_evidence(
        draft.projection,
        {h: 1.0 for h in person.likelihoods},
        rationale="made by hand",
        otherwise=1.0,
        kind="reported",
        reliability=0.0,
        supersedes=person.id,
        withdraws=IntakeWithdrawal(id="nccl-network", answer="rdma", because="scope", reason="x"),
    )
    draft.add(hand)
    withdrawal = next(e for e in draft.projection.evidence.values() if e.active)
    assert restoration(draft.projection, withdrawal.id) is None
    assert list(rescoped(draft.projection, lambda _id, _v: ())) == []


def test_only_rules_whose_reading_means_nothing_outside_their_requirements_opt_in() -> None:
    """``requires`` alone says when a rule is worth suggesting; a rule's reading is withdrawn
    only where the rule says it means nothing outside them (``only_where_required``)."""
    held = requires_of([PLAYBOOK_V3])
    rules = {r.id: r for r in PLAYBOOK_V3.rules}
    for rid in ("nccl-network", "topology-p2p-path", "rdma-rate", "decode-roofline"):
        assert held(rid, rules[rid].version) == rules[rid].requires, rid
    # a model's share on the GPU, read in training, still speaks for the GPU left unused
    for rid in ("model-on-gpu-share", "cuda-graphs-off", "tensor-parallel-size"):
        assert rules[rid].requires and held(rid, rules[rid].version) is None, rid
    # an A/B's reader is chosen under the answers when it is recorded (experiment_rule): a
    # change a ruled-out rule would read goes to the next rule, so none is withdrawn later
    fewer = next(e for e in PLAYBOOK_V3.experiments if e.id == "fewer-gpus").rule
    assert fewer.requires and held(fewer.id, fewer.version) is None
    # a version the playbook does not hold is left as it is
    assert held("nccl-network", rules["nccl-network"].version + 1) is None
    assert "workload" not in required_questions([PLAYBOOK_V3])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"only_where_required": "yes"}, "'only_where_required' must be true or false"),
        ({"only_where_required": True, "requires": []}, "needs 'requires' to say where"),
    ],
)
def test_a_bad_only_where_required_is_refused(extra: dict[str, object], message: str) -> None:
    base: dict[str, object] = {
        "id": "r",
        "version": 1,
        "probes": ["nccl-debug"],
        "statistic": {"aggregate": "values", "fact": "nccl.network"},
        "outcomes": [{"name": "socket", "any_of": ["Socket"]}, {"name": "rdma"}],
        "likelihoods": {"otherwise": {"socket": 0.5, "rdma": 0.5}},
        "rationale": "why",
        "requires": [{"intake": "nodes", "answers": ["multi"]}],
    }
    with pytest.raises(RuleError, match=message):
        rule_from_dict({**base, **extra}, "throughput", where="test")


def test_a_reading_recorded_before_the_answer_is_not_counted_twice_when_pasted_after(
    cli: CLI, tmp_path: Path
) -> None:
    """The order of run and answer does not matter: the reading taken first is withdrawn by
    the answer, and the same paste given again is refused as before (restored later, it would
    count twice), so the case weighs as one answered first."""
    case = _case(cli, "workload=training")
    _paste(cli, case, tmp_path)
    assert "rule nccl-network's reading 'rdma' withdrawn" in cli("intake", case, "nodes=single").out
    again = cli("probe", case, "nccl-debug", "--paste", str(tmp_path / "nccl.txt"))
    assert again.code != 0 and "would count twice" in again.err
    first = _case(cli, "workload=training", "nodes=single")
    _paste(cli, first, tmp_path)
    assert _confidences(cli, case) == _confidences(cli, first)


def test_the_listings_say_what_each_rule_needs_and_whether_its_reading_counts_only_there(
    cli: CLI,
) -> None:
    shown = cli("playbook", "show", "gpu-throughput@3")
    assert shown.code == 0, shown.err
    assert "    needs:   gpu-count: several, nodes: multi (its reading counts only there)" in (
        shown.out
    )
    assert (
        "    needs:   workload: inference-small-batch or inference-large-batch (suggested only "
        "there; it reads any run)" in shown.out
    )
    rules = json.loads(cli("playbook", "show", "gpu-throughput@3", "--json").out)["rules"]
    network = next(r for r in rules if r["id"] == "nccl-network")
    assert network["requires"] == ["gpu-count: several", "nodes: multi"]
    assert network["only_where_required"] is True
    listed = cli("experiment", "rules", "--playbook", "gpu-throughput@3", "--json")
    fewer = next(r for r in json.loads(listed.out) if r["id"] == "experiment.fewer-gpus")
    assert (fewer["requires"], fewer["only_where_required"]) == (["gpu-count: several"], False)
    text = cli("experiment", "rules", "--playbook", "gpu-throughput@3").out
    assert (
        "  needs:   gpu-count: several (read only there, and read again when the answers change)"
        in text
    )


def test_a_withdrawn_reading_comes_back_by_what_its_withdrawal_kept(
    cli: CLI, tmp_path: Path
) -> None:
    """Whether to restore is decided from the withdrawal's own record of what the rule needs,
    not from the playbook: a rule revised since (``requires_of`` holds nothing) still gets
    its reading back once no answer rules it out."""
    case = _case(cli, "nodes=single")
    _paste(cli, case, tmp_path)
    draft = _draft(cli, case, tmp_path)
    nodes = PLAYBOOK_V3.intake_question("nodes")
    answered = triage.answer_intake(draft.projection, nodes, "multi", None)
    assert answered is not None
    draft.add(answered)
    (restored,) = list(rescoped(draft.projection, lambda _id, _v: None))
    assert restored.payload["rule"] == {"id": "nccl-network", "version": 1}
    assert restored.payload["outcome"] == "rdma"


def test_a_reading_withdrawn_and_restored_again_and_again_is_told_once(
    cli: CLI, tmp_path: Path
) -> None:
    case = _case(cli, "nodes=single")
    _paste(cli, case, tmp_path)
    for answer in ("multi", "single", "multi", "single", "multi"):
        assert cli("intake", case, f"nodes={answer}").code == 0
    logged = json.loads(cli("log", case, "--json").out)
    restored = [
        e["payload"]["rationale"]
        for e in logged
        if e["type"] == "evidence.assessed"
        and str(e["payload"].get("rationale", "")).startswith("Restored: ")
    ]
    assert len(restored) == 3
    # each names the first telling, e6, and says its rationale once
    assert all(r.startswith("Restored: the reading of evidence e") for r in restored)
    assert len({r.split(",")[0] for r in restored}) == 1
    assert all(r.count("Restored: ") == 1 for r in restored)
    # no restoration grows by the one before it: they differ only in the seqs they name
    assert max(map(len, restored)) - min(map(len, restored)) <= 4


def test_an_answer_superseded_by_hand_brings_the_readings_in_step(cli: CLI, tmp_path: Path) -> None:
    """Evidence a person records over an intake answer takes that answer out of force; the
    reading it had ruled out comes back in the same append."""
    case = _case(cli)
    said = json.loads(cli("intake", case, "nodes=single", "--json").out)["recorded"]
    nodes = next(row for row in said if row["question"] == "nodes")["evidence_id"]
    _paste(cli, case, tmp_path)
    taken = cli(
        "evidence", "add", case, "--supersedes", nodes, "--likelihood", "internode-network=1",
        "--otherwise", "1", "--because", "the node count was a guess",
    )  # fmt: skip
    assert taken.code == 0, taken.err
    assert "rule nccl-network v1 → 'rdma'" in cli("log", case).out.splitlines()[-1]
    # the id alone on stdout; what the evidence brought in step said beside it
    assert taken.out.strip().startswith("e") and "\n" not in taken.out.strip()
    (line,) = [line for line in taken.err.splitlines() if "in step" in line]
    assert "rule nccl-network v1 → 'rdma'" in line, taken.err
    never = _case(cli)
    _paste(cli, never, tmp_path)
    assert _confidences(cli, case) == _confidences(cli, never)


def test_an_answer_superseded_by_hand_withdraws_what_it_implied_too(
    cli: CLI, tmp_path: Path
) -> None:
    """gpu-count = one implies nodes = single; evidence recorded by hand over gpu-count takes
    both out of force, and the reading they ruled out comes back, in the same append."""
    case = cli("new", "allreduce slow", "--playbook", "gpu-throughput@3").out.strip()
    said = json.loads(cli("intake", case, "gpu-count=one", "--json").out)["recorded"]
    count = next(row for row in said if row["question"] == "gpu-count")["evidence_id"]
    _paste(cli, case, tmp_path)
    taken = cli(
        "evidence", "add", case, "--supersedes", count, "--likelihood", "internode-network=1",
        "--otherwise", "1", "--because", "the GPU count was a guess",
    )  # fmt: skip
    assert taken.code == 0, taken.err
    in_step = [line for line in taken.err.splitlines() if "in step" in line]
    assert len(in_step) == 2 and "nodes" in in_step[0] and "nccl-network" in in_step[1], in_step
    listed = json.loads(cli("intake", case, "--list", "--json").out)
    assert next(row for row in listed if row["id"] == "nodes")["answer"] is None
    never = cli("new", "allreduce slow", "--playbook", "gpu-throughput@3").out.strip()
    _paste(cli, never, tmp_path)
    assert _confidences(cli, case) == _confidences(cli, never)


def test_a_restored_reading_of_a_rule_revised_since_is_withdrawn_again(
    cli: CLI, tmp_path: Path
) -> None:
    """The playbook no longer holds the rule's version (``requires_of`` gives nothing): the
    reading restored by what its withdrawal kept is withdrawn again by the same."""
    case = _case(cli, "nodes=single")
    _paste(cli, case, tmp_path)
    draft = _draft(cli, case, tmp_path)
    nodes = PLAYBOOK_V3.intake_question("nodes")
    for answer, kind in (("multi", "restored"), ("single", "withdrawn")):
        answered = triage.answer_intake(draft.projection, nodes, answer, None)
        assert answered is not None
        draft.add(answered)
        (event,) = list(rescoped(draft.projection, lambda _id, _v: None))
        draft.add(event)
        assert ("withdraws" in event.payload) is (kind == "withdrawn"), kind
