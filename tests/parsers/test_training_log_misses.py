"""Training logs the app-log parser misread, on the lines people pasted: fairseq's words a second
that are a mean since the epoch began, and Keras's epoch lines (a count of samples, seconds and
a time per unit, all rounded). Each test's lines are copied from the thread or file named above
them; most of them are golden samples too (``tests/golden/app-log``, 122 to 129)."""

from __future__ import annotations

from statistics import median

import pytest
from casefile_probes.app_log import looks_like_app_log, parse_app_log
from casefile_probes.app_log_words import FairseqWords

from tests.timing import cpu_seconds

from .corpus import GOLDEN, check_result


def _facts(text: str) -> tuple[dict[str, object], list[str]]:
    result = parse_app_log(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}, result.problems


SINCE_EPOCH = "is a mean since its epoch began: its last reading is given"


# ------------------------------------------------------------------ fairseq's words a second

#: https://github.com/facebookresearch/fairseq/issues/940 (turn 8): simple progress lines of a
#: fairseq before 0.10, wps the mean since the epoch began (golden 097)
FAIRSEQ_OLD = (
    "| epoch 001:    450 / 1891 loss=11.521, nll_loss=10.881, ppl=1886.05, wps=52922, ups=0"
    ".5, wpb=104928, bsz=5325, num_updates=445, lr=8.90889e-05, gnorm=1.543, clip=0%, oom=0"
    ", loss_scale=2.000, wall=882, train_wall=756\n"
    "| epoch 001:    500 / 1891 loss=11.346, nll_loss=10.678, ppl=1637.83, wps=53351, ups=0"
    ".5, wpb=104872, bsz=5322, num_updates=495, lr=9.90876e-05, gnorm=1.507, clip=0%, oom=0"
    ", loss_scale=2.000, wall=973, train_wall=840\n"
    "| epoch 001:    550 / 1891 loss=11.186, nll_loss=10.492, ppl=1440.01, wps=53627, ups=0"
    ".5, wpb=104800, bsz=5311, num_updates=545, lr=0.000109086, gnorm=1.469, clip=0%, oom=0"
    ", loss_scale=2.000, wall=1065, train_wall=925\n"
    "| epoch 001:    600 / 1891 loss=11.039, nll_loss=10.320, ppl=1278.29, wps=53936, ups=0"
    ".5, wpb=104812, bsz=5310, num_updates=595, lr=0.000119085, gnorm=1.445, clip=0%, oom=0"
    ", loss_scale=2.000, wall=1156, train_wall=1010\n"
)
#: https://github.com/facebookresearch/fairseq/issues/2338: fairseq 0.10's train_inner lines,
#: each its interval's rate (golden 098)
FAIRSEQ_NEW = (
    "2020-07-17 07:11:02 | INFO | train_inner | epoch 001:   2800 / 160368 loss=9.255, ppl="
    "611.12, wps=57.3, ups=0.04, wpb=1613, bsz=80, num_updates=2800, lr=2.8e-05, gnorm=3.23"
    ", train_wall=13, wall=1236\n"
    "2020-07-17 07:11:31 | INFO | train_inner | epoch 001:   2900 / 160368 loss=8.979, ppl="
    "504.73, wps=53.5, ups=0.04, wpb=1504, bsz=64, num_updates=2900, lr=2.9e-05, gnorm=2.39"
    ", train_wall=13, wall=1265\n"
    "2020-07-17 07:12:00 | INFO | train_inner | epoch 001:   3000 / 160368 loss=9.376, ppl="
    "664.29, wps=16.2, ups=0.03, wpb=469, bsz=8, num_updates=3000, lr=3e-05, gnorm=3.214, t"
    "rain_wall=14, wall=1294\n"
)
#: https://github.com/facebookresearch/fairseq/issues/430 (turn 3): fairseq's tqdm bars whose
#: redraws ran together on one line (golden 123)
FAIRSEQ_RUN_TOGETHER = (
    "| epoch 014:   3%| | 1/35 [00:01<00:36,  1.08s/it, loss=11.557, ppl=3012.67, wps=58, u"
    "ps=0.0, wpb=2035, bsz=120, num_updates=456, lr=0.00025, gnorm=0.406, clip=| epoch 014:"
    "   6%| | 2/35 [00:02<00:37,  1.14s/it, loss=11.785, ppl=3529.70, wps=2495, ups=0.1, wp"
    "b=2628, bsz=192, num_updates=457, lr=0.00025, gnorm=0.469, cli| epoch 014:   9%| | 3/3"
    "5 [00:03<00:37,  1.16s/it, loss=11.571, ppl=3043.45, wps=2550, ups=0.1, wpb=2789, bsz="
    "189, num_updates=458, lr=0.00025, gnorm=0.434, cli| epoch 014:  11%| | 4/35 [00:04<00:"
    "34,  1.10s/it, loss=11.597, ppl=3097.90, wps=2090, ups=0.1, wpb=2318, bsz=158, num_upd"
    "ates=459, lr=0.00025, gnorm=0.461, cli| epoch 014:  14%|▏| 5/35 [00:05<00:32,  1.09s/i"
    "t, loss=11.576, ppl=3053.90, wps=2217, ups=0.1, wpb=2415, bsz=160, num_updates=460, lr"
    "=0.00025, gnorm=0.535, cli| epoch 014:  17%|▏| 6/35 [00:06<00:33,  1.16s/it, loss=11.5"
    "88, ppl=3077.63, wps=2365, ups=0.1, wpb=2649, bsz=180, num_updates=461, lr=0.00025, gn"
    "orm=0.487, cli| epoch 014:  20%|▏| 7/35 [00:08<00:33, \n"
    " 1.19s/it, loss=11.534, ppl=2964.86, wps=2455, ups=0.2, wpb=2783, bsz=185, num_updates"
    "=462, lr=0.00025, gnorm=0.507, cli| epoch 014:  23%|▏| 8/35 [00:09<00:32,  1.21s/it, l"
    "oss=11.504, ppl=2903.89, wps=2516, ups=0.2, wpb=2889, bsz=193, num_updates=463, lr=0.0"
    "0025, gnorm=0.474, cli| epoch 014:  26%|▎| 9/35 [00:10<00:30,  1.19s/it, loss=11.569, "
    "ppl=3038.79, wps=2467, ups=0.2,"
)


