"""The shape of ids (cases, questions, hypotheses, evidence).

Ids appear in file names, DOT graphs, one-line listings and JSON keys, and ``/`` is reserved for
derived ids such as ``<question>/catch-all``: a plain id keeps all of them unambiguous.
"""

from __future__ import annotations

import re

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


def is_plain_id(value: str, limit: int = 100) -> bool:
    return bool(ID_PATTERN.match(value)) and len(value) <= limit
