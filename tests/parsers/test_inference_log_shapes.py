"""Shapes of inference logs that surveys of real pastes found read wrongly or not at all: a
llama-batched-bench table (golden app-log 116) and vLLM's "Processed prompts" bars of jobs that
score prompts rather than generate (golden app-log 117). Split from ``test_pasted_shapes``."""

from __future__ import annotations

from casefile_probes.app_log import looks_like_app_log, parse_app_log

from .corpus import check_result


def _facts(text: str) -> tuple[dict[str, object], list[str]]:
    result = parse_app_log(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}, result.problems


BATCHED_BENCH = (
    "|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |"
    "    S t/s |\n"
    "|-------|--------|------|--------|----------|----------|----------|----------|----------|"
    "----------|\n"
    "|   512 |     32 |    1 |    544 |    0.337 |  1518.90 |    0.405 |    79.04 |    0.742 |"
    "   733.22 |\n"
    "|   512 |     32 |    2 |   1088 |    0.639 |  1603.62 |    0.469 |   136.37 |    1.108 |"
    "   982.06 |\n"
)


def test_a_batched_bench_reads_its_one_stream_rows() -> None:
    """llama-batched-bench (golden app-log 116): the generation rate of one stream, as
    llama-bench's tgN; a row of two streams is a server's batch, another setup."""
    assert looks_like_app_log(BATCHED_BENCH)  # offered to this parser from any probe
    facts, problems = _facts(BATCHED_BENCH)
    assert facts["tokens_per_s"] == 79.04
    assert problems == []
    other = "\n| Layer | idx | GPU | name |\n|---|---|---|---|\n| a | 1 | c | 4000.0 |\n"
    facts, _ = _facts(BATCHED_BENCH + other)  # another table's rows are not the bench's
    assert facts["tokens_per_s"] == 79.04
    several = "\n".join(line for line in BATCHED_BENCH.splitlines() if "|    1 |" not in line)
    result = parse_app_log(several)
    assert not any(fact.name == "tokens_per_s" for fact in result.facts)


def test_a_bar_of_prompts_scored_not_generated_gives_prompts_a_second() -> None:
    """lm_eval's log-likelihood tasks through vLLM (golden app-log 117): about one output
    token a prompt, so the bar's output rate (22.14 tokens/s) is no decode rate; the job's
    speed is its prompts a second, counted since the bar began (20791 in 15:38, read as
    938.5 s: the bar shows whole seconds)."""
    bar = (
        "Processed prompts:  14%|███▉       | 20791/152671 [15:38<1:23:11, 26.42it/s, est. "
        "speed input: 24555.79 toks/s, output: 22.14 toks/s]"
    )
    facts, problems = _facts(bar)
    assert "tokens_per_s" not in facts
    assert facts["requests_per_s"] == round(20791 / 938.5, 6)
    assert "under 2 tokens a prompt" in problems[0]


def test_a_short_bar_of_short_answers_is_still_generation() -> None:
    """1900 prompts in 1.9 s shown as 00:01, at 3000 output tokens/s: 3 tokens a prompt, not
    1.58 (the shown second is a floor); only under 2 at the most the time can be is a job
    that generates next to nothing."""
    bar = (
        "Processed prompts: 100%|██████████| 1900/1900 [00:01<00:00, 1000.00it/s, est. speed "
        "input: 200000.00 toks/s, output: 3000.00 toks/s]"
    )
    facts, problems = _facts(bar)
    assert facts["tokens_per_s"] == 3000.0
    assert "requests_per_s" not in facts and problems == []


def test_bars_that_score_or_embed_within_a_second_or_at_no_output() -> None:
    within = (
        "Processed prompts: 100%|██████████| 200/200 [00:00<00:00, 310.52it/s, est. speed "
        "input: 45000.10 toks/s, output: 310.52 toks/s]"
    )
    facts, _ = _facts(within)
    assert "tokens_per_s" not in facts and facts["requests_per_s"] == 310.52  # tqdm's own
    pooling = (
        "Processed prompts: 100%|██████████| 5000/5000 [00:50<00:00, 100.00it/s, est. speed "
        "input: 51200.00 toks/s, output: 0.00 toks/s]"
    )
    facts, _ = _facts(pooling)
    assert facts["requests_per_s"] == round(5000 / 50.5, 6)


def test_a_bar_that_generates_keeps_its_output_rate() -> None:
    """A slow offline run (golden app-log 113): 55.51 tokens/s after 1055 prompts in 53 s, 2.8
    tokens a prompt; tqdm's smoothed it/s (5753.50 on a stale reading) is not what is
    compared."""
    bar = (
        "Processed prompts:  32%|███▏      | 1055/3273 [00:53<05:28,  6.76it/s, est. speed "
        "input: 49653.32 toks/s, output: 55.51 toks/s]"
    )
    facts, problems = _facts(bar)
    assert facts["tokens_per_s"] == 55.51
    assert "requests_per_s" not in facts
    assert problems == []


def test_several_bars_of_a_scoring_job_give_the_median_of_their_last_readings() -> None:
    """A scoring job's bars, one finished and one just begun: each bar's last reading is its
    run's, and the job's prompts a second are their median, as generating bars' rates are."""
    bars = (
        "Processed prompts: 100%|██████████| 6000/6000 [01:00<00:00, 100.00it/s, est. speed "
        "input: 51200.00 toks/s, output: 100.00 toks/s]\n"
        "Processed prompts:   1%|          | 12/2000 [00:06<05:00, 2.00it/s, est. speed "
        "input: 1000.00 toks/s, output: 2.00 toks/s]\n"
    )
    facts, _ = _facts(bars)
    assert "tokens_per_s" not in facts
    first, second = 6000 / 60.5, 12 / 6.5
    assert facts["requests_per_s"] == round((first + second) / 2, 6)
