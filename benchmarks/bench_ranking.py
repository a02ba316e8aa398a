"""Ranking whole probes: the joint information of every rule one run feeds.

Target (issue "Triage that reasons like an expert"): ranking over 80 hypotheses and 60
probe/rule pairs, up to 12 rules per probe, stays under 100 ms. The case is synthetic and
seeded: 16 top-level hypotheses with 4 children each (80 nodes, 64 leaves), 5 probes with 12
rules each, every rule naming 3 to 8 random nodes with 2 or 3 outcomes (like the playbook's).
Also timed: the real gpu-throughput@2 candidates on a development-set case, and (issue
"Guidance that generalizes", target under 50 ms) both rankings ``status`` shows — probe/rule
pairs and whole probes, each ordered by what it tells about the leaders — on a synthetic case of
30 hypotheses and 40 probes, and on the real gpu-throughput@3 candidates of a development case,
each beside the same work on version 2's candidates in the same run (the ratio). And (issue
24, target at most 50 ms) whole probes on 50 hypotheses x 50 probes x 8 rules, cold (nothing
remembered) beside the plain per-term arithmetic (``tests/engine/ranking_reference``) in the
same run, rounds alternating, and warm (the same fold ranked again); the two must rank the
same probes in the same order with figures agreeing to 1e-9 (``agreement``). Every other
figure is cold: the memo is emptied before each round.

    .venv/bin/python benchmarks/bench_ranking.py [--only 50x50x8] [--rounds N]
    .venv/bin/python benchmarks/bench_ranking.py --every-step

``--every-step`` ranks every step of every shipped case (the reference case, its version-3
encoding, the development set) both ways and counts the steps whose order, or whose figures as
the front ends show them (three decimals), differ.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.domain import commands
from casefile.domain.beliefs import joint, project
from casefile.domain.beliefs.ranking import (
    Candidate,
    NextStep,
    ProbeStep,
    rank_next_steps,
    rank_probes,
)
from casefile.domain.events import GENESIS_HASH, seal
from casefile.domain.rule_loading import rule_from_dict

RUNS = 7


def synthetic_case(
    title: str,
    seed: int,
    tops: tuple[int, float],
    children: tuple[int, float],
    probes: int,
    rules: tuple[int, int],
    named: tuple[int, int],
    per_rule_fact: bool,
) -> tuple[object, list[Candidate]]:
    """A seeded synthetic case: ``tops`` top-level hypotheses (count, prior) with ``children``
    each (count, prior), and ``probes`` probes of ``rules`` rules each (a random count within
    the bounds; equal bounds draw nothing, so a fixed count keeps its seed's cases), every
    rule naming ``named`` random nodes (bounds) with 2 or 3 outcomes, like the playbook's.
    ``per_rule_fact`` gives each rule of a probe its own fact."""
    rng = random.Random(seed)
    events = []
    prev = GENESIS_HASH

    def add(new: object) -> None:
        nonlocal prev
        event = seal("bench", len(events) + 1, prev, new, recorded_at="2026-01-01T00:00:00Z")  # type: ignore[arg-type]
        events.append(event)
        prev = event.hash

    add(commands.open_case(title))
    add(commands.propose_question(project(events), "What limits it?", "q", 0.1))
    ids: list[str] = []
    for top in range(tops[0]):
        add(commands.propose_hypothesis(project(events), f"top {top}", "q", tops[1], f"t{top}"))
        ids.append(f"t{top}")
        for child in range(children[0]):
            hid = f"t{top}c{child}"
            add(commands.propose_hypothesis(project(events), hid, f"t{top}", children[1], hid))
            ids.append(hid)
    assert len(ids) == tops[0] * (1 + children[0])
    candidates = []
    for probe in range(probes):
        count = rules[0] if rules[0] == rules[1] else rng.randint(*rules)
        for number in range(count):
            outcomes = ["a", "b", "c"][: rng.choice((2, 3))]
            table = {}
            for hid in [*rng.sample(ids, rng.randint(*named)), "otherwise"]:
                weights = [rng.random() + 0.05 for _ in outcomes]
                row = [round(w / sum(weights), 4) for w in weights]
                row[-1] = round(1.0 - sum(row[:-1]), 4)
                table[hid] = dict(zip(outcomes, row, strict=True))
            rule = rule_from_dict(
                {
                    "id": f"p{probe}r{number}",
                    "version": 1,
                    "probes": [f"probe{probe}"],
                    "rationale": "bench",
                    "statistic": {
                        "aggregate": "max",
                        "fact": f"f{number}" if per_rule_fact else "f",
                    },
                    "outcomes": [
                        *({"name": o, "below": float(i)} for i, o in enumerate(outcomes[:-1])),
                        {"name": outcomes[-1]},
                    ],
                    "likelihoods": table,
                },
                "q",
            )
            candidates.append(Candidate(f"probe{probe}", rule, "cheap"))
    return project(events), candidates


def synthetic() -> tuple[object, list[Candidate]]:
    """80 hypotheses (16 top-level, 4 children each) and 5 probes of 12 rules."""
    return synthetic_case(
        "ranking bench", 20261201, (16, 0.9 / 16), (4, 0.25), 5, (12, 12), (3, 8), True
    )


def timed(projection: object, candidates: list[Candidate]) -> float:
    samples = []
    for _ in range(RUNS):
        joint.forget()
        start = time.perf_counter()
        rank_probes(projection, candidates)  # type: ignore[arg-type]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def dev_case_v2() -> tuple[object, list[Candidate]]:
    """A development case opened on version 2 (the set was rebuilt on version 3), for the
    baseline: the reference case's v1 events are not enough, so version 2 is opened fresh."""
    from casefile.app.service import CaseService
    from casefile.app.who import Who
    from casefile.store.memory import MemoryEventStore
    from tests.cli.conftest import builtin_registry

    service = CaseService(MemoryEventStore(), builtin_registry())
    service.writer.new_case("v2 baseline", "slow", case_id="v2", who=Who("bench"))
    service.writer.open_playbook("v2", "gpu-throughput@2")
    projection = service.reader.projection("v2")
    return projection, service.reader.candidates(projection)


def synthetic_30_by_40() -> tuple[object, list[Candidate]]:
    """30 hypotheses (10 top-level, 2 children each) and 40 probes of 1 to 4 rules."""
    return synthetic_case(
        "ranking bench 30x40", 20261202, (10, 0.09), (2, 0.4), 40, (1, 4), (2, 8), False
    )


def timed_status(projection: object, candidates: list[Candidate]) -> float:
    """Both rankings status shows, median of RUNS."""
    samples = []
    for _ in range(RUNS):
        joint.forget()
        start = time.perf_counter()
        rank_next_steps(projection, candidates)  # type: ignore[arg-type]
        rank_probes(projection, candidates)  # type: ignore[arg-type]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def v3_case() -> tuple[object, list[Candidate]]:
    from casefile.app.service import CaseService
    from casefile.store.casedir import read_case_dir
    from casefile.store.memory import MemoryEventStore
    from tests.cli.conftest import builtin_registry

    path = (
        Path(__file__).resolve().parents[1]
        / "cases"
        / "dev"
        / "vllm-9113-h100-pod-omp-oversubscription"
    )
    events, _ = read_case_dir(path)
    projection = project(events)
    service = CaseService(MemoryEventStore(), builtin_registry())
    return projection, service.reader.candidates(projection)


def synthetic_50_by_50() -> tuple[object, list[Candidate]]:
    """50 hypotheses (10 top-level, 4 children each: 41 leaves) and 50 probes of 8 rules."""
    return synthetic_case(
        "ranking bench 50x50x8", 20261203, (10, 0.09), (4, 0.25), 50, (8, 8), (3, 8), True
    )


def agreement(got: Sequence[ProbeStep], want: Sequence[ProbeStep]) -> None:
    """Both whole-probe rankings in the same order with the same rules, the bits of each within
    a relative 1e-9 (1e-12 bits near zero): the shipped H(O) − H(O|H) and the per-term sum
    round different terms, so they agree to about 1e-15, not to the last bit."""
    assert [(s.probe, s.rules) for s in got] == [(s.probe, s.rules) for s in want], "reordered"
    for a, b in zip(got, want, strict=True):
        for x, y in (
            (a.expected_gain_bits, b.expected_gain_bits),
            (a.leaders_gain_bits, b.leaders_gain_bits),
        ):
            assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12), (a, b)


