"""Benchmark what a responder waits for: the CLI's commands and the service's reads on big cases.

Every figure is a ratio to a baseline measured in the same run, alternating round by round
with casefile, so that noise on a shared machine hits both alike (median of ``--rounds``):

note     ``casefile note CASE TEXT`` (the installed CLI, a subprocess) on a 100,000-event case
         vs on a 10-event case in the same database. Target ≤ 1.3×: case size must not matter.
status   ``casefile status CASE`` on a 50,000-event case with a warm snapshot vs ``status`` of
         the 68-event reference case (``casefile/reference/glm5-pcie-pivot``, imported with
         ``casefile import``) in the same database. Target ≤ 1.3×. Also: the lines status
         prints on the big case (target < 200).
cold     In process, snapshots dropped first:
         ``CaseService(SqlEventStore(url)).reader.status(case)``
         on a fresh service vs a raw ``sqlite3`` fetch of the same rows + ``json.loads`` of each
         payload into a list of tuples (fresh connection). Target ≤ 2×. The raw read runs with
         the cyclic GC paused, as ``store.load`` and ``project`` pause it around their own
         loops, and ends with the young-generation pass that pausing defers (``gc.collect(0)``,
         see ``fold``), which casefile's status pays inside; the same read with the GC on is
         shown beside it (on 100,000 rows it costs as much as casefile's load + fold).
refresh  In process: ``CaseSession.refresh()`` of a session held open on a 100,000-event case
         after another store object appended one note vs the session store's own
         ``load(case, after=seq - 1)`` of that event, each timed as the first read after the
         commit (the other reads second; roles alternate). Target ≤ 2×.
fold     In process: ``project(store.load(case))`` of 100,000 events in the reference-case mix
         (``bench_engine.synthetic_case``: 28 % evidence, 50 hypotheses in 3 questions) vs the
         raw read of ``cold`` on the same rows. Target ≤ 2×. Both timings end with
         ``gc.collect(0)``: a paused GC leaves one young-generation pass over everything built
         to the next allocation, which the caller pays (shown without it beside). And the
         peak traced memory (tracemalloc) of load + fold vs that of the raw decoded rows.
         Target ≤ 1.5×.
help     ``casefile --help`` vs ``python -c pass`` with the same interpreter. Target ≤ 6×.
replay   ``casefile replay CASE --json > /dev/null`` on a 10,000-event case vs a cold
         ``casefile status CASE`` (snapshots dropped) of it. Target ≤ 1.5×.

Each figure is its own script, ``bench_cmd_<figure>.py``, runnable alone with the same options;
the cases, the measuring and the report are ``commands_harness.py``. The synthetic cases are
``bench_engine.synthetic_case`` streams resealed with their own case id and a real hash chain;
their probe runs point at one real artifact. They are built once into a SQLite file cached in
the temp directory (``--cache-dir``, ``--rebuild``; never in the repo) and every figure works on
a fresh copy of it.

Run: ``.venv/bin/python benchmarks/bench_commands.py [--quick] [--rounds 5] [--only note,help]``
(``--profile FIGURE`` prints the top cProfile entries of casefile's side of that figure).
Prints a table, then one JSON line (also written to ``--json``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_cmd_cold import fig_cold
from benchmarks.bench_cmd_fold import fig_fold
from benchmarks.bench_cmd_help import fig_help
from benchmarks.bench_cmd_note import fig_note
from benchmarks.bench_cmd_refresh import fig_refresh
from benchmarks.bench_cmd_replay import fig_replay
from benchmarks.bench_cmd_status import fig_status
from benchmarks.commands_run import Runner, run_figures

#: every figure, in the order they run
RUNNERS: dict[str, Runner] = {
    "note": fig_note,
    "status": fig_status,
    "cold": fig_cold,
    "refresh": fig_refresh,
    "fold": fig_fold,
    "help": fig_help,
    "replay": fig_replay,
}

if __name__ == "__main__":
    sys.exit(
        run_figures(
            RUNNERS, __doc__.splitlines()[0], Path(__file__).with_name("bench_commands.json")
        )
    )
