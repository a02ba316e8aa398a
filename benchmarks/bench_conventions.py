"""What the CLI conventions cost: times shown with their zone, and the completion helper.

(a) Rendering a 20,000-event log: ``render_log`` in UTC and in a local zone (``TZ`` set to
Europe/Paris: each instant converted with the zone's rules), against the renderer as it was,
which cut the stored string (``when[:16]``) and showed no zone, timed in the same process.
(b) Printing that log through ``say`` (terminal-safe, colour check, encoding fit) into a
UTF-8 ``StringIO``-like stream, with and without colour enabled, against ``say`` as it was
(``print(terminal_safe(text))``).
(c) ``casefile __complete probes ''`` (what a Tab on a probe name runs) and
``casefile __complete cases ''`` on a 200-case SQLite database, against ``python -c pass``
and ``casefile --version``, each a fresh interpreter.

Medians of interleaved runs. Prints a table, then one JSON line. Run:
``python benchmarks/bench_conventions.py [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casefile.app.views import LogRow  # noqa: E402
from casefile.cli import colour  # noqa: E402
from casefile.cli.render import LOCAL, render_log  # noqa: E402
from casefile.cli.terminal import one_line, say, terminal_safe  # noqa: E402

EVENTS = 20_000


def rows() -> list[LogRow]:
    out = []
    for seq in range(1, EVENTS + 1):
        when = f"2026-03-{1 + seq % 28:02d}T{seq % 24:02d}:{seq % 60:02d}:00.000000Z"
        out.append(LogRow(seq, when, when, None, "alice", "note", f"note: step {seq}", "0" * 64))
    return out


def old_render(log: list[LogRow]) -> str:
    """The renderer before times carried their zone (the baseline)."""
    lines = [one_line("Case c: t")]
    for row in log:
        when = row.when[:16].replace("T", " ")
        lines.append(one_line(f"#{row.seq:<4} {when}  {row.actor:<9} {row.summary}"))
    return "\n".join(lines)


def median_s(job: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        job()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class Utf8Sink(io.StringIO):
    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def isatty(self) -> bool:
        return True


def subprocess_s(argv: list[str], env: dict[str, str], repeat: int) -> float:
    def job() -> None:
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)

    return median_s(job, repeat)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    log = rows()
    figures: dict[str, float] = {}

    os.environ["TZ"] = "Europe/Paris"
    time.tzset()
    baseline = utc = local = 0.0
    samples: dict[str, list[float]] = {"old": [], "utc": [], "local": []}
    for _ in range(repeat):  # interleaved
        samples["old"].append(median_s(lambda: old_render(log), 1))
        samples["utc"].append(median_s(lambda: render_log(log, "t", "c"), 1))
        samples["local"].append(median_s(lambda: render_log(log, "t", "c", zone=LOCAL), 1))
    baseline, utc, local = (statistics.median(samples[k]) for k in ("old", "utc", "local"))
    figures |= {"render_old_ms": baseline * 1e3, "render_utc_ms": utc * 1e3}
    figures |= {"render_local_ms": local * 1e3}
    figures |= {"render_utc_ratio": utc / baseline, "render_local_ratio": local / baseline}

    text = render_log(log, "t", "c", zone=LOCAL)
    sink = Utf8Sink()
    printed = median_s(lambda: print(terminal_safe(text), file=sink), repeat)
    said = median_s(lambda: say(text, file=sink), repeat)  # type: ignore[arg-type]
    colour.enable([sink])  # type: ignore[list-item]
    coloured = median_s(lambda: say(text, file=sink), repeat)  # type: ignore[arg-type]
    colour.enable([])
    figures |= {"print_ms": printed * 1e3, "say_ms": said * 1e3, "say_colour_ms": coloured * 1e3}
    figures |= {"say_ratio": said / printed, "say_colour_ratio": coloured / printed}

    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/bench.db"
        env = {**os.environ, "CASEFILE_DB": db, "PYTHONPATH": str(REPO), "XDG_CONFIG_HOME": tmp}
        from casefile.app.opening import open_service
        from casefile.plugins import Registry

        with open_service(db, Registry()) as service:
            for n in range(200):
                service.writer.new_case(f"case {n}", case_id=f"case-{n:03d}")
        py = sys.executable
        start = subprocess_s([py, "-c", "pass"], env, repeat)
        version = subprocess_s([py, "-m", "casefile", "--version"], env, repeat)
        probes = subprocess_s([py, "-m", "casefile", "__complete", "probes", ""], env, repeat)
        cases = subprocess_s([py, "-m", "casefile", "__complete", "cases", ""], env, repeat)
    figures |= {"python_ms": start * 1e3, "version_ms": version * 1e3}
    figures |= {"complete_probes_ms": probes * 1e3, "complete_cases_ms": cases * 1e3}
    figures |= {"complete_probes_over_version": probes / version}
    figures |= {"complete_cases_over_version": cases / version}

    for key, value in figures.items():
        print(f"{key:<32} {value:10.3f}")
    print(json.dumps({k: round(v, 4) for k, v in figures.items()}))


if __name__ == "__main__":
    main()
