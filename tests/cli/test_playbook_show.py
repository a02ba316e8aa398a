"""``casefile playbook show NAME[@VERSION]``: what a playbook asks, supposes and reads."""

from __future__ import annotations

import json

import pytest
from casefile_gpu_playbook import PLAYBOOK_V2, PLAYBOOK_V3

from casefile.domain.playbook import load_playbook
from casefile.plugins import Registry
from tests.cli.conftest import CLI, builtin_probes


def test_without_numbers_it_shows_intake_hypotheses_and_wordings(cli: CLI) -> None:
    result = cli("playbook", "show", "gpu-throughput@2")
    assert result.code == 0, result.err
    out = result.out
    assert out.startswith("gpu-throughput@2: ")
    assert "Question throughput: What limits throughput?\n" in out
    assert f"Intake ({len(PLAYBOOK_V2.intake)}):" in out
    assert "  nvlink: Are the GPUs connected by NVLink (SXM or bridges)? [yes / no]" in out
    assert "    answered by --env nvlink=ANSWER" in out
    assert "    answered by --env platform=ANSWER, --env virtualization=ANSWER" in out
    assert "    answered by the fact nccl.hosts ≥ 2 → multi" in out
    assert "    answered by the fact host.virtualized = True → vm" in out
    # the tree: children under their parent, one level deeper, each with its meaning
    assert (
        "  pcie-bound: PCIe-bound: moving data between GPUs over PCIe limits throughput\n"
        "    meaning: the GPUs wait on PCIe transfers" in out
    )
    assert "\n    pcie-bandwidth: PCIe bandwidth saturated by collective traffic\n" in out
    assert "      meaning: the links run near capacity under load" in out
    assert f"Experiments ({len(PLAYBOOK_V2.experiments)}):" in out
    assert "  experiment.version (gpu-throughput@2): " in out
    assert "pip install nccl==2.19.3" in out
    # probabilities only with numbers (a rule's bounds, "≥ 0.95", are its words)
    for number in ("prior", "0.0849", "slower 0.05", "catch-all", "noise:", "otherwise   "):
        assert number not in out, number


def test_numbers_adds_priors_and_tables(cli: CLI) -> None:
    out = cli("playbook", "show", "gpu-throughput@2", "--numbers").out
    assert "(catch-all 0.1)" in out
    assert "  pcie-bound (prior 0.0849): " in out
    assert "    reliability 0.7" in out
    assert "      consumer-no-p2p        consumer 0.95  datacenter 0.05" in out
    assert "    noise:   nccl-tests ±5%, command ±10%" in out
    assert "      acs-iommu              slower 0.05  same 0.20  faster 0.75" in out
    assert "Probe rules (" in out and "  pcie-link-busy (v2): " in out
    assert "      otherwise              idle 0.50  moderate 0.35  saturated 0.15" in out


