"""Change wordings read by the rule of their mechanism only where the words give the way
round: 16-bit weights set or turned on, two releases compared in words, a job moved onto one
of its GPUs, loader workers under a common misspelling (change 172)."""

from __future__ import annotations

import pytest

from tests.triage.test_wording_breadth import _reading


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("converted the model to fp16", "weight-bytes"),
        ("dtype=torch.bfloat16", "weight-bytes"),
        ("fp32 -> fp16", "weight-bytes"),
        ("v1.4.2 is twice as slow as v1.3.0", "version"),
        ("tokens/s in v0.9 compared to v0.8.5", "version"),
        ("ran it on only one of them", "fewer-gpus"),
        ("num_works=8", "data-pipeline"),
    ],
)
def test_a_change_written_with_its_direction_is_read(change: str, rule: str) -> None:
    assert _reading(change) == (rule, False)


@pytest.mark.parametrize(
    "change",
    [
        # 16-bit weights named with no way round: after a 4-bit run it is more bytes, not fewer
        "i tried it with the fp16 model too",
        "fp16 -> fp32",
        "use fp16 instead of fp32 accumulation",
        # a ratio is no release ("1.5 times slower than 2.0 of the old box")
        "1.5 times slower than 2.0 seconds",
    ],
)
def test_a_change_that_does_not_say_which_way_is_not_read_by_them(change: str) -> None:
    assert _reading(change)[0] not in ("weight-bytes", "version")
