"""How people write a change, and which experiment rule reads it: the spellings normalised
before matching, the patterns rendered in words, and ``casefile experiment rules``."""

from __future__ import annotations

import json
import re

import pytest
from casefile_gpu_playbook import PLAYBOOK_V2

from casefile.domain.change_forms import change_readings, normalise_change
from casefile.domain.experiments import ExperimentRule
from casefile.domain.playbook import load_playbook
from casefile.domain.wordings import examples, wordings
from casefile.errors import RuleError
from tests.cli.conftest import CLI, builtin_registry
from tests.triage.test_experiments import log


def reading_rule(change: str) -> str | None:
    """The first rule of gpu-throughput@2, as the registry holds it, that reads ``change``
    (the order the service tries them in)."""
    playbook = builtin_registry().playbook("gpu-throughput@2")
    return next((r.id for r in playbook.experiments if r.matches(change)), None)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("export NCCL_P2P_DISABLE=1", "p2p-disable"),
        ("NCCL_P2P_DISABLE: 1", "p2p-disable"),
        ("NCCL_P2P_DISABLE 1", "p2p-disable"),
        ("NCCL_P2P_DISABLE=Enabled", "p2p-disable"),
        ("NCCL_P2P_DISABLE=Enable", "p2p-disable"),
        ("NCCL_P2P_DISABLE=On", "p2p-disable"),
        ("NCCL_P2P_DISABLE=true", "p2p-disable"),
        ("nccl_p2p_disable=yes", "p2p-disable"),
        ("NCCL_SHM_DISABLE: true", "shm-disable"),
        ("NCCL_P2P_DISABLE=Disabled", None),
        ("NCCL_P2P_DISABLE=off", None),
        ("NCCL_P2P_DISABLE=false", None),
        ("NCCL_P2P_DISABLE=no", None),
        ("NCCL_P2P_LEVEL SYS", "p2p-level"),
        ("IOMMU: Disabled", "iommu-acs-off"),
        ("pip install torch==2.3.1", "version"),
        ("pip install -U nvidia-nccl-cu12==2.18.3", "version"),
        ("flash-attn==2.5.8", "version"),
        ("transformers 4.40.1 -> 4.41.0", "version"),
        ("flash-attn from 2.5.8 to 2.6.3", "version"),
        ("downgraded flash-attn to 2.5.8", "version"),
        ("triton upgraded to 3.0.0", "version"),
        ("batch size 1 -> 16", "batch-size"),
        ("moved the box to rack 7", None),
    ],
)
def test_common_spellings_are_read_by_the_playbooks_rules(change: str, rule: str | None) -> None:
    assert reading_rule(change) == rule


def test_without_normalising_those_spellings_were_not_read() -> None:
    """The same patterns matched on the words as written miss them (what this adds)."""
    import re

    playbook = builtin_registry().playbook("gpu-throughput@2")
    for change in ("NCCL_P2P_DISABLE: true", "pip install flash-attn==2.5.8", "IOMMU: Disabled"):
        assert not any(re.search(r.change, change, re.I) for r in playbook.experiments)
        assert reading_rule(change) is not None


@pytest.mark.parametrize(
    ("change", "normal"),
    [
        ("export NCCL_P2P_DISABLE=1", "NCCL_P2P_DISABLE=1"),
        ("NCCL_P2P_DISABLE: Disabled", "NCCL_P2P_DISABLE=0"),
        ("NCCL_ALGO Ring", "NCCL_ALGO=Ring"),
        ("pip install torch==2.3.1", "torch version -> 2.3.1"),
        ("torch 2.2.0 -> 2.3.1", "torch version 2.2.0 -> 2.3.1"),
        ("downgraded nccl from 2.19.3 to 2.18.3", "nccl version 2.19.3 -> 2.18.3"),
        ("batch size 1 -> 16", "batch size 1 -> 16"),
    ],
)
def test_the_normal_form(change: str, normal: str) -> None:
    assert normalise_change(change) == normal
    assert change_readings(change)[0] == change


