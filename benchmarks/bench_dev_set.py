"""What the playbook makes of the development set (cases/dev), case by case.

Figures: whether the known root cause leads at the end, and the mean log2 of the probability
it ends with (a proper score: it rewards a root cause held at 60 % over one that scrapes a
lead at 20 %, and punishes one held at 1 %, which "leads" counts alike); whether the first
suggestion after intake bears on it (a likelihood ratio of at least 2, or at most ½, between
the root cause and the leader then); and, for the cases whose deciding steps were named
before their first evaluation, whether that first suggestion is one of them.

    .venv/bin/python benchmarks/bench_dev_set.py [--deciding [--ab-cost COST]]

``--deciding`` says instead, for each case whose deciding steps were named, where the best of
them stands among the next steps right after intake, beside the root cause's place among the
leaves then and the three leaders: how far the first-suggestion figure is from each case.
``--ab-cost`` ranks every A/B at one cost instead of its own: a what-if on how much of that
distance is the A/Bs' cost (little: most deciding A/Bs test a hypothesis that does not lead
after intake).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.triage.devset import case_dirs, deciding_rank, evaluate


def deciding(ab_cost: str | None = None) -> None:
    """Where each case's best deciding step stands after intake."""
    print(
        f"{'case':<38} {'root cause':<19} {'root #':>6}  {'best deciding step':<30} "
        f"{'#':>3}  {'first step':<22} leaders after intake"
    )
    places: list[int] = []
    for path in case_dirs():
        found = deciding_rank(path, ab_cost)
        if found is None:
            continue
        place, step = found.best if found.best is not None else (0, "(not offered)")
        if found.best is not None:
            places.append(place)
        leaders = ", ".join(f"{k} {p:.0%}" for k, p in found.leaders)
        print(
            f"{found.slug[:38]:<38} {found.root_cause:<19} {found.root_rank:>6}  "
            f"{step[:30]:<30} {place or '-':>3}  {found.first[:22]:<22} {leaders}"
        )
    named = sum(1 for path in case_dirs() if deciding_rank(path, ab_cost) is not None)
    within = {n: sum(1 for p in places if p <= n) for n in (1, 3, 10)}
    print(
        f"\n{named} cases name their deciding steps; one of them is offered in {len(places)}, "
        f"first in {within[1]}, in the first 3 in {within[3]}, in the first 10 in {within[10]}; "
        f"median place {statistics.median(places) if places else 0:g}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deciding", action="store_true", help=deciding.__doc__)
    parser.add_argument(
        "--ab-cost",
        choices=("instant", "cheap", "moderate", "expensive"),
        help="with --deciding: rank every A/B at this cost (a what-if, not the playbook's)",
    )
    args = parser.parse_args()
    if args.deciding:
        deciding(args.ab_cost)
        return
    results = [evaluate(path) for path in case_dirs()]
    print(
        f"{'case':<38} {'root cause':<19} {'at the end':<20} {'conf':>6} {'#':>2}  "
        f"{'first suggestion after intake':<42} {'vs':<19} {'LR':>5} bears  "
        f"{'best whole probe':<20} {'LR':>5} bears  decides"
    )
    for r in results:
        first = f"{r.first_probe} ({r.first_rule})"
        print(
            f"{r.slug:<38} {r.root_cause:<19} {r.final_leaf:<20} {r.root_confidence:>6.1%} "
            f"{r.rank:>2}  {first[:42]:<42} {r.compared_with[:19]:<19} {r.ratio:>5.2f} "
            f"{'yes' if r.bears else 'no ':<5}  {r.best_probe[:20]:<20} {r.best_ratio:>5.2f} "
            f"{'yes' if r.best_bears else 'no ':<5}  "
            f"{('yes' if r.decides else 'no') if r.deciding else ''}"
        )
    leads = sum(r.leads for r in results)
    bears = sum(r.bears for r in results)
    best = sum(r.best_bears for r in results)
    n = len(results)
    named = [r for r in results if r.deciding]
    decides = sum(r.decides for r in named)
    print(
        f"\nroot cause leads at the end: {leads}/{n}; the first suggestion bears on it: "
        f"{bears}/{n} ({bears / n:.0%}) on the probe + rule list, {best}/{n} ({best / n:.0%}) "
        "on the whole-probe ranking"
    )
    print(
        f"the first suggestion after intake is a step that decided the thread: {decides}/"
        f"{len(named)} of the cases whose deciding steps were named"
    )
    score = statistics.fmean(math.log2(max(r.root_confidence, 1e-12)) for r in results)
    median = statistics.median(r.root_confidence for r in results)
    print(f"the root cause's probability at the end: mean log2 {score:.3f} (median {median:.1%})")
    outweighed = [r.slug for r in results if r.outweighed_by_a_class]
    print(
        f"beside it, not counted: the root cause is the likeliest single leaf but a class of "
        f"several leaves leads in {len(outweighed)}/{n}: {', '.join(outweighed) or 'none'}"
    )


if __name__ == "__main__":
    main()
