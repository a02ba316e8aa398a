"""What the playbook makes of the development set (cases/dev), case by case.

Figures: whether the known root cause leads at the end; whether the first suggestion after
intake bears on it (a likelihood ratio of at least 2, or at most ½, between the root cause and
the leader then); and, for the cases whose deciding steps were named before their first
evaluation, whether that first suggestion is one of them.

    .venv/bin/python benchmarks/bench_dev_set.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.triage.devset import case_dirs, evaluate


def main() -> None:
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
    outweighed = [r.slug for r in results if r.outweighed_by_a_class]
    print(
        f"beside it, not counted: the root cause is the likeliest single leaf but a class of "
        f"several leaves leads in {len(outweighed)}/{n}: {', '.join(outweighed) or 'none'}"
    )


if __name__ == "__main__":
    main()
