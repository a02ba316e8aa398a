"""A change is read by the rule of its mechanism only where its words give the way round; a
widening that reads more wordings but some of them backwards is worse than none (change 172:
16-bit weights, two releases compared in words and "just one of them" were widened, then taken
back when a review found them reading moves to more bytes as fewer, model releases as software
ones and disks or threads as GPUs). What was kept: ``num_works``, a common misspelling of
``num_workers``, counted as the workers it means."""

from __future__ import annotations

import pytest

from tests.triage.test_wording_breadth import _reading


@pytest.mark.parametrize(
    ("change", "reading"),
    [
        ("num_works=8", ("data-pipeline", False)),
        ("num_works 2 -> 8", ("data-pipeline", False)),
        # fewer workers, as num_workers 8 -> 2 reads
        ("num_works 8 -> 2", ("data-pipeline", True)),
        ("num_works=0", ("data-pipeline", True)),
        ("尝试过把num_works改成24", ("data-pipeline", False)),
        # num_workers beside Chinese text, where \b does not hold, was unread
        ("尝试过把num_workers改成24", ("data-pipeline", False)),
    ],
)
def test_num_works_reads_as_the_loader_workers_it_means(
    change: str, reading: tuple[str, bool]
) -> None:
    assert _reading(change) == reading
    assert _reading(change.replace("num_works", "num_workers")) == reading


@pytest.mark.parametrize(
    ("change", "not_by"),
    [
        ("the enum works now", "data-pipeline"),
        # 16-bit weights named with no way round, or from a smaller format, or the same width
        ("i tried it with the fp16 model too", "weight-bytes"),
        ("fp16 -> fp32", "weight-bytes"),
        ("bf16 -> fp16", "weight-bytes"),
        ("--mixed_precision=fp16", "weight-bytes"),
        # a model's or a standard's releases, not the software's
        ("SD v1.5 is faster than v2.1", "version"),
        ("PCIe v4.0 is slower than v3.0", "version"),
        # disks, threads and containers are not GPUs
        ("two NVMe SSDs, using only one of them", "fewer-gpus"),
        ("16 CPU threads vs using just one of them", "fewer-gpus"),
    ],
)
def test_a_change_whose_words_do_not_give_a_mechanism_is_not_read_for_it(
    change: str, not_by: str
) -> None:
    assert _reading(change)[0] != not_by