def whole_probes_50_by_50() -> None:
    """Cold and warm whole-probe ranking against the plain arithmetic, in the same run."""
    from tests.engine.ranking_reference import reference_ranking

    projection, candidates = synthetic_50_by_50()
    fast: list[float] = []
    plain: list[float] = []
    warm: list[float] = []
    for _ in range(RUNS):
        with reference_ranking():
            start = time.perf_counter()
            expected = rank_probes(projection, candidates)  # type: ignore[arg-type]
            plain.append(time.perf_counter() - start)
        joint.forget()
        start = time.perf_counter()
        steps = rank_probes(projection, candidates)  # type: ignore[arg-type]
        fast.append(time.perf_counter() - start)
        start = time.perf_counter()
        again = rank_probes(projection, candidates)  # type: ignore[arg-type]
        warm.append(time.perf_counter() - start)
        agreement(steps, expected)
        assert repr(again) == repr(steps), "a remembered figure changed"
    cold, old, hot = (statistics.median(x) for x in (fast, plain, warm))
    outcomes = joint_outcomes(projection, candidates)
    print(
        f"whole probes, 50 hypotheses x 50 probes x 8 rules ({len(candidates)} pairs), "
        f"median of {RUNS}: cold {cold * 1000:.1f} ms (rounds {_spread(fast)}) against the "
        f"plain arithmetic's {old * 1000:.1f} ms ({old / cold:.2f}x faster); warm (same fold "
        f"again) {hot * 1000:.1f} ms (target <= 50 ms); same order, figures within 1e-9"
    )
    print(f"  joint outcomes scored (one log2 each): {outcomes:,}")