def test_the_event_keeps_the_change_as_written(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "s1", "--playbook", "gpu-throughput@2").code == 0
    result = cli(
        "experiment", "s1", "--change", "export NCCL_P2P_DISABLE=true", "--outcome", "fixed",
        "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert json.loads(result.out)["rule"] == "experiment.p2p-disable"
    recorded = next(e for e in log(cli, "s1") if e["type"] == "experiment.recorded")
    assert recorded["payload"]["change"] == "export NCCL_P2P_DISABLE=true"  # type: ignore[index]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"NCCL_P2P_DISABLE\s*=\s*1", ("NCCL_P2P_DISABLE=1",)),
        (r"NCCL_P2P_LEVEL\s*=\s*\S+", ("NCCL_P2P_LEVEL=…",)),
        (r"\bNPS\s*[0-9]|sub.?NUMA", ("NPS N", "sub NUMA")),
        (
            r"iommu\s*=\s*(pt|off)|IOMMU\s+(off|disabled)",
            ("iommu=(pt | off)", "IOMMU (off | disabled)"),
        ),
        (r"(?i)ahead", ("(?i)ahead",)),  # beyond what is rendered: shown as written
        # a look-around stands beside the words and is none of them
        (r"(?<!not )offload(?!\s*=\s*false)", ("offload",)),
        (r"disable[-_ ]?x(?![\s=:]*(false|0)\b)", ("disable…x",)),
        # "mentions X somewhere" is said as the words it must hold, then what follows; the
        # start and end of the change are no words; a hex escape is its character, \W a gap
        (
            r"^(?:(?=.*[0-9]\.[0-9])(?=.*\b(torch|nccl)\b)|(?=.*\bcommit\b)).*(->|revert)",
            ("(N.N … (torch | nccl) … | commit …) … (-> | revert)",),
        ),
        (r"model\b(?!\x27s)", ("model",)),
        (r"it\x27s on", ("it's on",)),
        (r"CUDA_VISIBLE_DEVICES\W+0\W*$", ("CUDA_VISIBLE_DEVICES 0",)),
    ],
)
def test_a_pattern_in_words(pattern: str, expected: tuple[str, ...]) -> None:
    assert wordings(pattern) == expected


@pytest.mark.parametrize("rule", PLAYBOOK_V2.experiments, ids=lambda r: f"{r.id}")
def test_every_example_is_read_by_its_rule(rule: ExperimentRule) -> None:
    shown = examples(rule.change, rule.matches)
    assert shown, f"{rule.id}: no example"
    assert all(rule.matches(example) for example in shown)


def test_the_version_rule_shows_the_spellings_it_reads() -> None:
    rule = next(r for r in PLAYBOOK_V2.experiments if r.id == "version")
    shown = examples(rule.change, rule.matches)
    assert "pip install nccl==2.19.3" in shown and "downgraded nccl to 2.18.3" in shown


EXPERIMENT = """
[playbook]
id = "p"
version = 1
[question]
id = "q"
text = "why?"
[[hypothesis]]
id = "a"
text = "a"
prior = 0.5
[[experiment]]
id = "x"
version = 1
change = 'FOO\\s*=\\s*1'
probes = ["command"]
metric = "m"
noise = 0.1
noise_why = "w"
rationale = "r"
examples = [EXAMPLES]
[experiment.likelihoods]
otherwise = { faster = 0.2, same = 0.6, slower = 0.2 }
"""


def test_a_playbook_may_declare_examples_its_pattern_reads() -> None:
    playbook = load_playbook(EXPERIMENT.replace("EXAMPLES", '"FOO: on"'))
    assert playbook.experiments[0].examples == ("FOO: on",)
    with pytest.raises(RuleError, match="experiment x: example 'BAR=1' is not a change"):
        load_playbook(EXPERIMENT.replace("EXAMPLES", '"BAR=1"'))


def test_experiment_rules_lists_every_rule_of_a_playbook(cli: CLI) -> None:
    result = cli("experiment", "rules", "--playbook", "gpu-throughput@2")
    assert result.code == 0, result.err
    for rule in PLAYBOOK_V2.experiments:
        assert f"experiment.{rule.id} (gpu-throughput@2): {rule.title}" in result.out
    assert "  reads:   NCCL_P2P_DISABLE=1" in result.out
    assert "export NCCL_P2P_DISABLE=1" in result.out
    assert "  metric:  nccl.busbw.large, nccl.avg_busbw" in result.out
    assert "  probes:  nccl-tests, command (expensive)" in result.out
    assert "--tests HYP" in result.out
    assert "0.75" not in result.out  # no numbers


