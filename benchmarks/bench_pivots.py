"""Issue 21's third figure on the development set (cases/dev): is a pivot flagged within one
step of where the people in the thread changed their minds (cases/dev/PIVOTS.md)?

For each case the thread's labelled step (or none), the material steps where casefile's leader
changed (◆; ``-1`` is intake), where the pivot led, and whether one falls within one step.

    .venv/bin/python benchmarks/bench_pivots.py [--at REV]

``--at REV`` measures the development set as committed at REV (``git archive``), not the
working tree's, which others may be rebuilding.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.triage.devset import DEV, ROOT
from tests.triage.pivots import TOLERANCE, PivotResult, evaluate_all, figure


def _steps(result: PivotResult) -> str:
    return ", ".join(
        f"{step} -> {'/'.join(path)}"
        for step, path in zip(result.flagged, result.towards, strict=True)
    )


def committed(rev: str, into: Path) -> Path:
    """``cases/dev`` as committed at ``rev``, unpacked under ``into``."""
    tree = subprocess.run(
        ["git", "archive", rev, str(DEV.relative_to(ROOT))],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(tree)) as archive:
        archive.extractall(into, filter="data")
    return into / DEV.relative_to(ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", metavar="REV", help="measure cases/dev as committed at REV")
    args = parser.parse_args()
    if args.at:
        with tempfile.TemporaryDirectory(prefix="casefile-pivots-") as scratch:
            report(evaluate_all(committed(args.at, Path(scratch))), args.at)
    else:
        report(evaluate_all(), "the working tree")


def report(results: list[PivotResult], where: str) -> None:
    print(f"cases/dev at {where}")
    labelled = [r for r in results if r.labelled is not None]
    print(f"{'case':<52} {'thread':>6}  {'within':<6}  casefile's pivots (step -> new leader)")
    for r in labelled:
        print(f"{r.slug:<52} {r.labelled:>6}  {'yes' if r.within else 'no':<6}  {_steps(r)}")
    hits, total = figure(results)
    moved = sum(r.within_moved for r in labelled)
    to_root = sum(r.within_to_root for r in labelled)
    quiet = [r for r in results if r.labelled is None]
    loud = [r for r in quiet if any(step >= 0 for step in r.flagged)]
    print(
        f"\npivot flagged within {TOLERANCE} step of where the thread changed its mind: "
        f"{hits}/{total}; the leading leaf moved there (◆ or ◇): {moved}/{total}; "
        f"a pivot there leads to the root cause the thread ended on: {to_root}/{total}"
    )
    print(
        f"threads that did not change their minds with a pivot on one of their steps: "
        f"{len(loud)}/{len(quiet)}"
    )


if __name__ == "__main__":
    main()
