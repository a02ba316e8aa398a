"""Recount the ``gpu-throughput@3`` priors from the listed prior sample.

The sample is every thread listed with a class in ``cases/dev/PRIOR_SAMPLE.md`` (its counted
table and its diagnosis-only table, as version 2 used them; a row classed before version 3
refined its class counts in the leaf its stated cause names, :data:`REFINED`) and in the
"Prior-sample candidates" tables of ``cases/dev/notes-new-cases-*.md`` (confirmed causes
only), less two groups: the threads held out for evaluation by the team (never counted, never
read), and the threads that are development cases (``cases/dev/material/*.json``), so the
playbook is never scored on threads that set its priors; and a project's tracker counts once
per class (:func:`project_of`). Each leaf gets (count + 1) / (N + leaves) of the 0.9 the named
hypotheses share; a parent's prior is its children's sum, a child's its share.

    python cases/_build/count_priors.py          # prints the counts and the priors
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "cases" / "dev"
HELD_OUT = (
    "NVIDIA/nccl/issues/428", "NVIDIA/nccl/issues/841", "NVIDIA/nccl/issues/1285",
    "NVIDIA/nccl/issues/1298", "NVIDIA/nccl/issues/1309", "pytorch/pytorch/issues/127077",
    "huggingface/transformers/issues/30840", "huggingface/accelerate/issues/2784",
    "vllm-project/vllm/issues/4238", "vllm-project/vllm/issues/5007",
    "aikitoria/open-gpu-kernel-modules/issues/6", "tensorflow/tensorflow/issues/40042",
    "facebookresearch/sam2/issues/768", "facebookresearch/sam2/pull/775",
    "ggml-org/llama.cpp/issues/4747", "ggml-org/llama.cpp/issues/2641",
    "open-edge-platform/geti/pull/5958", "NVIDIA/nvidia-settings/issues/67",
    "intel/thermal_daemon/issues/300",
)  # fmt: skip
#: the leaves of gpu-throughput@3 (a parent's own "other mechanism" leaf under its own id)
LEAVES = (
    "pcie-bandwidth", "link-degraded", "host-transfer", "acs-iommu", "consumer-no-p2p",
    "p2p-policy", "transport-fallback", "internode-network", "upgrade-regression",
    "misconfiguration", "gpu-unused", "over-split", "host-side", "data-loading", "host-cpu",
    "numa-bios", "compute-launch", "memory-bandwidth", "power-cap", "thermal-degradation",
)  # fmt: skip
PARENTS = {
    "pcie-bound": ("pcie-bandwidth", "link-degraded", "host-transfer"),
    "p2p-lost": ("acs-iommu", "consumer-no-p2p"),
    "library-path": ("p2p-policy", "transport-fallback"),
    "power-thermal": ("power-cap", "thermal-degradation"),
    "misconfiguration": ("misconfiguration", "gpu-unused", "over-split"),
    "host-side": ("host-side", "data-loading", "host-cpu"),
}
NAMED_SHARE = 0.9
#: leaves that need several GPUs (their own ``requires`` or a parent's): their gpu-count row
#: is structural (the requirement), not counted
NEEDS_SEVERAL = (
    "pcie-bandwidth", "acs-iommu", "consumer-no-p2p", "p2p-policy", "transport-fallback",
    "internode-network", "over-split",
)  # fmt: skip
_ROW = re.compile(r"^\|[^|]*?(https://github\.com/[^\s|]+)[^|]*\|[^|]*\|\s*([a-z0-9-]+)\s*\|")
_ROW_NUMBERED = re.compile(
    r"^\|\s*\d+\s*\|\s*(https://github\.com/[^\s|]+)\s*\|[^|]*\|\s*([a-z0-9-]+)\s*\|"
)


#: PRIOR_SAMPLE.md's rows were classed on version 2, before version 3 refined host-side (into
#: data loading and CPU-bound host code) and misconfiguration (a GPU left unused, a model split
#: over more GPUs than it needs). Each such row counts in the version-3 leaf its own "stated
#: root cause" names, read against version 3's hypothesis texts: url -> (version-2 class,
#: version-3 leaf, the words it rests on). A row whose class differs from the one named here
#: keeps its class (the table was edited: look again).
REFINED: dict[str, tuple[str, str, str]] = {
    "https://github.com/open-mmlab/mmpretrain/issues/350": (
        "host-side", "data-loading", "the data loader cannot keep up with the GPUs"),
    "https://github.com/pytorch/examples/issues/387": (
        "host-side", "data-loading", "too few CPUs for the data-loader workers"),
    "https://github.com/Alpha-VLLM/Lumina-DiMOO/issues/22": (
        "host-side", "host-cpu", "the image tokenizer ran on the CPU"),
    "https://github.com/pytorch/torchtitan/issues/4038": (
        "host-side", "host-cpu", "OMP_NUM_THREADS unset: co-located processes oversubscribe"),
    "https://github.com/NVIDIA-NeMo/Speech/issues/8141": (
        "host-side", "host-cpu", "OMP_NUM_THREADS ignored: the CPU is oversubscribed"),
    "https://github.com/vllm-project/vllm/issues/689": (
        "misconfiguration", "over-split", "communication costs more than the compute saved"),
    "https://github.com/vllm-project/vllm/issues/1873": (
        "misconfiguration", "over-split", "the same: TP=4 for a 13B model"),
}  # fmt: skip


def refined(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``rows`` with each version-2 class :data:`REFINED` names replaced by its version-3 leaf."""
    out = []
    for url, klass in rows:
        v2, v3, _ = REFINED.get(url, (klass, klass, ""))
        out.append((url, v3 if klass == v2 else klass))
    return out


