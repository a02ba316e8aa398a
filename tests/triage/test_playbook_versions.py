"""Playbook versions side by side, and tables that do not validate refused by name."""

from __future__ import annotations

import json

import pytest
from casefile_gpu_playbook import PLAYBOOK_V1, PLAYBOOK_V2

from casefile.domain.playbook import load_playbook
from casefile.errors import PluginError, RuleError
from casefile.plugins import Registry
from tests.cli.conftest import CLI

HEAD = """
[playbook]
id = "p"
version = 3
[question]
id = "q"
text = "why?"
[[hypothesis]]
id = "a"
text = "a"
prior = 0.5
"""


def test_the_registry_keeps_every_version() -> None:
    registry = Registry.of(playbooks=[PLAYBOOK_V2, PLAYBOOK_V1])
    assert registry.playbook("gpu-throughput") is PLAYBOOK_V2
    assert registry.playbook("gpu-throughput@1") is PLAYBOOK_V1
    assert registry.playbook("gpu-throughput@2") is PLAYBOOK_V2
    assert [p.ref for p in registry.all_playbook_versions()] == [
        "gpu-throughput@1",
        "gpu-throughput@2",
    ]
    with pytest.raises(PluginError, match="no playbook 'gpu-throughput@9'"):
        registry.playbook("gpu-throughput@9")


def test_a_case_keeps_the_version_it_was_opened_from(cli: CLI, tmp_path: object) -> None:
    """A v1 case reads a run with v1's rules only, though v2 and v3 (same rule ids) are
    installed."""
    assert cli("new", "old", "--id", "o1", "--playbook", "gpu-throughput@1").code == 0
    assert cli("new", "new", "--id", "n1", "--playbook", "gpu-throughput").code == 0
    from pathlib import Path

    paste = Path(str(tmp_path)) / "q.csv"
    paste.write_text("utilization.gpu [%], utilization.memory [%]\n100 %, 50 %\n")
    for case in ("o1", "n1"):
        result = cli(
            "probe", case, "nvidia-smi-query", "--paste", str(paste), "--load", "under-load",
            "--", "nvidia-smi", "--query-gpu=utilization.gpu,utilization.memory", "--format=csv",
        )  # fmt: skip
        assert result.code == 0, result.err
    versions = {}
    for case in ("o1", "n1"):
        events = json.loads(cli("log", case, "--json").out)
        question = next(e for e in events if e["type"] == "question.proposed")
        rules = {
            e["payload"]["rule"]["id"]: e["payload"]["rule"]["version"]
            for e in events
            if e["type"] == "evidence.assessed"
        }
        versions[case] = (question["payload"]["playbook"], rules)
    assert versions["o1"] == ("gpu-throughput@1", {"sm-busy": 1, "memory-bandwidth-share": 1})
    assert versions["n1"] == ("gpu-throughput@3", {"sm-busy": 3, "memory-bandwidth-share": 2})


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            '[[intake]]\nid = "i"\nversion = 1\ntext = "?"\nanswers = ["yes"]\nrationale = "r"\n'
            "[intake.likelihoods]\notherwise = { yes = 1.0 }\n",
            "intake i: 'answers' must list at least two",
        ),
        (
            '[[intake]]\nid = "i"\nversion = 1\ntext = "?"\nanswers = ["yes", "no"]\n'
            'rationale = "r"\n[intake.likelihoods]\nb = { yes = 0.5, no = 0.5 }\n'
            "otherwise = { yes = 0.5, no = 0.5 }\n",
            "intake i: likelihoods name unknown hypotheses ['b']",
        ),
        (
            '[[intake]]\nid = "i"\nversion = 1\ntext = "?"\nanswers = ["yes", "no"]\n'
            'rationale = "r"\n[intake.likelihoods]\notherwise = { yes = 0.7, no = 0.5 }\n',
            "rule intake.i: likelihoods[otherwise]: probabilities sum to 1.2",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = "A=1"\nprobes = ["nccl-tests"]\n'
            'metric = "m"\nnoise = 1.5\nnoise_why = "w"\nrationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: 'noise' must be a fraction",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = "A=1"\nprobes = ["nccl-tests"]\n'
            'metric = "m"\nnoise = 0.05\nrationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: 'noise_why' must justify the noise margin",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = "("\nprobes = ["nccl-tests"]\n'
            'metric = "m"\nnoise = 0.05\nnoise_why = "w"\nrationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: 'change' is not a valid pattern",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = "A=1"\nunless = "("\n'
            'probes = ["nccl-tests"]\nmetric = "m"\nnoise = 0.05\nnoise_why = "w"\n'
            'rationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: 'unless' is not a valid pattern",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = ""\nprobes = ["nccl-tests"]\n'
            'metric = "m"\nnoise = 0.05\nnoise_why = "w"\nrationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: 'change' must be a pattern over the stated change",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = "A=1"\nunless = 3\n'
            'probes = ["nccl-tests"]\nmetric = "m"\nnoise = 0.05\nnoise_why = "w"\n'
            'rationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: 'unless' must be a pattern over the stated change",
        ),
        (
            '[[experiment]]\nid = "x"\nversion = 1\nchange = "A=1"\nunless = "B"\n'
            'examples = ["A=1 and B"]\nprobes = ["nccl-tests"]\nmetric = "m"\nnoise = 0.05\n'
            'noise_why = "w"\nrationale = "r"\n'
            "[experiment.likelihoods]\notherwise = { faster = 0.2, same = 0.6, slower = 0.2 }\n",
            "experiment x: example 'A=1 and B' is not a change its 'change' reads",
        ),
        (
            '[[expected_rate]]\ngpu = "A100"\npath = "p"\nbusbw = -1\nsource = "s"\n',
            "expected_rate 'A100': 'busbw' must be a positive number",
        ),
    ],
)
def test_a_table_that_does_not_validate_is_refused_naming_it(table: str, message: str) -> None:
    with pytest.raises(RuleError) as raised:
        load_playbook(HEAD + table, "p.toml")
    assert message in str(raised.value)
