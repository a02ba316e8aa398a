"""gpu-throughput@3's numbers that are counted from the prior sample (``cases/_build/
count_priors.py``) are the count: a development case added later leaves the sample, and the
playbook must be recounted, never left with a count that scored it on its own thread."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "cases" / "_build"


@pytest.fixture(scope="module")
def count_priors() -> ModuleType:
    spec = importlib.util.spec_from_file_location("count_priors", BUILD / "count_priors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("count_priors", module)
    spec.loader.exec_module(module)
    return module


def test_no_development_case_and_no_held_out_thread_is_counted(count_priors: ModuleType) -> None:
    counted = count_priors.sample()
    dev = {
        json.loads(p.read_text(encoding="utf-8"))["url"].rstrip("/")
        for p in (ROOT / "cases" / "dev" / "material").glob("*.json")
    }
    assert dev, "no development material found"
    assert not {url for url, _ in counted} & dev
    assert not [u for u, _ in counted if any(u.endswith(h) for h in count_priors.HELD_OUT)]


def test_the_priors_are_the_count(count_priors: ModuleType) -> None:
    counts, _ = count_priors.count()
    expected = {k: count_priors.floor4(v) for k, v in count_priors.priors(counts).items()}
    written = {h.id: h.prior for h in PLAYBOOK_V3.hypotheses}
    assert written == expected


def test_the_gpu_count_rows_are_counted_where_no_requirement_decides(
    count_priors: ModuleType,
) -> None:
    """Each cause that can occur on one GPU weighs "one" and "several" as often as the sample
    reports it on one GPU and on several; the inter-GPU causes keep their requirement's row."""
    question = PLAYBOOK_V3.intake_question("gpu-count")
    table = question.rule.likelihoods
    rows = count_priors.gpu_count_rows(count_priors.sample())
    for leaf, several in rows.items():
        row = question.rule.otherwise if leaf == "otherwise" else table[leaf]
        assert row["several"] == several, leaf
        assert abs(row["one"] + row["several"] - 1.0) < 1e-9, leaf
    for leaf in count_priors.NEEDS_SEVERAL:
        assert leaf not in rows
    # a GPU left unused is reported mostly on one GPU, a misconfigured launcher on several
    assert table["gpu-unused"]["one"] > 0.5 > table["misconfiguration"]["one"]


def test_a_thread_the_sample_calls_the_same_incident_as_a_development_case_is_left_out(
    count_priors: ModuleType,
) -> None:
    """vllm#13247 is "Same incident as vllm#9113" in the notes; #9113 is a development case, so
    counting #13247 would score that case on its own incident."""
    notes = (ROOT / "cases" / "dev" / "notes-new-cases-a.md").read_text(encoding="utf-8")
    twins = count_priors.same_incidents(notes)
    assert twins["https://github.com/vllm-project/vllm/issues/13247"] == "/vllm/issues/9113"
    counted = {url for url, _ in count_priors.sample()}
    assert "https://github.com/vllm-project/vllm/issues/13247" not in counted
    _, left_out = count_priors.count()
    assert "https://github.com/vllm-project/vllm/issues/13247" in left_out


def test_a_project_s_tracker_counts_once_per_class(count_priors: ModuleType) -> None:
    """Four Ollama reports of a GPU left unused are one thread of the sample, not four: several
    reports of one class on one tracker are mostly one defect met again, or one search's
    harvest. Another class on the same tracker still counts."""
    counted = count_priors.sample()
    pairs = [(count_priors.project_of(url), klass) for url, klass in counted]
    assert len(pairs) == len(set(pairs))
    ollama = [url for url, klass in counted if "/ollama/ollama/" in url]
    assert ollama == ["https://github.com/ollama/ollama/issues/9885"]
    merged = count_priors.merged()
    assert "https://github.com/ollama/ollama/issues/9068" in merged
    nccl = {klass for url, klass in counted if "/NVIDIA/nccl/" in url}
    assert {"internode-network", "misconfiguration"} <= nccl
    assert count_priors.project_of("https://github.com/NVIDIA/nccl/issues/1580") == "NVIDIA/nccl"


def test_every_class_of_the_playbook_is_read_from_the_tables(count_priors: ModuleType) -> None:
    """A class whose name holds a digit (p2p-policy, consumer-no-p2p) is a row like any other:
    the sample's own threads of those classes count, and its held-out ones are left out."""
    counted = dict(count_priors.sample())
    assert counted["https://github.com/NVIDIA/nccl/issues/1272"] == "p2p-policy"
    assert counted["https://github.com/sgl-project/sglang/issues/4723"] == "consumer-no-p2p"
    _, left_out = count_priors.count()
    assert "https://github.com/NVIDIA/nccl/issues/428" in left_out  # held out, p2p-policy
    row = "| https://github.com/x/y/issues/1 | symptom | p2p-policy | cause |"
    assert count_priors.sample_rows(row) == [("https://github.com/x/y/issues/1", "p2p-policy")]


def test_version_2_rows_count_in_the_version_3_leaf_their_cause_names(
    count_priors: ModuleType,
) -> None:
    """PRIOR_SAMPLE.md classed its rows before version 3 split host-side and misconfiguration:
    an OMP oversubscription counts as CPU-bound host code, a starved data loader as data
    loading, a model split over too many GPUs as over-split."""
    counted = dict(count_priors.sample())
    assert counted["https://github.com/pytorch/torchtitan/issues/4038"] == "host-cpu"
    assert counted["https://github.com/open-mmlab/mmpretrain/issues/350"] == "data-loading"
    assert counted["https://github.com/vllm-project/vllm/issues/689"] == "over-split"
    # a row whose class is not the one the table expects keeps it
    assert count_priors.refined(
        [("https://github.com/pytorch/torchtitan/issues/4038", "other")]
    ) == [("https://github.com/pytorch/torchtitan/issues/4038", "other")]
    for url, (v2, v3, words) in count_priors.REFINED.items():
        assert v3 in count_priors.LEAVES and v2 != v3 and words, url


#: where the repository names the public threads it learned from: parser samples' sources,
#: the development set's sources and material, and the collectors' notes (which name the
#: held-out threads only to say they were left out)
_SOURCE_FILES = ("tests/golden/**/SOURCES", "cases/dev/SOURCES.md", "cases/dev/material/*.json")


def _thread(url: str) -> str:
    """``owner/repo/issues/N`` (or ``pull/N``) of a GitHub link, without anchors or paths below."""
    parts = url.split("github.com/", 1)[-1].split("#")[0].split("/")
    return "/".join(parts[:4])


def test_no_sample_or_development_case_comes_from_a_held_out_thread(
    count_priors: ModuleType,
) -> None:
    """The held-out threads are the team's evaluation: no parser sample, development case or
    material may come from one (three samples once did, collected before the list was kept)."""
    held_out = set(count_priors.HELD_OUT)
    found = []
    for pattern in _SOURCE_FILES:
        for path in sorted(ROOT.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            for url in set(re.findall(r"https://github\.com/[^\s|)\"'>\]]+", text)):
                if _thread(url) in held_out:
                    found.append(f"{path.relative_to(ROOT)}: {url}")
    assert not found
