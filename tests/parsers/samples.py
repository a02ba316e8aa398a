"""Every real sample the parser tests hold, with the probes whose output each is.

The samples are the shared corpus (``../shared/corpus/<folder>/``) and the ones kept beside
their golden results (``tests/golden/<folder>/…/<stem>.txt``); a folder is one tool's output,
so its name says which probe reads it. A folder no probe here names (one added for a probe
being written now) is taken to be the probe of that name, once such a probe is installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .corpus import CORPUS, GOLDEN

#: The probes whose output each folder holds (both probes that share a parser, where two do).
FOLDER_PROBES: dict[str, tuple[str, ...]] = {
    "bandwidth": ("cuda-bandwidth",),
    "cmdline": ("kernel-cmdline",),
    "dmon": ("nvidia-smi-dmon",),
    "iommu-dmesg": ("iommu-dmesg",),
    "lspci": ("lspci",),
    "lspci-acs": ("lspci",),
    "lspci-fragment": ("lspci",),
    "lspci-tree": ("lspci-tree",),
    "nccl": ("nccl-tests",),
    "nccl-debug": ("nccl-debug",),
    "numa": ("numactl", "lscpu"),
    "nvbandwidth": ("nvbandwidth",),
    "p2p": ("cuda-p2p-bandwidth",),
    "pmon": ("nvidia-smi-pmon",),
    "query-csv": ("nvidia-smi-query",),
    "smi-q": ("nvidia-smi-q", "nvidia-smi-q-perf"),
    "smi-q-sections": ("nvidia-smi-q", "nvidia-smi-q-perf"),
    "smi-table": ("nvidia-smi",),
    "smi-table-fragment": ("nvidia-smi",),
    "topo": ("nvidia-smi-topo",),
}

#: Samples of a folder that are another tool's output: the corpus's bandwidth/ folder holds
#: nvbandwidth pastes beside bandwidthTest's (its MANIFEST says which); a torch one-liner's
#: paste holds lines other probes read too.
SAMPLE_PROBES: dict[str, tuple[str, ...]] = {
    "bandwidth/001": ("nvbandwidth",),
    "bandwidth/005": ("nvbandwidth",),
    "bandwidth/006": ("nvbandwidth",),
    # a torch check names torch.cuda.is_available(), a line the application log reads too;
    # 002 quotes nvidia-smi's header line besides
    "torch-env/one-liners/001": ("torch-env", "app-log"),
    "torch-env/one-liners/002": ("torch-env", "app-log", "nvidia-smi"),
    "torch-env/one-liners/003": ("torch-env", "app-log"),
}


@dataclass(frozen=True)
class Sample:
    path: Path
    #: ``folder/stem``, or ``folder/sub/stem`` for a sample in a folder's sub-folder
    key: str
    folder: str
    owners: tuple[str, ...]

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8", errors="replace")

    def golden(self) -> Path:
        """Where the sample's expected result is kept."""
        return GOLDEN / f"{self.key}.json"


def _sample(path: Path, root: Path) -> Sample:
    key = path.relative_to(root).with_suffix("").as_posix()
    folder = key.split("/", 1)[0]
    owners = SAMPLE_PROBES.get(key) or FOLDER_PROBES.get(folder) or (folder,)
    return Sample(path, key, folder, owners)


def all_samples() -> list[Sample]:
    """Every sample, corpus first, in name order."""
    found = [_sample(p, CORPUS) for p in sorted(CORPUS.glob("*/*.txt"))]
    found += [_sample(p, GOLDEN) for p in sorted(GOLDEN.rglob("*.txt"))]
    return found