def sample_rows(text: str, *, skip_after: str | None = None) -> list[tuple[str, str]]:
    """(url, class) of every table row naming a thread and a class."""
    if skip_after is not None and skip_after in text:
        text = text.split(skip_after, 1)[0]
    rows = []
    for line in text.splitlines():
        match = _ROW_NUMBERED.match(line) or _ROW.match(line)
        if match:
            rows.append((match.group(1).rstrip("/"), match.group(2)))
    return rows


#: a row that says its thread is "Same incident as vllm#9113": the sample counts an incident
#: once (PRIOR_SAMPLE.md, "How the sample was drawn"), so it goes where that thread goes
_SAME_INCIDENT = re.compile(r"[Ss]ame incident as ([A-Za-z0-9_.-]+)#([0-9]+)")


def same_incidents(text: str) -> dict[str, str]:
    """Per row naming a thread, the thread it says it is the same incident as
    (``repo/issues/N``, to match against full URLs by their ending)."""
    out = {}
    for line in text.splitlines():
        match = _ROW_NUMBERED.match(line) or _ROW.match(line)
        same = _SAME_INCIDENT.search(line)
        if match and same:
            out[match.group(1).rstrip("/")] = f"/{same.group(1)}/issues/{same.group(2)}"
    return out


def _rows() -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """The sample's rows (url, class) counted; the urls left out: held out, a development
    case, or the same incident as a thread that is either; and the urls merged into an earlier
    thread of the same project and class (see :func:`project_of`)."""
    dev_urls = {
        json.loads(p.read_text(encoding="utf-8"))["url"].rstrip("/")
        for p in (DEV / "material").glob("*.json")
    }
    text = (DEV / "PRIOR_SAMPLE.md").read_text(encoding="utf-8")
    rows, same = refined(sample_rows(text)), same_incidents(text)
    for notes in sorted(DEV.glob("notes-new-cases-*.md")):
        text = notes.read_text(encoding="utf-8")
        if "## Prior-sample candidates" in text:
            part = text.split("## Prior-sample candidates", 1)[1]
            rows += sample_rows(part, skip_after="Diagnosis only")
            same |= same_incidents(part.split("Diagnosis only", 1)[0])

    def out_of_sample(url: str) -> bool:
        return any(url.endswith(h) for h in HELD_OUT) or url in dev_urls

    seen: set[str] = set()
    counted, left_out, merged = [], [], []
    projects: set[tuple[str, str]] = set()
    for url, klass in rows:
        if url in seen:
            continue
        seen.add(url)
        twin = same.get(url)
        if out_of_sample(url) or (twin and any(out_of_sample(u) for u in _ending(twin, dev_urls))):
            left_out.append(url)
        elif klass in LEAVES and (project_of(url), klass) in projects:
            merged.append(url)
        elif klass in LEAVES:
            projects.add((project_of(url), klass))
            counted.append((url, klass))
    return counted, left_out, merged


def project_of(url: str) -> str:
    """The project whose tracker a thread is on (``owner/name``).

    A project's tracker counts once per class: the sample estimates how often a cause limits
    throughput across setups, and several reports of one class on one tracker are mostly one
    defect met again by other users (four Ollama packaging reports of a GPU left unused) or the
    harvest of one search aimed at that tracker (the NCCL trackers' network threads), not
    independent occurrences. The first thread listed stands for them."""
    return "/".join(url.split("/")[3:5])


def merged() -> list[str]:
    """The threads merged into an earlier one of the same project and class."""
    return _rows()[2]


def _ending(tail: str, dev_urls: set[str]) -> list[str]:
    """The full URLs a ``/repo/issues/N`` reference may be: a development case's, else a
    held-out thread's spelled out."""
    found = [u for u in dev_urls if u.endswith(tail)]
    held = [f"https://github.com/{h}" for h in HELD_OUT if h.endswith(tail.lstrip("/"))]
    return found or held


