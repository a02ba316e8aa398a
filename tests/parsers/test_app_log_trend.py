"""The app-log's throughput trend (``app.throughput_trend``), its TFLOP/s and request rates
(:mod:`casefile_probes.app_log_trend`): a fall from a run's early best is read where the
readings agree on it, and not from a warm-up, a noisy loop or two logs pasted together."""

from __future__ import annotations

import pytest
from casefile_probes.app_log import parse_app_log
from casefile_probes.app_log_trend import printer, trend

from casefile.domain.facts import FactValue, ParseResult
from tests.parsers.corpus import golden_files, read_sample
from tests.parsers.host_logs import HOST_LOGS

#: a kernel benchmark's blocks of iterations on a B200, verbatim with the author's remarks
#: (https://github.com/flashinfer-ai/flashinfer/pull/2899, the development case of that name)
FLASHINFER = """Iters   0-  9: avg=1425 TFLOPS
Iters  10- 19: avg=1450 TFLOPS  (peak)
Iters  30- 39: avg=1373 TFLOPS  (throttling begins)
Iters  70- 79: avg=1237 TFLOPS  (fully throttled, -15%)
"""


def _values(result: ParseResult) -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == "host"}


def _golden(stem: str) -> dict[str, FactValue]:
    """The app-log parser's facts for one of the public samples in tests/golden/app-log."""
    path = next(p for p in golden_files("app-log") if p.stem == stem)
    return _values(HOST_LOGS["app-log"](read_sample(path)))


def test_four_blocks_of_a_benchmark_are_one_series_and_a_thin_one() -> None:
    """The remarks after the figures ("(peak)", "(throttling begins)") keep the lines one
    series; the early best is the faster of the first half's two blocks (1450), the end the
    median of the last two (1305): four readings move it by a tenth, no more."""
    values = _values(parse_app_log(FLASHINFER))
    assert values["app.throughput_trend"] == pytest.approx(1305 / 1450, abs=1e-3)
    assert values["tflops"] == pytest.approx((1425 + 1373) / 2)
    assert "throughput" not in values  # TFLOP/s is never the job's rate


def test_one_slow_last_step_is_no_trend() -> None:
    """Found by a review: with the end one reading, a checkpoint in the last step read as a
    fall of 29 %; the end is at least two readings, which must agree."""
    times = [1000, 1000, 1000, 1000, 1400]
    lines = [f"iter {k}: loss 3.0, time {t}ms, mfu 30.00%" for k, t in enumerate(times)]
    assert "app.throughput_trend" not in _values(parse_app_log("\n".join(lines)))


def test_a_warm_up_is_no_fall() -> None:
    """Slow first steps (compilation, autotuning), then a steady run: the early best skips
    them, and the end is as fast as the best start."""
    lines = [f"iter {k}: loss 3.0, time {t}ms, mfu 30.00%" for k, t in enumerate(
        [9000.0, 2500.0, 1000.0, 1001.0, 999.0, 1000.0, 1002.0, 1000.0, 1001.0]
    )]  # fmt: skip
    values = _values(parse_app_log("\n".join(lines)))
    assert values["app.throughput_trend"] == pytest.approx(1.0, abs=0.01)


def test_steps_that_slow_down_read_as_a_fall() -> None:
    """A step time that grows from 1.0 s to 1.3 s over a steady run: the rate fell by a
    quarter, and every late step is slower than every early one."""
    times = [1000, 1000, 1010, 1050, 1100, 1150, 1200, 1250, 1300]
    lines = [f"iter {k}: loss 3.0, time {t}ms, mfu 30.00%" for k, t in enumerate(times)]
    values = _values(parse_app_log("\n".join(lines)))
    assert values["app.throughput_trend"] == pytest.approx(1000 / 1250, abs=1e-3)


def test_a_noisy_loop_gives_no_trend() -> None:
    """torchvision's per-iteration img/s swings from 3.6 to 32 (public sample 028): the late
    readings are not consistently slower than the early best, so no trend is read."""
    assert "app.throughput_trend" not in _golden("028")


def test_two_logs_pasted_together_are_two_series() -> None:
    """YOLOX's lines (~1.5 s a step), then mmengine's data-bound first iterations (33 s):
    read as one run they fell to a tenth (public sample 002); kept apart by their printers,
    neither moves."""
    assert "app.throughput_trend" not in _golden("002")


def test_a_real_slowdown_in_a_public_log() -> None:
    """llama2.c on a Mac's GPU: steps of about 8.0 s become about 9.8 s (public sample 073),
    with the evaluation steps' 870 s between them left to the agreement test."""
    assert _golden("073")["app.throughput_trend"] == pytest.approx(0.818)


def test_fewer_than_four_readings_give_no_trend() -> None:
    lines = [f"iter {k}: loss 3.0, time {t}ms, mfu 30.00%" for k, t in enumerate([1, 2, 3])]
    assert "app.throughput_trend" not in _values(parse_app_log("\n".join(lines)))