def test_old_fairseq_wps_is_read_by_its_last_reading() -> None:
    """fairseq up to 0.9 started its wps meter again only when an epoch began: 52922, 53351,
    53627, 53936 are means over ever more of the epoch, and the last is the run's rate (the
    median, 53489, was no reading's)."""
    facts, problems = _facts(FAIRSEQ_OLD)
    assert facts["tokens_per_s"] == 53936.0
    assert facts["throughput"] == 53936.0
    assert "app.throughput_trend" not in facts
    (word,) = problems
    assert SINCE_EPOCH in word and "(53936 tokens/s)" in word and "its 4 readings" in word


def test_newer_fairseq_wps_is_each_intervals_rate() -> None:
    """From 0.10 the meters start again every log interval: the median of the intervals."""
    facts, problems = _facts(FAIRSEQ_NEW)
    assert facts["tokens_per_s"] == 53.5
    assert not problems


def test_the_last_reading_of_bars_run_together_is_the_latest() -> None:
    """Each pasted line holds several of the bar's redraws; the first of them (wps=58: the
    epoch's first batch, start-up included) stood for the line, and the two lines' median was
    1256.5 tokens/s. The last redraw of the last line is the epoch's mean so far."""
    facts, problems = _facts(FAIRSEQ_RUN_TOGETHER)
    assert facts["tokens_per_s"] == 2467.0
    assert facts["throughput"] == facts["it_per_s"]  # the bar's own it/s stays the throughput
    assert any(SINCE_EPOCH in problem for problem in problems)