def _spread(samples: Sequence[float]) -> str:
    return f"{min(samples) * 1000:.1f}-{max(samples) * 1000:.1f}"


def versus_plain(label: str, projection: object, candidates: list[Candidate]) -> None:
    """Both rankings ``status`` shows, cold, beside the plain arithmetic in the same run."""
    from tests.engine.ranking_reference import reference_ranking

    fast: list[float] = []
    plain: list[float] = []
    warm: list[float] = []

    def both() -> tuple[list[NextStep], list[ProbeStep]]:
        return (
            rank_next_steps(projection, candidates),  # type: ignore[arg-type]
            rank_probes(projection, candidates),  # type: ignore[arg-type]
        )

    for _ in range(RUNS):
        with reference_ranking():
            start = time.perf_counter()
            expected = both()
            plain.append(time.perf_counter() - start)
        joint.forget()
        start = time.perf_counter()
        got = both()
        fast.append(time.perf_counter() - start)
        start = time.perf_counter()
        both()
        warm.append(time.perf_counter() - start)
        assert repr(got[0]) == repr(expected[0]), "a probe/rule pair's figure changed"
        agreement(got[1], expected[1])
    cold, old, hot = (statistics.median(x) for x in (fast, plain, warm))
    print(
        f"  {label}, both rankings, cold: {cold * 1000:.1f} ms against the plain "
        f"arithmetic's {old * 1000:.1f} ms ({old / cold:.2f}x faster); warm {hot * 1000:.1f} "
        f"ms; same order, pairs identical, whole probes within 1e-9"
    )


def joint_outcomes(projection: object, candidates: list[Candidate]) -> int:
    """How many joint outcomes the whole-probe ranking scores: the marginal and the log2 of
    each is what an exact figure cannot do without."""
    from casefile.domain.beliefs import joint as module

    counted: list[int] = []
    score = module._information

    def counting(
        weights: Sequence[float],
        keys: Sequence[tuple[int, ...]],
        rules: Sequence[Sequence[tuple[float, ...]]],
    ) -> float:
        counted.append(math.prod([len(columns[0]) for columns in rules]))
        return score(weights, keys, rules)

    module._information = counting
    joint.forget()
    try:
        rank_probes(projection, candidates)  # type: ignore[arg-type]
    finally:
        module._information = score
        joint.forget()
    return sum(counted)


