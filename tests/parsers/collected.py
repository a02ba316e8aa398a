"""Fixtures for the PCIe-path, IOMMU/NUMA and nvidia-smi section parsers, from public bug reports.

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

from tests.parsers.corpus import Parser, regenerate

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


if __name__ == "__main__":
    regenerate(COLLECTED)