@pytest.mark.parametrize(
    ("series", "expected"),
    [
        ([[10.0, 10.0, 10.0, 10.0]], 1.0),
        ([[10.0, 10.0, 8.0, 8.0]], 0.8),
        ([[10.0, 10.0, 10.0, 7.0]], None),  # one slow reading at the end: the end's two disagree
        ([[10.0, 12.0, 11.0, 9.0, 9.0, 9.0]], 9.0 / 11.0),
        ([[10.0, 12.0, 11.0, 10.0, 10.0, 10.0]], None),  # 10 is not below the early 10
        ([[10.0, 2.0, 10.0, 2.0, 10.0, 2.0]], None),  # alternating: late pairs disagree
        ([[1.0, 1.0, 1.0], [5.0, 5.0, 5.0, 5.0, 4.0, 4.0]], 0.8),  # the longest series is read
        ([[0.0, 0.0, 0.0, 0.0]], None),
    ],
)
def test_trend(series: list[list[float]], expected: float | None) -> None:
    found = trend(series)
    if expected is None:
        assert found is None
    else:
        assert found == pytest.approx(expected)


def test_a_printer_is_its_lines_first_words() -> None:
    assert printer("Iters  10- 19: avg=1450 TFLOPS  (peak)") == "Iters avg TFLOPS"
    assert printer("Total progress: 100%|████| 21/21 [03:27<00:00,  9.86s/it]") == (
        "Total progress it"
    )
    assert printer("100%|██████| 21/21 [03:27<00:00,  9.86s/it]") == "it"


@pytest.mark.parametrize(
    ("line", "tflops"),
    [
        ("completed step: 15107, seconds: 2.167, TFLOP/s: 36.722, loss: 2.191", 36.722),
        ("step: 10  loss: 7.9  tps: 7,306  tflops: 312.45  mfu: 31.6%", 312.45),
        ("GEMM 8192x8192x8192 bf16: 715.3 TFLOPS", 715.3),
        ("matmul: 1530 GFLOPS", 1.53),
        ("attention fwd TFLOPS=523.4", 523.4),
    ],
)  # fmt: skip
def test_tflops_lines(line: str, tflops: float) -> None:
    assert _values(parse_app_log(line))["tflops"] == pytest.approx(tflops)


@pytest.mark.parametrize(
    "line",
    [
        "Peak BF16 dense: 2250 TFLOPS",
        "theoretical max 989 TFLOPS",
        "Hardware: 1979 TFLOP/s FP8",
        "MFLOPS: 12",
    ],
)
def test_a_specification_is_no_reading(line: str) -> None:
    assert "tflops" not in _values(parse_app_log(line))


def test_a_request_rate_alone_is_the_jobs_throughput() -> None:
    """vLLM's throughput benchmark of 2023 printed requests per second alone."""
    values = _values(parse_app_log("Total time: 774.99 s\nThroughput: 1.03 requests/s\n"))
    assert values["requests_per_s"] == 1.03
    assert values["throughput"] == 1.03


def test_a_token_rate_comes_before_a_request_rate() -> None:
    text = "Request throughput (req/s):        3.57\nOutput token throughput (tok/s):  456.37\n"
    values = _values(parse_app_log(text))
    assert values["requests_per_s"] == 3.57
    assert values["throughput"] == 456.37


@pytest.mark.parametrize(
    "lines",
    [
        # a sweep of shapes: each line times other work
        [f"Shape ({n}, {n}, {n}): {t} TFLOPS" for n, t in ((16384, 735.2), (8192, 640.1),
         (4096, 410.7), (2048, 160.3), (1024, 60.2), (512, 22.1))],
        # a dataset's map bar: examples per second while it maps, no training step
        [f"Map: {p}%|###| {k}/10000 [00:0{p // 10}<00:01, {r} examples/s]" for p, k, r in
         ((10, 1000, 9000.0), (30, 3000, 8000.0), (50, 5000, 6000.0), (70, 7000, 5000.0),
          (90, 9000, 4000.0), (99, 9900, 3800.0))],
    ],
)  # fmt: skip
def test_series_that_time_other_work_each_line_give_no_trend(lines: list[str]) -> None:
    """Found by a review: a GEMM sweep from large shapes to small read as a 90 % fall."""
    assert "app.throughput_trend" not in _values(parse_app_log("\n".join(lines)))


@pytest.mark.parametrize(
    ("line", "tflops"),
    [
        ("Model summary: 225 layers, 3157184 parameters, 3157184 gradients, 8.9 GFLOPs", None),
        ("Flops: 4.11 GFLOPs", None),
        ("Iters 0-9: avg=1,425 TFLOPS", 1425.0),
        ("throughput per GPU (TFLOP/s/GPU): 402.5", 402.5),
        ("fwd: 345.67 TFLOPs/s", 345.67),
        ("step 3: 150.2 TFLOPS/GPU", 150.2),
        ("max mem: 1234 MB | step 3 | 415.2 TFLOPS", 415.2),
        ("achieved 447 TFLOPS (peak 989 TFLOPS)", 447.0),
    ],
)
def test_tflops_spellings_and_counts(line: str, tflops: float | None) -> None:
    """Found by a review: a model's operation count ("GFLOPs") is no rate, and a rate's label
    is the words just before it, not a "max" anywhere earlier on the line."""
    assert _values(parse_app_log(line)).get("tflops") == tflops


def test_a_printer_leaves_out_the_clocks_words() -> None:
    """A run that crosses noon is one series: AM and PM, weekdays and months name no printer."""
    assert printer("Mon May 4 11:59:58 AM INFO step 10") == printer(
        "Tue May 5 12:00:01 PM INFO step 11"
    )
