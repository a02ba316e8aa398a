"""GPU-side ``record_function`` annotations in a PyTorch profiler table (found by a review).

Since PyTorch 2.0 a ``record_function`` range is listed twice: on the host, and on the device
with no host time and the span of the kernels it wrapped as its self device time. Before
pytorch/pytorch#130730 (PyTorch 2.4 and older) the footer's ``Self CUDA time total`` and the
``Self CUDA %`` column added those spans to the kernels' time. The parser took that footer for
kernel time and the annotation rows for device activity: on the LCNN-pytorch README (golden
019) ``profiler.gpu_over_cpu`` was 1.4325 where its kernels and copies give 0.4788, and
``gpu.memcpy_share`` 0.0467 where its copy is 1.777 ms of 12.726 ms (0.1396); the top op was
the ``LookupConv2d`` annotation. Tables marked hand-made below are made up, laid out as
``key_averages().table()`` lays them out, and say so.
"""

from __future__ import annotations

from pathlib import Path

from casefile_probes._profiler_rows import Row
from casefile_probes.torch_profiler import parse_torch_profiler

from .corpus import check_result, read_sample
from .test_profilers_hand import FOOTER, ROWS, _row, _table

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "torch-profiler"


def _read(text: str) -> tuple[dict[str, object], list[str]]:
    result = parse_torch_profiler(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}, result.problems


def test_an_old_footer_that_counts_annotations_is_read_without_them() -> None:
    """019, LCNN-pytorch's README (verbatim): the footer's 38.076 ms holds the ``LookupConv2d``
    (22.063 ms) and ``Conv2d`` (3.287 ms) annotations, rows without host time named as rows
    with host time; the rows without host time sum to 99.08 % of it, so it holds them."""
    facts, problems = _read(read_sample(GOLDEN / "019.txt"))
    assert facts["profiler.cuda_time_total_s"] == 0.012726  # 38.076 - 22.063 - 3.287 ms
    assert facts["profiler.gpu_over_cpu"] == 0.4788  # 12.726 / 26.581 ms, not 1.4325
    assert facts["gpu.memcpy_share"] == 0.1396  # 1.777 / 12.726 ms, not 0.0467
    assert facts["profiler.top_op"] not in {"LookupConv2d", "Conv2d"}
    # the kernel and copy rows hold 32.50 % of 33.42 %: 0.352 ms of kernels is not shown
    assert "gpu.nccl_share" not in facts
    assert any("GPU-side annotations (Conv2d, LookupConv2d)" in p for p in problems)


def test_a_new_footer_without_annotations_is_read_as_it_is() -> None:
    """014 (Lightning, PyTorch 2.5+): ``ProfilerStep*`` at 416.90 % of the footer cannot be
    inside it, so the footer is the kernels' alone; the annotation is not the top op."""
    facts, problems = _read(read_sample(GOLDEN / "014.txt"))
    assert facts["profiler.cuda_time_total_s"] == 11.382
    assert facts["gpu.memcpy_share"] == 0.5747
    assert facts["profiler.top_op"] == "aten::copy_"
    assert not any("annotation" in p for p in problems)


# Hand-made, after the layout of a DeepSpeed ZeRO-3 fine-tuning profile (PyTorch 2.4 or older,
# cut short with no footer): a ``model_inference`` range on both sides, NCCL kernels beside
# their ``nccl:`` annotations, a collective operator holding device time of its own.
DEEPSPEED_LIKE = [
    _row("model_inference", "0.000us", "0.00%", "28.000s", "45.00%", "3"),
    _row("record_param_comms", "260.000ms", "1.30%", "12.000s", "19.00%", "4125"),
    _row("model_inference", "8.000s", "40.00%", "0.000us", "0.00%", "1"),
    _row("ncclDevKernel_AllGather_RING_LL", "0.000us", "0.00%", "7.000s", "11.00%", "2106"),
    _row("nccl:_all_gather_base", "0.000us", "0.00%", "7.000s", "11.00%", "2097"),
    _row("ncclDevKernel_ReduceScatter_Sum", "0.000us", "0.00%", "5.000s", "8.00%", "60"),
    _row("nccl:_reduce_scatter_base", "0.000us", "0.00%", "5.000s", "8.00%", "60"),
    _row("Memcpy DtoH (Device -> Pageable)", "0.000us", "0.00%", "1.500s", "3.00%", "294"),
    _row("ampere_bf16_s16816gemm_bf16_256x128", "0.000us", "0.00%", "1.000s", "2.00%", "896"),
]