@pytest.mark.parametrize(
    ("line", "since_epoch"),
    [
        (FAIRSEQ_OLD.split("\n")[0], True),
        (FAIRSEQ_NEW.split("\n")[0], False),
        # https://github.com/facebookresearch/fairseq/issues/514 (turn 3): an epoch's summary
        ("| epoch 008 | loss 6.326 | nll_loss 5.193 | ppl 36.58 | wps 12876 | ups 4.9 | wpb 2578",
         True),
        # https://github.com/facebookresearch/fairseq/issues/301 (turn 1): fairseq-py's summary
        ("| epoch 010 | train loss 1.44 | train ppl 2.72 | s/checkpoint    7747 | words/s    961 "
         "| words/batch    906 | bsz    32", True),
        # the old prefix behind a launcher's (srun -l) or a timestamp (docker logs -t)
        ("0: " + FAIRSEQ_OLD.split("\n")[0], True),
        ("2020-01-01T00:00:00.000Z " + FAIRSEQ_OLD.split("\n")[0], True),
        # the new logger's tag with a launcher's prefix still says an interval
        ("0: " + FAIRSEQ_NEW.split("\n")[0], False),
    ],
)  # fmt: skip
def test_the_prefix_tells_a_mean_since_the_epoch_from_an_intervals_rate(
    line: str, since_epoch: bool
) -> None:
    """The old "| epoch" prefix, whatever a launcher put before it; the new one follows the
    logger's tag."""
    words = FairseqWords()
    tokens: list[float] = []
    assert words.read(line, tokens)
    assert bool(words.running.readings) is since_epoch
    assert bool(tokens) is not since_epoch


def test_a_running_mean_of_steps_says_why_its_last_reading_stands() -> None:
    """ms-swift's train_speed(iter/s) (golden 119,
    https://github.com/modelscope/ms-swift/issues/4291) keeps the same rule in the same home,
    and now says so."""
    facts, problems = _facts((GOLDEN / "app-log" / "119.txt").read_text(encoding="utf-8"))
    assert facts["it_per_s"] == 0.194736
    assert "app.throughput_trend" not in facts
    (word,) = problems
    assert word.startswith("ms-swift's train_speed(iter/s) is a mean since the run began")


# ------------------------------------------------------------------------ Keras's epoch lines

#: https://github.com/opheliagame/EIP4-coursework/blob/1208705c5da9460954ca318091a9a5db5d14a879/Session-2/README.md
#: (golden 127): Keras 2.1-2.3 fitting on arrays counts samples and still says "us/step"
KERAS_SAMPLES = (
    "Train on 60000 samples, validate on 10000 samples\n"
    "Epoch 1/20\n"
    "\n"
    "Epoch 00001: LearningRateScheduler setting learning rate to 0.003.\n"
    "60000/60000 [==============================] - 15s 248us/step - loss: 0.5289 - acc: 0."
    "8521 - val_loss: 0.0941 - val_acc: 0.9814\n"
    "Epoch 2/20\n"
    "\n"
    "Epoch 00002: LearningRateScheduler setting learning rate to 0.0022744503.\n"
    "60000/60000 [==============================] - 6s 100us/step - loss: 0.2575 - acc: 0.9"
    "224 - val_loss: 0.0698 - val_acc: 0.9858\n"
    "Epoch 3/20\n"
    "\n"
    "Epoch 00003: LearningRateScheduler setting learning rate to 0.0018315018.\n"
    "60000/60000 [==============================] - 6s 103us/step - loss: 0.2017 - acc: 0.9"
    "400 - val_loss: 0.0435 - val_acc: 0.9898\n"
    "Epoch 4/20\n"
)


def test_keras_counting_samples_gives_a_sample_rate() -> None:
    """Under "Train on 60000 samples" the count is samples: 248 us, 100 us and 103 us a sample
    are 4032, 10000 and 9709 samples/s, not steps of a tenth of a millisecond (the step time
    was 0.000103 s)."""
    facts, _ = _facts(KERAS_SAMPLES)
    assert "step_time_s" not in facts
    assert facts["samples_per_s"] == round(1 / 103e-6, 6)
    assert facts["throughput"] == facts["samples_per_s"]


