"""Encode the development set (``cases/dev/material/*.json``) as cases, through the CLI.

Each public investigation is lived as a user would live it with casefile: open a case from
``gpu-throughput@3`` with the environment the thread states, answer the intake questions the
thread answers, paste each output the thread shows (with its command and load), state each
reading the thread gives in words with its values as the probe's facts (``probe --stated``),
record the A/B the thread ran, write the maintainers' and reporters' findings as notes, and
conclude with the
known root cause. Every evidence event comes from a rule (probe, intake or experiment rules):
nothing here types a likelihood. Times are illustrative (the threads' own dates are not kept
in the material); they keep the threads' order, and each event and pasted run is recorded at
its step's time, so building a case twice gives the same bytes.

Run from the repository root::

    python cases/_build/build_dev_cases.py [SLUG ...]       # writes cases/dev/<slug>/

and see ``benchmarks/bench_dev_set.py`` for what the playbook makes of them.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MATERIAL = ROOT / "cases" / "dev" / "material"
OUTPUT = ROOT / "cases" / "dev"
PLAYBOOK = "gpu-throughput@3"
ACTOR = "responder"
#: command lines a thread shows only in words ("all_reduce_perf, 4 GB message …")
_NOT_A_COMMAND = ("(", ", ", "exact command", "not shown")
#: probes with no command of their own (what ran is the user's program): a paste needs one
_NO_DEFAULT_COMMAND = ("command", "torch-profiler", "app-log")


class Clock:
    """Illustrative times, four minutes apart, in the thread's order."""

    def __init__(self) -> None:
        self.minute = 0

    def __call__(self) -> str:
        self.minute += 4
        hours, minutes = divmod(self.minute, 60)
        return f"2026-01-05T{9 + hours:02d}:{minutes:02d}:00Z"


class CommandFailed(RuntimeError):
    pass


def casefile(*args: str) -> str:
    """Run one ``casefile`` command in this process; its standard output, or raise.

    What it writes is recorded at the command's own ``--at`` (the story's time), not at the
    moment the builder runs, so a rebuild writes the same bytes (see :func:`pinned_clock`)."""
    from casefile.cli.main import main

    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err), pinned_clock(_at_of(args)):
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    if code not in (0,):
        raise CommandFailed(f"casefile {shlex.join(args)}: exit {code}: {err.getvalue().strip()}")
    return out.getvalue()


#: the time the last command that gave one was recorded at: a command without ``--at``
#: (export, log) writes nothing of its own, and is pinned to it all the same
_last_at: list[str] = ["2026-01-05T09:00:00.000000Z"]


def _at_of(args: tuple[str, ...]) -> str:
    """The command's ``--at`` in the form the store writes times, else the last one given."""
    from datetime import datetime

    from casefile.domain.events import format_time

    if "--at" in args[:-1]:
        given = args[args.index("--at") + 1]
        _last_at[0] = format_time(datetime.fromisoformat(given.replace("Z", "+00:00")))
    return _last_at[0]


@contextmanager
def pinned_clock(moment: str) -> Iterator[None]:
    """The database stamps each write with the time it is recorded; a builder's cases are
    recorded when the story says, so building twice gives the same bytes."""
    from unittest import mock

    with mock.patch("casefile.store.sql.utc_now", lambda: moment):
        yield


@contextmanager
def database() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="casefile-dev-") as scratch:
        old = os.environ.get("CASEFILE_DB")
        os.environ["CASEFILE_DB"] = f"sqlite:///{Path(scratch) / 'dev.db'}"
        try:
            yield Path(scratch)
        finally:
            if old is None:
                os.environ.pop("CASEFILE_DB", None)
            else:
                os.environ["CASEFILE_DB"] = old


def command_words(step: dict[str, Any]) -> list[str]:
    line = str(step.get("command") or "").strip()
    if not line or any(mark in line for mark in _NOT_A_COMMAND):
        return []
    try:
        return shlex.split(line)
    except ValueError:
        return []


