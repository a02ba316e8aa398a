"""Fixtures for the PCIe-path, IOMMU/NUMA and nvidia-smi section parsers (issue 11, items 3-5).

Each ``tests/golden/<folder>/<stem>.txt`` is an output as someone posted it in a public bug
report (copied exactly; the thread is named in the folder's ``SOURCES`` file, with what is odd
about the sample) and ``<stem>.json`` the result, checked by hand against the text.

    .venv/bin/python tests/parsers/collected.py      # rewrite these goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.iommu_dmesg import parse_iommu_dmesg
from casefile_probes.kernel_cmdline import parse_cmdline
from casefile_probes.lspci import parse_lspci
from casefile_probes.lspci_tree import parse_lspci_tree
from casefile_probes.numa import parse_numa
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table

from tests.parsers.corpus import GOLDEN, Parser, facts_as_json, read_sample

#: Fixture folders under tests/golden and the parser each one is read with.
COLLECTED: dict[str, Parser] = {
    "lspci-acs": parse_lspci,
    "lspci-fragment": parse_lspci,
    "lspci-tree": parse_lspci_tree,
    "cmdline": parse_cmdline,
    "iommu-dmesg": parse_iommu_dmesg,
    "numa": parse_numa,
    "smi-q-sections": parse_smi_q,
    "smi-table-fragment": parse_smi_table,
}


def collected_files(folder: str) -> list[Path]:
    """The samples of one fixture folder, in name order."""
    return sorted((GOLDEN / folder).glob("*.txt"))


def sources(folder: str) -> dict[str, str]:
    """File name -> source address, from the folder's tab-separated ``SOURCES`` file."""
    found: dict[str, str] = {}
    for line in (GOLDEN / folder / "SOURCES").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, url, *_ = line.split("\t")
        found[name] = url
    return found


def _regenerate() -> None:
    from tests.parsers.regen_golden import _dump_other

    for folder, parse in COLLECTED.items():
        for sample in collected_files(folder):
            target = GOLDEN / folder / f"{sample.stem}.json"
            text = _dump_other(facts_as_json(parse(read_sample(sample))))
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
                print(f"changed {target}")


if __name__ == "__main__":
    _regenerate()