def test_a_percent_column_that_counts_annotations_is_read_without_them() -> None:
    """Hand-made (above): the annotations hold 64 % of the % column and the kernels and copy
    24 %, 88 % together, so the column counts the annotations; the kernels' own time is the
    36 % left, of which the NCCL kernels hold 19 %: 0.5278, not 0.19."""
    facts, problems = _read(_table(DEEPSPEED_LIKE))
    assert facts["gpu.nccl_share"] == round(19 / 36, 4)
    assert facts["gpu.memcpy_share"] == round(3 / 36, 4)
    assert facts["profiler.top_op"] == "record_param_comms"
    assert any("% column counts GPU-side annotations" in p for p in problems)


def test_a_cut_table_with_a_small_annotation_is_taken_for_an_old_one() -> None:
    """Hand-made: the shared rows of ``test_profilers_hand`` without the kernel of their
    ``aten::mm``: the rows without host time sum to 60 %, which a PyTorch 2.4 footer holding
    the ``nccl:all_reduce`` annotation (20 %) allows; the device time is read as 0.8 ms."""
    facts, problems = _read(_table(ROWS, FOOTER))
    assert facts["profiler.cuda_time_total_s"] == 0.0008
    assert facts["kernels.mean_us"] == 20.0  # 0.8 ms over 40 launches
    assert facts["gpu.nccl_share"] == 0.25  # 200 of 800 us
    assert facts["gpu.memcpy_share"] == 0.25  # the DtoH copy and the memset, 200 of 800 us
    assert any("read as 0.800ms, without their 0.200ms" in p for p in problems)


def test_an_annotation_without_its_percent_gives_no_device_time() -> None:
    """Hand-made: where an annotation's self device % is not printed, whether the footer holds
    it cannot be told: no device-time share, no device total, no ratio to the host's."""
    blank = _row("ProfilerStep#3", "0.000us", "0.00%", "900.000us", "--", "1")
    facts, problems = _read(_table([*ROWS, blank], FOOTER))
    for name in ("gpu.memcpy_share", "gpu.nccl_share", "profiler.gpu_over_cpu"):
        assert name not in facts
    assert "profiler.cuda_time_total_s" not in facts and "kernels.mean_us" not in facts
    assert facts["kernels.launch_share"] == 0.3  # the host's facts stay
    assert any("without a self device %" in p for p in problems)


def test_row_kinds() -> None:
    """Hand-made rows: what tells an annotation from a kernel, an operator, an unknown."""
    from casefile_probes._profiler_rows import ACTIVITY, ANNOTATION, OPERATOR, row_kinds

    rows = [
        Row("ProfilerStep#12", self_cpu_us=0.0, self_dev_pct=90.0),
        Row("ProfilerStep*", self_cpu_us=12.0, self_dev_pct=0.0),  # the host's side
        Row("## forward ##", self_cpu_us=0.0, self_dev_pct=40.0),
        Row("[pl][profile]run_training_batch", self_cpu_us=0.0, self_dev_pct=30.0),
        Row("Block", self_cpu_us=0.0, self_dev_pct=20.0),
        Row("Block", self_cpu_us=5.0, self_dev_pct=0.0),
        Row("volta_sgemm_128x64_nn", self_cpu_us=0.0, self_dev_pct=150.0),
        Row("volta_sgemm_64x64_nn", self_cpu_us=0.0, self_dev_pct=60.0),
        Row("nccl:all_reduce", self_cpu_pct=0.0, self_dev_pct=10.0),
        Row("Memcpy HtoD (Pageable -> Device)", self_cpu_pct=0.0, self_dev_pct=10.0),
    ]
    assert row_kinds(rows) == [
        *(ANNOTATION, OPERATOR, ANNOTATION, ANNOTATION, ANNOTATION, OPERATOR),
        *(ANNOTATION, ACTIVITY, ANNOTATION, None),
    ]