def encode(material: dict[str, Any], scratch: Path) -> str:
    """One investigation as CLI commands; the case id."""
    at = Clock()
    slug = str(material["slug"])
    who = ["--actor", ACTOR]
    env = [f"{k}={v}" for k, v in sorted(material.get("environment", {}).items())]
    casefile(
        "new", str(material["title"]), "--id", slug, "--symptom", str(material["symptom"]),
        "--playbook", PLAYBOOK, *[w for e in env for w in ("--env", e)], "--at", at(), *who,
    )  # fmt: skip
    casefile("note", slug, f"Source: {material['url']}", "--at", at(), *who)
    answers = [f"{k}={v}" for k, v in material.get("intake", {}).items()]
    casefile("intake", slug, *[w for a in answers for w in ("--answer", a)], "--at", at(), *who)
    seqs: dict[int, int] = {}
    for index, step in enumerate(material["steps"]):
        kind = step["kind"]
        # an A/B the thread tells again (its closing "that fixed it"): the earlier telling's
        # experiment id, so the one finding counts once
        retold = ["--restates", str(step["restates"])] if step.get("restates") else []
        if kind == "note":
            casefile("note", slug, str(step["text"]), "--at", at(), *who)
        elif kind == "paste":
            path = scratch / f"{slug}-{index}.txt"
            path.write_text(str(step["output"]), encoding="utf-8")
            load = step.get("load") or "unknown"
            note = str(step.get("said") or "")
            if step.get("excerpt_cut"):
                note += " (the thread's paste is longer: cut where the excerpt ends)"
            words = command_words(step)
            if not words and step["probe"] in _NO_DEFAULT_COMMAND:
                # the thread shows the output but not the command: say so rather than guess
                words = ["(command not shown in the thread)"]
            when = at()  # the paste was taken when the story records it
            args = [
                "probe", slug, str(step["probe"]), "--paste", str(path), "--load", load,
                "--host", str(step.get("host") or "gpu-box"), "--note", note.strip() or "pasted",
                "--taken-at", when, "--at", when, *who, "--json",
            ]  # fmt: skip
            if step.get("setup"):
                # the old version, the fix, a subset of GPUs: kept to compare, not the state
                args += ["--setup", str(step["setup"])]
            before = _probe_runs(slug)
            try:
                casefile(*args, *(["--", *words] if words else []))
            except CommandFailed as failed:
                if "exit 1" not in str(failed) or _probe_runs(slug) == before:
                    raise  # exit 1 with a new run: recorded, but the output did not parse
            seqs[index] = _probe_runs(slug)[-1]
        elif kind == "stated":
            # a reading the thread states in words (no output shown): the facts the probe
            # would give, read by the rules as reported evidence; the thread's words are its note
            facts = [f"{name}={value}" for name, value in step["facts"].items()]
            when, host = at(), str(step.get("host") or "gpu-box")
            casefile(
                "probe", slug, str(step["probe"]), *[w for f in facts for w in ("--stated", f)],
                "--load", step.get("load") or "unknown", "--host", host,
                "--note", str(step["said"]), "--taken-at", when, "--at", when, *who, "--json",
            )  # fmt: skip
            seqs[index] = _probe_runs(slug)[-1]
        elif kind == "experiment":
            # the figure compared: the step's, else an application log's throughput (what a
            # rule would compare had one read the change)
            metric = step.get("metric") or ("throughput" if step.get("probe") == "app-log" else "")
            casefile(
                "experiment", slug, "--change", str(step["change"]),
                "--baseline", str(seqs[int(step["baseline_step"])]),
                "--variant", str(seqs[int(step["variant_step"])]),
                *(["--metric", str(metric)] if metric else []), *retold, "--at", at(), *who,
            )  # fmt: skip
        elif kind == "reported-experiment":
            # figures the thread states in words: a reported experiment, reported evidence
            extra = ["--metric", str(step["metric"])] if step.get("metric") else []
            casefile(
                "experiment", slug, "--change", str(step["change"]),
                "--reported", f"{step['baseline_value']}:{step['variant_value']}",
                "--probe", str(step["probe"]), "--unit", str(step.get("unit") or ""),
                "--note", str(step.get("said") or ""), *extra, *retold, "--at", at(), *who,
            )  # fmt: skip
        elif kind == "worded-experiment":
            # an A/B the thread states without figures ("that setting fixed it")
            casefile(
                "experiment", slug, "--change", str(step["change"]),
                "--outcome", str(step["outcome"]), "--note", str(step.get("said") or ""),
                *retold, "--at", at(), *who,
            )  # fmt: skip
        else:
            raise SystemExit(f"{slug}: step {index}: unknown kind {kind!r}")
    casefile(
        "conclude", slug, str(material["root_cause"]), "--root-cause",
        str(material["root_cause_class"]), "--at", at(), *who,
    )  # fmt: skip
    return slug


def _probe_runs(slug: str) -> list[int]:
    events = json.loads(casefile("log", slug, "--json"))
    return [int(e["seq"]) for e in events if e["type"] == "probe.ran"]


def build(slugs: list[str], output: Path = OUTPUT) -> list[str]:
    """Encode the chosen cases (all when ``slugs`` is empty) into ``output``/<slug>."""
    files = sorted(MATERIAL.glob("*.json"))
    chosen = [f for f in files if not slugs or f.stem in slugs]
    built = []
    for path in chosen:
        material = json.loads(path.read_text(encoding="utf-8"))
        with database() as scratch:
            slug = encode(material, scratch)
            target = output / slug
            if target.exists():
                shutil.rmtree(target)
            casefile("export", slug, str(target))
        built.append(slug)
        print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)
    return built


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    build(sys.argv[1:])