def test_json_has_everything(cli: CLI) -> None:
    result = cli("playbook", "show", "gpu-throughput@2", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["playbook"] == "gpu-throughput@2"
    assert data["question"] == {
        "id": "throughput",
        "text": "What limits throughput?",
        "catch_all": 0.1,
    }
    assert [i["id"] for i in data["intake"]] == [q.id for q in PLAYBOOK_V2.intake]
    nodes = next(i for i in data["intake"] if i["id"] == "nodes")
    assert nodes["environment"] == ["nodes"]
    assert nodes["facts"] == ["nccl.hosts ≥ 2 → multi", "nccl.nnodes ≥ 2 → multi"]
    assert nodes["likelihoods"]["internode-network"] == {"single": 0.03, "multi": 0.97}
    bandwidth = next(h for h in data["hypotheses"] if h["id"] == "pcie-bandwidth")
    assert (bandwidth["parent"], bandwidth["prior"]) == ("pcie-bound", 0.8)
    assert {h["id"] for h in data["hypotheses"]} == {h.id for h in PLAYBOOK_V2.hypotheses}
    assert data["experiments"][0]["id"] == "experiment.p2p-disable"
    assert data["experiments"][0]["likelihoods"]["otherwise"]["slower"] == 0.65
    assert {r["id"] for r in data["rules"]} == {r.id for r in PLAYBOOK_V2.rules}


def test_an_unknown_playbook_is_one_line_listing_the_installed_ones(cli: CLI) -> None:
    result = cli("playbook", "show", "gpu-thruput")
    assert result.code == 1
    assert (
        "no playbook 'gpu-thruput' (did you mean gpu-throughput?) (installed: gpu-throughput)"
        in result.err
    )
    assert len(result.err.strip().splitlines()) == 1


SMALL = """
[playbook]
id = "tiny"
version = 1
title = "A tiny playbook"
[question]
id = "q"
text = "Why slow?"
[[hypothesis]]
id = "net"
text = "The network"
prior = 0.5
meaning = "the fabric between the nodes limits it"
requires = [{ intake = "nodes", answers = ["multi"] }]
[[hypothesis]]
id = "disk"
text = "The disk"
prior = 0.3
[[intake]]
id = "nodes"
version = 1
text = "How many nodes?"
answers = ["single", "multi"]
rationale = "r"
[intake.likelihoods]
otherwise = { single = 0.5, multi = 0.5 }
"""


@pytest.mark.parametrize(
    "cli_registry",
    [Registry.of(probes=builtin_probes(), playbooks=[load_playbook(SMALL, "tiny.toml")])],
)
def test_a_hypothesis_shows_what_it_requires(cli: CLI) -> None:
    out = cli("playbook", "show", "tiny").out
    assert "  net: The network\n    meaning: the fabric between the nodes limits it\n" in out
    assert "    requires nodes: multi" in out
    assert "Experiments: none" in out
    data = json.loads(cli("playbook", "show", "tiny", "--json").out)
    assert data["hypotheses"][0]["requires"] == ["nodes: multi"]
    assert data["hypotheses"][1]["requires"] == []


def test_an_answer_another_answer_settles_is_listed_with_why(cli: CLI) -> None:
    """A question another question's answer settles (``implied_by``) says so, with the reason,
    in text and JSON; a playbook whose questions declare none lists none."""
    out = cli("playbook", "show", "gpu-throughput@3").out
    assert (
        "    answered by the answer nodes = multi → several: "
        "a job on several nodes uses several GPUs\n" in out
    )
    assert "    answered by the answer gpu-count = one → single: " in out
    data = json.loads(cli("playbook", "show", "gpu-throughput@3", "--json").out)
    by_id = {i["id"]: i for i in data["intake"]}
    assert by_id["gpu-count"]["implied_by"] == [
        "nodes = multi → several: a job on several nodes uses several GPUs"
    ]
    assert by_id["workload"]["implied_by"] == []
    assert "answered by the answer" not in cli("playbook", "show", "gpu-throughput@2").out


def test_playbook_show_says_when_the_cost_differs(cli: CLI) -> None:
    result = cli("playbook", "show", "gpu-throughput@3")
    assert result.code == 0, result.err
    assert (
        "    cost:    moderate where after-upgrade is framework or collective-library; "
        "else expensive\n" in result.out
    )
    shown = cli("experiment", "rules", "--json")
    assert shown.code == 0, shown.err
    rows = {(r["playbook"], r["id"]): r for r in json.loads(shown.out)}
    version = rows[(PLAYBOOK_V3.ref, "experiment.version")]
    assert version["cost"] == "expensive"
    assert version["cost_when"] == [
        "moderate where after-upgrade is framework or collective-library"
    ]


def test_a_pattern_that_answers_is_shown_in_words_and_as_itself_with_numbers(cli: CLI) -> None:
    """gpu-count's patterns ran to 300 characters of look-aheads; a reader wants what they
    read. Words without --numbers, the pattern with it (and in JSON)."""
    words = cli("playbook", "show", "gpu-throughput@3").out
    assert "    answered by --env gpus: a count of one GPU" in words
    assert "answered by the fact app.gpu_name: a GeForce, TITAN or GTX card" in words
    assert "(?!" not in words and "~ '" not in words
    numbers = cli("playbook", "show", "gpu-throughput@3", "--numbers").out
    assert "answered by --env gpus ~ '^(?!.*\\bvs\\b)" in numbers
    assert "answered by the fact app.gpu_name ~ 'GeForce" in numbers
    shown = json.loads(cli("playbook", "show", "gpu-throughput@3", "--json").out)
    gpu_count = next(q for q in shown["intake"] if q["id"] == "gpu-count")
    assert all("~ '" in match for match in gpu_count["environment_matches"])


def test_every_pattern_of_the_current_playbook_says_what_it_reads() -> None:
    for question in PLAYBOOK_V3.intake:
        for env in question.environment_matches:
            assert env.says, f"{question.id}: --env {env.key} ~ {env.matches!r} has no 'says'"
        for fact in question.facts:
            if fact.matches is not None:
                assert fact.says, f"{question.id}: fact {fact.fact} has no 'says'"


def test_each_probe_rule_says_what_it_reads_and_what_each_outcome_raises(cli: CLI) -> None:
    """What a paste is read for, without numbers: the facts, the load, the probes, and for
    each outcome the hypotheses it raises or lowers; and which rules read one state."""
    out = cli("playbook", "show", "gpu-throughput@3").out
    assert f"Probe rules ({len(PLAYBOOK_V3.rules)}; each outcome the first that holds):" in out
    block = out[out.index("  temperature-level (v2): ") :].split("\n")[:6]
    assert block == [
        "  temperature-level (v2): Hottest GPU temperature under load",
        "    reads:   max of temperature.gpu, under load, from nvidia-smi-q, nvidia-smi-query, "
        "nvidia-smi, nvidia-smi-dmon, nvml-sampler",
        "    hot (≥ 85): raises thermal-degradation, power-cap; lowers gpu-unused",
        "    warm (≥ 78): raises power-cap; lowers gpu-unused",
        "    cool (otherwise): lowers thermal-degradation, power-cap",
        "    one witness of gpu-heat (with clock-event-reasons, clock-held-low, clock-sag, "
        "throughput-falls, temperature-trend)",
    ]
    data = json.loads(cli("playbook", "show", "gpu-throughput@3", "--json").out)
    (rule,) = [r for r in data["rules"] if r["id"] == "clock-sag"]
    assert rule["witness"] == ["gpu-heat", "gpu-power"]
    assert rule["witnessed_with"]["gpu-power"] == [
        "power-headroom",
        "clock-event-reasons",
        "clock-held-low",
        "throughput-falls",
    ]
    assert rule["outcomes"][0] == {
        "name": "sagging", "when": "< 0.9", "raises": ["thermal-degradation", "power-cap"],
        "lowers": [], "load": None,
    }  # fmt: skip