def test_without_the_banner_keras_counts_steps() -> None:
    """TensorFlow 2.3's Keras counts steps, and a step may take under a millisecond:
    https://github.com/ageron/handson-ml2/issues/277 (description)."""
    line = (
        "Epoch 1/30\n"
        "1719/1719 [==============================] - 1s 812us/step - loss: 0.7237 - "
        "accuracy: 0.7644 - val_loss: 0.5207 - val_accuracy: 0.8234\n"
    )
    facts, _ = _facts(line)
    assert facts["step_time_s"] == 0.000812
    assert "samples_per_s" not in facts


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        # https://github.com/ageron/handson-ml2/issues/277 (comment, golden 126): tf.keras's
        # "us/sample"
        (
            "Train on 55000 samples, validate on 5000 samples\n"
            "Epoch 1/30\n"
            "55000/55000 [==============================] - 2s 44us/sample - loss: 0.7226 - accurac"
            "y: 0.7641 - val_loss: 0.5073 - val_accuracy: 0.8320\n",
            round(1 / 44e-6, 6),
        ),
        # https://github.com/keras-team/keras/issues/617 (golden 124): Keras 0.x, the seconds
        # alone, cut to whole ones (290 s is 290 to 291 s)
        (
            "Train on 60000 samples, validate on 10000 samples\n"
            "Epoch 0\n"
            "60000/60000 [==============================] - 290s - loss: 2.7128 - acc: 0.7091 - val"
            "_loss: 0.1638 - val_acc: 0.9501\n"
            "Epoch 1\n"
            "60000/60000 [==============================] - 289s - loss: 7.7192 - acc: 0.4924 - val"
            "_loss: 15.5040 - val_acc: 0.0381\n",
            round(median([60000 / 290.5, 60000 / 289.5]), 6),
        ),
        # https://github.com/KyotoSunshine/CNN-for-handwritten-kanji/blob/68c1633c85615ff38eb1e01ecfbdc387fd03d98d/logs/model_for_augmented_dataset_training_log.py
        # (golden 128): verbose=2, the count only in the banner
        (
            "Train on 400000 samples, validate on 10000 samples\n"
            "Epoch 1/10\n"
            "3083s - loss: 1.7197 - acc: 0.5893 - val_loss: 0.3504 - val_acc: 0.8959\n"
            "Epoch 2/10\n"
            "3086s - loss: 0.6644 - acc: 0.8074 - val_loss: 0.2832 - val_acc: 0.9182\n",
            round(median([400000 / 3083.5, 400000 / 3086.5]), 6),
        ),
        # https://github.com/RichardMinsooGo/0_TF2_Getting_Started_MNIST/blob/dd935790bbc1cd073c7e4b287b150bca7139d6b5/01_TF2_MNIST_beginner_sparse.py
        # Keras 2.1 on, verbose=2: " - 88s" rounded
        (
            "Train on 186219 samples, validate on 20691 samples\n"
            "Epoch 1/1\n"
            " - 88s - loss: 0.5746 - acc: 0.7753 - val_loss: 0.4816 - val_acc: 0.8075\n",
            round(186219 / 88, 6),
        ),
    ],
)
def test_keras_epochs_over_samples(text: str, rate: float) -> None:
    """Lines no pattern read before: a sample rate from the count and the seconds (or the
    printed time a sample)."""
    assert looks_like_app_log(text)
    facts, _ = _facts(text)
    assert facts["samples_per_s"] == rate
    assert "step_time_s" not in facts


