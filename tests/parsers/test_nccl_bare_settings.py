"""A setting NCCL read from the environment, quoted without the log's prefix, still counts.

Maintainers often quote the one line that explains a slowdown ("NCCL_P2P_LEVEL set by
environment to LOC"), without the ``host:pid:tid [dev] NCCL INFO`` that precedes it in a log.
"""

from __future__ import annotations

import pytest
from casefile_probes.nccl_debug import parse_nccl_debug


@pytest.mark.parametrize(
    "text",
    [
        "NCCL_P2P_LEVEL set by environment to LOC\n",
        "  NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n",
        "> NCCL_P2P_LEVEL set by environment to LOC\n",
    ],
)
def test_a_quoted_setting_is_read(text: str) -> None:
    result = parse_nccl_debug(text)
    assert result.parsed, result.problems
    assert result.values("nccl.env.NCCL_P2P_LEVEL") == {"host": "LOC"}
    assert result.values("nccl.log.hosts") == {"host": 0}


def test_prose_mentioning_a_variable_is_not_a_setting() -> None:
    result = parse_nccl_debug("I tried NCCL_P2P_LEVEL=LOC and it was slower\n")
    assert not result.parsed