def test_experiment_rules_of_a_case_are_its_playbooks(cli: CLI) -> None:
    assert cli("new", "new", "--id", "n1", "--playbook", "gpu-throughput@2").code == 0
    result = cli("experiment", "rules", "n1", "--json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert {row["playbook"] for row in rows} == {"gpu-throughput@2"}
    assert [row["id"] for row in rows] == [f"experiment.{r.id}" for r in PLAYBOOK_V2.experiments]
    assert set(rows[0]) >= {"id", "title", "wordings", "examples", "metric", "probes"}
    # version 1 has no experiment rules: a case opened from it lists none
    assert cli("new", "old", "--id", "o1", "--playbook", "gpu-throughput@1").code == 0
    assert json.loads(cli("experiment", "rules", "o1", "--json").out) == []
    assert "no experiment rules in case o1" in cli("experiment", "rules", "o1").out


def test_experiment_rules_of_every_installed_playbook(cli: CLI) -> None:
    rows = json.loads(cli("experiment", "rules", "--json").out)
    newest = builtin_registry().playbook("gpu-throughput")  # the newest version of each
    assert {row["playbook"] for row in rows} == {newest.ref}
    assert [row["id"] for row in rows] == [f"experiment.{r.id}" for r in newest.experiments]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--playbook", "nope"], "no playbook 'nope' (installed: gpu-throughput)"),
        (["o1", "--playbook", "gpu-throughput"], "give a CASE or --playbook, not both"),
        (["nope"], "no case 'nope'"),
    ],
)
def test_experiment_rules_refuses_in_one_line(cli: CLI, args: list[str], message: str) -> None:
    assert cli("new", "old", "--id", "o1").code == 0
    result = cli("experiment", "rules", *args)
    assert result.code == 1 and message in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1


def test_an_experiment_still_needs_its_change(cli: CLI) -> None:
    assert cli("new", "old", "--id", "o1").code == 0
    result = cli("experiment", "o1", "--outcome", "fixed")
    assert result.code == 1 and "needs --change TEXT" in result.err


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("dataset cached in RAM", "data-pipeline"),
        ("images were cached", "data-pipeline"),
        ("cached the dataset on local NVMe", "data-pipeline"),
        ("torch 2.1.2 -> 2.2.0", "version"),
        ("2x A10 -> 1 GPU", "fewer-gpus"),
        # spellings of the same changes a review of the rules found unread (change 83)
        ("single GPU instead of 4", "fewer-gpus"),
        ("-sm none", "fewer-gpus"),
        ("--split-mode none", "fewer-gpus"),
        ("sudo jetson_clocks", "power-limit"),
        ("persistent_workers=True", "data-pipeline"),
        ("dataset copied to /dev/shm", "data-pipeline"),
        ("threads 32 -> 8", "host-threads"),
        ("torch 2.4.0+cpu -> 2.4.0+cu121", "gpu-offload"),
        ("CPU-only torch -> CUDA torch", "gpu-offload"),
        ("num_gpu 99", "gpu-offload"),
        ("use_gpu=True", "gpu-offload"),
        ("modprobe nvidia_peermem", "network-path"),
        ("GPUDirect RDMA enabled", "network-path"),
        ("link 2.5 GT/s -> 16 GT/s", "pcie-link"),
        ("side panel removed", "cooling"),
        ("llama.cpp b2450 -> b2600", "version"),
        # and what they must not take from a neighbour
        ("torch 2.1.0+cu118 -> 2.2.0+cu121", "version"),
        ("CUDA_VISIBLE_DEVICES=0,1 -> 0,2", "visible-devices"),
        ("CUDA_VISIBLE_DEVICES=1 -> 0", "visible-devices"),
        ("tensor parallel 4 -> 2", "launch-config"),
        # a change that says it compiles nothing is no CUDA-graph A/B (change 84)
        ("main -> PR #11238 (host work skipped, no compiled regions)", None),
        ("eager, without compile -> compiled regions", "cuda-graphs"),
        ("generate.py run eagerly (no --compile) -> with --compile", "cuda-graphs"),
    ],
)
def test_version_3_reads_these_spellings(change: str, rule: str | None) -> None:
    playbook = builtin_registry().playbook("gpu-throughput@3")
    assert next((r.id for r in playbook.experiments if r.matches(change)), None) == rule


def test_no_version_3_rule_is_said_with_an_empty_alternative() -> None:
    """An anchor beside a character, `(^|\\s)-ngl` or `($|\\()`, leaves the character
    optional; no rule is said with a blank branch (`( | )-ngl` was, before a review)."""
    playbook = builtin_registry().playbook("gpu-throughput@3")
    blank = re.compile(r"\(\s*\||\|\s*\)|\|\s*\|")
    bad = {
        rule.id: wording
        for rule in playbook.experiments
        for wording in wordings(rule.change)
        if blank.search(wording)
    }
    assert bad == {}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(^|\s)-ngl\b", ("-ngl",)),
        (r"CUDA_VISIBLE_DEVICES\W+0\W*($|\()", ("CUDA_VISIBLE_DEVICES 0[(]",)),
    ],
)
def test_an_anchor_beside_a_character_makes_it_optional(
    pattern: str, expected: tuple[str, ...]
) -> None:
    assert wordings(pattern) == expected