def gpus_stated() -> dict[str, str]:
    """The GPU count of the slow job per thread, where the sample can say it without having
    selected on it: the notes' candidate tables (threads met in searches for a class) state it
    in their "GPUs" column ("single", "multi", "multi (2)", "single/multi", "not stated").
    PRIOR_SAMPLE.md's rows are left out of this: that sample was drawn from multi-GPU
    slowdowns only, so every class in it would read "several" because of how it was drawn."""
    stated: dict[str, str] = {}
    for notes in sorted(DEV.glob("notes-new-cases-*.md")):
        text = _read(notes)
        if "## Prior-sample candidates" not in text:
            continue
        part = text.split("## Prior-sample candidates", 1)[1].split("Diagnosis only", 1)[0]
        for line in part.splitlines():
            match = _ROW.match(line)
            if match:
                stated[match.group(1).rstrip("/")] = line.strip().strip("|").split("|")[-1].strip()
    return stated


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def gpu_count_tally(counted: list[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """Per leaf, (single, multi): the threads whose slow job used one GPU and several. A thread
    that states both ("single/multi", "single and multi") counts half to each; one that states
    neither is left out of this tally (it still counts for the priors)."""
    stated = gpus_stated()
    tally = {leaf: (0.0, 0.0) for leaf in LEAVES}
    for url, klass in counted:
        words = stated.get(url, "").lower()
        single, multi = "single" in words, "multi" in words
        if not (single or multi):
            continue
        one, several = tally[klass]
        share = 0.5 if single and multi else 1.0
        tally[klass] = (one + share * single, several + share * multi)
    return tally


def gpu_count_rows(counted: list[tuple[str, str]]) -> dict[str, float]:
    """P(several GPUs | leaf) for the gpu-count intake question, counted with add-one
    smoothing toward even odds: (multi + 1) / (single + multi + 2). A leaf with no thread
    whose GPU count the sample states (and the catch-all, ``otherwise``) gets 0.5: the answer
    moves only the leaves the record sets apart. Leaves that need several GPUs keep their
    structural row (not given here)."""
    tally = gpu_count_tally(counted)
    rows = {
        leaf: _floor3((multi + 1) / (single + multi + 2))
        for leaf, (single, multi) in tally.items()
        if leaf not in NEEDS_SEVERAL
    }
    rows["otherwise"] = 0.5
    return rows


WORKLOAD_ANSWERS = ("training", "inference-small-batch", "inference-large-batch", "benchmark")


def workload_tally(counted: list[tuple[str, str]]) -> dict[str, list[float]]:
    """Per leaf, the counted threads per workload answer (an inference job of unstated batch
    counts half to each inference answer; a thread whose workload is not stated, none). Printed
    for the record only: the playbook's workload rows stay the mechanism's (rows counted from
    this sample were tried and not kept, EVALUATIONS.md evaluation 19: the sample's searches
    decide its workloads, four of gpu-unused's seven threads being Ollama chat reports)."""
    from prior_workloads import WORKLOADS

    tally = {leaf: [0.0] * len(WORKLOAD_ANSWERS) for leaf in LEAVES}
    for url, klass in counted:
        said = WORKLOADS.get(url)
        if said is None:
            continue
        whole = {WORKLOAD_ANSWERS.index(said): 1.0} if said != "inference" else {}
        shares = whole or {1: 0.5, 2: 0.5}
        for index, share in shares.items():
            tally[klass][index] += share
    return tally


def _floor3(value: float) -> float:
    return math.floor(value * 1000 + 1e-9) / 1000


def sample() -> list[tuple[str, str]]:
    """The threads counted: (url, class), each once, none held out or a development case."""
    return _rows()[0]


def count() -> tuple[dict[str, int], list[str]]:
    counted, left_out, _ = _rows()
    counts = dict.fromkeys(LEAVES, 0)
    for _, klass in counted:
        counts[klass] += 1
    return counts, left_out


def floor4(value: float) -> float:
    """A prior as the playbook writes it: four decimals, rounded down (so shares never sum
    past their whole)."""
    return math.floor(value * 10_000 + 1e-9) / 10_000


def priors(counts: dict[str, int]) -> dict[str, float]:
    total = sum(counts.values()) + len(LEAVES)
    leaf = {k: NAMED_SHARE * (v + 1) / total for k, v in counts.items()}
    out: dict[str, float] = {}
    for parent, children in PARENTS.items():
        mass = sum(leaf[c] for c in children)
        out[parent] = mass
        for child in children:
            if child != parent:
                out[child] = leaf[child] / mass
    for name, value in leaf.items():
        out.setdefault(name, value)
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    counts, left_out = count()
    print(
        f"N = {sum(counts.values())}; left out (held out or development cases): {len(left_out)}; "
        f"merged (same project and class): {len(merged())}"
    )
    for name, value in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {name:22} {value}")
    for name, value in priors(counts).items():
        print(f"{name:22} {floor4(value):.4f}")
    print("workload threads: " + " / ".join(WORKLOAD_ANSWERS))
    for name, row in workload_tally(sample()).items():
        print(f"  {name:22} {row}")
    tally = gpu_count_tally(sample())
    print("gpu-count: (single, multi) -> P(several)")
    for name, value in gpu_count_rows(sample()).items():
        print(f"  {name:22} {tally.get(name, ('', ''))} {value:.3f}")
