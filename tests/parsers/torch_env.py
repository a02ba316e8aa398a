"""Fixtures for the ``torch-env`` probe: PyTorch's environment report
(``python -m torch.utils.collect_env``) in ``tests/golden/torch-env/`` and the one-liner checks
(``python -c "import torch; print(torch.__version__) …"``, a script's prints and their output)
in ``tests/golden/torch-env/one-liners/``.

Each ``<stem>.txt`` is an output as someone posted it in a public thread (copied exactly; its
source is in the folder's ``SOURCES`` file, with what is odd about it) and ``<stem>.json`` the
result, checked by hand against the text.

    .venv/bin/python tests/parsers/torch_env.py      # rewrite these goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.torch_env import parse_torch_env

from tests.parsers.corpus import Parser, regenerate

#: The fixture folders under tests/golden and their parser: the reports, then the one-liners.
TORCH_ENV: dict[str, Parser] = {
    "torch-env": parse_torch_env,
    "torch-env/one-liners": parse_torch_env,
}


if __name__ == "__main__":
    regenerate(TORCH_ENV)