@pytest.mark.parametrize(
    ("text", "step"),
    [
        # https://github.com/pierluigiferrari/ssd_keras/issues/344 (golden 042): "2s/step" is
        # 1.843 s and 1.898 s
        (
            "1000/1000 [==============================] - 1843s 2s/step - loss: 3.8849 - val_loss: "
            "3.2442\n"
            "\n"
            "Epoch 00001: val_loss improved from 5.00000 to 3.24423, saving model to h5/trained/ssd"
            "300_pascal_07+12_epoch-01_loss-3.8844_val_loss-3.2442.h5\n"
            "Epoch 2/120\n"
            "\n"
            "Epoch 00002: LearningRateScheduler setting learning rate to 0.001.\n"
            "1000/1000 [==============================] - 1898s 2s/step - loss: 3.8920 - val_loss: "
            "3.2299\n",
            round((1.843 + 1.898) / 2, 6),
        ),
        # https://github.com/inspirehep/magpie/issues/183: 110 s over 6072 steps is 18.03 to
        # 18.20 ms, "18ms/step" 17.5 to 18.5: the middle of what both allow
        (
            "Epoch 1/10\n"
            "6072/6072 [==============================] - 110s 18ms/step - loss: 0.6284 - "
            "top_k_categorical_accuracy: 1.0000 - val_loss: 0.5469 - "
            "val_top_k_categorical_accuracy: 1.0000\n",
            round(110 / 6072, 6),
        ),
    ],
)
def test_keras_rounding_is_undone_by_the_epochs_seconds(text: str, step: float) -> None:
    """Keras rounds the time a step to a whole unit: the epoch's seconds narrow it."""
    facts, _ = _facts(text)
    assert facts["step_time_s"] == step


def test_evaluate_after_the_last_epoch_is_no_epoch() -> None:
    """An evaluate() bar follows the last epoch's with no "Epoch" header between: its forward
    passes over the test set are no training step (the median of 739, 742 and 505 us was
    739 us).
    https://github.com/piaic-official/AI-Q2-learning-resources/pull/16 (turn 2)."""
    text = (
        "Epoch 99/100\n"
        "4451/4451 [==============================] - 3s 739us/step - loss: 0.0266 - accuracy: "
        "0.9983 - val_loss: 0.0265 - val_accuracy: 0.9983\n"
        "Epoch 100/100\n"
        "4451/4451 [==============================] - 3s 742us/step - loss: 0.0266 - accuracy: "
        "0.9983 - val_loss: 0.0265 - val_accuracy: 0.9983\n"
        "\n"
        "Evaluate Accuracy of Data based on Test Data\n"
        "\n"
        "Accuracy of 99.8%\n"
        "In [45]:\n"
        "\n"
        "\n"
        "model.evaluate(x_test_s, y_test_s)[1]\n"
        "\n"
        "2671/2671 [==============================] - 1s 505us/step - loss: 0.0267 - accuracy: "
        "0.9983\n"
        "Out[45]:\n"
        "0.9982678294181824"
    )
    facts, _ = _facts(text)
    assert facts["step_time_s"] == round((739e-6 + 742e-6) / 2, 6)


def test_evaluate_in_samples_is_left_out_too() -> None:
    """https://github.com/keras-team/keras/issues/12681 (golden 129): fit's one verbose=2 line
    (57591 samples in 2 s), then evaluate()'s bar over the 19200 validation samples."""
    text = (
        "> Train on 57591 samples, validate on 19200 samples\n"
        ">  - 2s - loss: 1.0303 - val_loss: 1.1302\n"
        "> 19200/19200 [==============================] - 2s 98us/sample - loss: 0.9569\n"
    )
    facts, _ = _facts(text)
    assert facts["samples_per_s"] == 57591 / 2


# ------------------------------------------------------------------------------------- cost

#: lines of the new patterns' shapes, repeated to 200 KB: each parse stays linear
LONG_SHAPES = [
    "| epoch 1: wps=1, loss=2, ",
    "clip=| epoch 014:   6%| | 2/35 [00:02<00:37, wps=2495, ups=0.1, ",
    "60000/60000 [==============================] - 15s 248us/step - loss: 0.5 ",
    "1/1 [=] - 1s - 2/2 [",
    "[" + "=" * 1000,
    "> " * 10 + "Train on 1 samples ",
    "1/1/1/1/1/1 [",
]


@pytest.mark.parametrize("unit", LONG_SHAPES)
def test_a_long_line_of_these_shapes_parses_in_linear_time(unit: str) -> None:
    line = (unit * (200_000 // len(unit) + 1))[:200_000]
    for text in (line, "Train on 3 samples\n" + line):
        assert cpu_seconds(lambda text=text: parse_app_log(text), rounds=1) < 5.0
