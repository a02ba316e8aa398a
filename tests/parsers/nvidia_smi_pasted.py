"""nvidia-smi outputs pasted in public bug reports, kept beside the shared corpus they extend.

The shared corpus (``../shared/corpus/<folder>/``) is read-only here, so a newer real sample
of the same tool lives in this repository, in a sub-folder of that tool's golden folder:
``tests/golden/<folder>/issues/<stem>.txt`` is the output as posted (copied verbatim, the
thread named in the sub-folder's ``SOURCES`` file with what is odd about it) and
``<stem>.json`` the result, checked by hand against it. ``samples.py`` takes the folder (and so
the probes that own the sample) from the first part of the path.

    .venv/bin/python tests/parsers/nvidia_smi_pasted.py    # rewrite these goldens

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.dmon import parse_dmon
from casefile_probes.pmon import parse_pmon
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table
from casefile_probes.topo import parse_topo

from tests.parsers.corpus import Parser, regenerate

#: Fixture sub-folders under tests/golden and the parser each one is read with; a folder
#: named here without samples yet is skipped.
PASTED_SMI: dict[str, Parser] = {
    "smi-table/issues": parse_smi_table,
    "smi-q/issues": parse_smi_q,
    "topo/issues": parse_topo,
    "dmon/issues": parse_dmon,
    "pmon/issues": parse_pmon,
    "query-csv/issues": parse_query_gpu,
}


if __name__ == "__main__":
    regenerate(PASTED_SMI)