def every_step() -> None:
    """Every step of every shipped case ranked both ways: steps whose order, or whose figures
    as shown (three decimals), differ from the plain arithmetic's."""
    from casefile.app.service import CaseService
    from casefile.store.casedir import read_case_dir
    from casefile.store.memory import MemoryEventStore
    from tests.cli.conftest import builtin_registry
    from tests.engine.ranking_reference import reference_ranking

    root = Path(__file__).resolve().parents[1]
    cases = [
        root / "casefile" / "reference" / "glm5-pcie-pivot",
        root / "cases" / "glm5-pcie-pivot-v3",
        *sorted(p for p in (root / "cases" / "dev").iterdir() if (p / "events.jsonl").is_file()),
    ]
    service = CaseService(MemoryEventStore(), builtin_registry())
    steps = reordered = shown = exact = figures = apart = 0
    widest = relative = 0.0
    for path in cases:
        events, _ = read_case_dir(path)
        projection = project(events)
        candidates = service.reader.candidates(projection)
        for step in projection.trajectory:
            joint.forget()
            got = rank_probes(projection, candidates, seq=step.seq)
            with reference_ranking():
                want = rank_probes(projection, candidates, seq=step.seq)
            steps += 1
            if [(s.probe, s.rules) for s in got] != [(s.probe, s.rules) for s in want]:
                reordered += 1
                continue
            pairs = [
                (a, b)
                for x, y in zip(got, want, strict=True)
                for a, b in (
                    (x.expected_gain_bits, y.expected_gain_bits),
                    (x.leaders_gain_bits, y.leaders_gain_bits),
                )
            ]
            figures += len(pairs)
            shown += any(f"{a:.3f}" != f"{b:.3f}" for a, b in pairs)
            exact += all(a == b for a, b in pairs)
            apart += sum(not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in pairs)
            widest = max([widest, *(abs(a - b) for a, b in pairs)])
            relative = max([relative, *(abs(a - b) / b for a, b in pairs if b >= 1e-6)])
    print(
        f"every step of {len(cases)} shipped cases: {steps} steps, {figures} whole-probe "
        f"figures; order changed at {reordered}; a figure shown to three decimals changed at "
        f"{shown}; every figure the same to the last bit at {exact}; figures beyond 1e-9 "
        f"(1e-12 bits near zero): {apart}; largest difference {widest:.1e} bits, "
        f"{relative:.1e} relative (figures of at least 1e-6 bits)"
    )


def main() -> None:
    global RUNS
    args = sys.argv[1:]
    if "--rounds" in args:
        RUNS = int(args[args.index("--rounds") + 1])
    if "--every-step" in args:
        every_step()
        return
    whole_probes_50_by_50()
    if "--only" in args:
        return
    versus_plain("gpu-throughput@3 on a development case", *v3_case())
    versus_plain("synthetic, 80 hypotheses, 12 rules per probe", *synthetic())
    projection, candidates = synthetic_30_by_40()
    small = timed_status(projection, candidates)
    old_projection, old_candidates = dev_case_v2()
    baseline = timed_status(old_projection, old_candidates)
    print(
        f"synthetic, 30 hypotheses and 40 probes ({len(candidates)} pairs), both rankings: "
        f"median {small * 1000:.1f} ms (target < 50 ms); "
        f"{small / baseline:.2f}x version 2's candidates on a case ({baseline * 1000:.1f} ms)"
    )
    v3_projection, v3_candidates = v3_case()
    real = timed_status(v3_projection, v3_candidates)
    print(
        f"gpu-throughput@3 on a development case, {len(v3_candidates)} pairs, both rankings: "
        f"median {real * 1000:.1f} ms (target < 50 ms); {real / baseline:.2f}x version 2's"
    )
    projection, candidates = synthetic()
    median = timed(projection, candidates)
    steps = rank_probes(projection, candidates)  # type: ignore[arg-type]
    print(
        f"synthetic: 80 hypotheses, {len(candidates)} probe/rule pairs, 12 rules per probe: "
        f"median {median * 1000:.1f} ms over {RUNS} runs (target < 100 ms); "
        f"best {steps[0].probe} {steps[0].expected_gain_bits:.3f} bits"
    )
    projection, candidates = dev_case_v2()
    median = timed(projection, candidates)
    print(f"gpu-throughput@2 opened fresh: {len(candidates)} pairs: median {median * 1000:.1f} ms")


if __name__ == "__main__":
    main()
