"""The action table is the one home of every action: the CLI parses exactly what an action's
command line says (``parse(argv(action)) == action`` for every row), the TUI's keys, palette
and read-only gate come from it, and errors name each front end's own control."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import pytest

from casefile.actions.case_actions import (
    Act,
    Conclude,
    Export,
    ImportCase,
    NewCase,
    Note,
    OpenPlaybook,
)
from casefile.actions.hypothesis_actions import (
    AssessEvidence,
    ProposeHypothesis,
    ProposeQuestion,
    Refine,
    Reinstate,
    Retire,
    SetPrior,
)
from casefile.actions.ingest_actions import IngestTranscript
from casefile.actions.output_actions import WriteReport
from casefile.actions.postmortem_actions import AboutPostmortem, RecordItem, WriteSection
from casefile.actions.probe_actions import RunProbe
from casefile.actions.spec import ActionSpec, argv, command_line
from casefile.actions.table import ACTIONS, BY_NAME, BY_TYPE
from casefile.actions.text import InputProblem, parse
from casefile.actions.triage_actions import AnswerIntake, RecordExperiment
from casefile.cli.action_commands import action_from, dests_for
from casefile.cli.errors import error_line
from casefile.cli.main import build_parser, parse_words
from casefile.domain.commands import REBALANCE
from casefile.errors import SEE_CASES, CaseNotFound, DomainError, Remedy
from casefile.tui.errors import error_text

#: one action per row, every option away from its default (so each flag is exercised)
EXAMPLES: list[Any] = [
    NewCase("Slow all-reduce", "27 GB/s of 48", {"gpus": "8x A40", "vm": "yes"}, "c2", "gpu"),
    Note("first line\nsecond: 1.2 GB/s"),
    Act("pinned clocks", "no change"),
    Conclude("launch-bound", "compute-launch", ("CUDA graphs", "bigger batch"), ("measure",)),
    OpenPlaybook("gpu-throughput"),
    Export("out dir"),
    ImportCase("some/dir"),
    ProposeQuestion("why slow?", "q2", 0.15),
    ProposeHypothesis("launch", "q", 0.125, "h-1", "kernels wait", True, True),
    SetPrior("h-1", 0.3, "miscounted", True),
    Refine("h-1", "launch overhead", "shorter"),
    Retire("h-1", "55% of the power limit"),
    Reinstate("h-1", "reconsidered"),
    AssessEvidence(
        {"a": 0.8, "b": 0.1234567891}, "nsys gaps", 0.3, "calculated", 0.7, 12, 13, "e3", "e9"
    ),
    WriteReport("pm.html", "html", True),
    AnswerIntake({"scaling": "worse", "platform": "VM"}),
    RecordExperiment("NCCL_P2P_DISABLE=1", 4, 7, ("nccl.busbw.large",)),
    WriteSection("went-badly", "we built on\nan unmeasured belief"),
    RecordItem("alert on tok/s", "ana", "P1", "in-progress", "OPS-12", "a2"),
    AboutPostmortem("Slow decode", ("ana", "bo"), "2026-03-09"),
    IngestTranscript("session.cast", "asciicast", None, "under-load", True, False),
    RunProbe(
        "command",
        "under-load",
        ("gpu-1", "ana@gpu-2:2222"),
        True,
        timeout=12.5,
        window=0.5,
        reconstructed=True,
        note="after the fix",
        setup="NCCL 2.22",
        facts=("tok_s=([0-9.]+) tok/s",),
        scrub=False,
        argv=("nvidia-smi", "-q", "--display=PERFORMANCE"),
    ),
]


def test_every_row_has_an_example() -> None:
    assert {type(example) for example in EXAMPLES} == set(BY_TYPE)


def _parsed(words: list[str]) -> argparse.Namespace:
    return parse_words(build_parser(), words)


def _subparser(spec: ActionSpec) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = build_parser()
    for word in spec.command:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: type(a).__name__)
def test_the_cli_parses_what_an_actions_command_line_says(action: Any) -> None:
    spec = BY_TYPE[type(action)]
    words = argv(spec, action, "c1")
    args = _parsed(words)
    assert action_from(spec, args, dests_for(_subparser(spec), spec)) == action
    if spec.on_case:
        assert args.case == "c1"


@pytest.mark.parametrize("spec", ACTIONS, ids=lambda s: s.name)
def test_each_rows_options_are_its_actions_fields(spec: ActionSpec) -> None:
    names = [o.name for o in spec.options]
    assert sorted(names) == sorted(f.name for f in dataclasses.fields(spec.action))
    assert len(set(names)) == len(names)
    parser = _subparser(spec)
    for option in spec.options:  # every flag the row names is one the command takes
        if option.flag is not None and option.kind != "words":  # words follow ``--``
            assert option.flag in parser._option_string_actions, (spec.name, option.flag)


def test_keys_are_unique_and_the_gate_comes_from_the_table() -> None:
    from casefile.tui.screens.case import CaseScreen
    from casefile.tui.screens.case_writing import WRITES, writes

    keys = [spec.key for spec in ACTIONS if spec.key is not None]
    assert len(keys) == len(set(keys))
    bound = {b.key: b.action for b in CaseScreen.BINDINGS if hasattr(b, "key")}  # type: ignore[union-attr]
    for spec in ACTIONS:
        if spec.key is not None:
            assert bound[spec.key] == f"write('{spec.name}')"
        if spec.on_case:
            assert writes("write", (spec.name,)) == spec.writes
    assert not writes("write", ("report",)) and not writes("write", ("export",))
    assert {"probe", "ingest"} <= WRITES


def test_the_palette_lists_every_case_action_with_its_key() -> None:
    from casefile.tui.app import case_commands

    rows = {action: text for _title, text, action in case_commands()}
    for spec in ACTIONS:
        if spec.on_case:
            text = rows[f"write('{spec.name}')"]
            assert text.startswith(spec.palette[1])


def test_a_report_or_export_echo_takes_no_actor() -> None:
    """Only commands that record who did it take --actor: the echoed report line must run."""
    report = command_line(BY_NAME["report"], WriteReport("pm.md"), "c1", "alice")
    assert "--actor" not in report and report.endswith("-o pm.md --format md")
    note = command_line(BY_NAME["note"], Note("x"), "c1", "alice")
    assert note.endswith("--actor alice")


@pytest.mark.parametrize(
    ("name", "given", "problem"),
    [
        ("hypothesis", {"text": "x", "under": "q", "prior": "1"}, "within (0, 1)"),
        ("hypothesis", {"text": "x", "under": "q", "prior": "lots"}, "not a number"),
        ("hypothesis", {"text": "x", "prior": "0.2"}, "'under' (a question or parent"),
        ("evidence", {"likelihoods": ["a=0.5", "a=0.6"], "because": "b"}, "given twice"),
        ("evidence", {"likelihoods": "a=0.5", "because": "b", "kind": "guessed"}, "not one of"),
        ("evidence", {"likelihoods": "a=0.5", "because": "b", "supersedes": "e1 e2"}, "give one"),
        ("experiment", {"change": "A=1", "baseline": "0", "variant": "2"}, "start at 1"),
        ("experiment", {"change": "A=1", "baseline": "3", "variant": "3"}, "same run"),
        ("report", {"path": "pm.pdf"}, "md, html or json"),
        ("report", {"path": "pm.md", "redact": "maybe"}, "yes or no"),
    ],
)
def test_one_set_of_input_rules_for_every_front_end(
    name: str, given: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse(BY_NAME[name], given)


def test_an_input_problem_names_its_option() -> None:
    with pytest.raises(InputProblem) as caught:
        parse(BY_NAME["hypothesis"], {"text": "x", "under": "q", "prior": "2"})
    assert caught.value.option.flag == "--prior"


def test_a_remedy_is_a_flag_on_the_cli_and_a_field_on_the_tui() -> None:
    refused = DomainError("prior 0.5 is larger than the catch-all has left", remedy=REBALANCE)
    assert error_line(refused).endswith(
        "; --rebalance scales the other hypotheses down in proportion to make room"
    )
    shown = error_text(refused)
    assert "--" not in shown and "“Rebalance”" in shown
    forced = DomainError("priors after evidence", remedy=Remedy("changes them anyway", "force"))
    assert "--force" in error_line(forced) and "--" not in error_text(forced)
    missing = CaseNotFound("no case 'x'", remedy=SEE_CASES)
    assert error_line(missing) == "no case 'x' (see `casefile cases`)"
    assert "casefile" not in error_text(missing) and "case list" in error_text(missing)


@pytest.mark.parametrize("spec", [s for s in ACTIONS if any(o.form for o in s.options)])
def test_a_form_shows_defaults_typed_in_and_examples_as_examples(spec: ActionSpec) -> None:
    """A grey hint is never mistaken for a default: hints read "e.g. …", and a default is
    typed into its field, so accepting a form as shown does what it shows."""
    from casefile.tui.dialogs.actions import build_from, fields_of, shown_default

    fields = {f.name: f for f in fields_of(spec, {})}
    for option in spec.options:
        if not option.form:
            continue
        field = fields[option.name]
        assert field.placeholder == "" or field.placeholder.startswith("e.g. "), field
        assert field.value == shown_default(option)
        if option.default not in (None, (), {}):
            assert field.value != "", option.name  # a default is shown as typed
    if not any(o.required for o in spec.options):  # a form of defaults alone is valid
        assert build_from(spec)({f.name: f.value for f in fields.values()}) == spec.build({})


def test_the_report_dialogs_file_is_an_example_not_a_default() -> None:
    from casefile.actions.table import BY_NAME
    from casefile.tui.dialogs.actions import fields_of

    path, fmt, redact = fields_of(BY_NAME["report"], {})
    assert (path.placeholder, path.value) == ("e.g. postmortem.html", "")
    assert (fmt.value, redact.value) == ("", "no")


def test_a_dialog_that_records_nothing_does_not_say_record() -> None:
    from casefile.tui.dialogs.actions import dialog

    assert dialog("note", case_id="c1", actor="a").confirm_label == "Record"
    assert dialog("report", case_id="c1", actor="a").confirm_label == "Write"
    assert dialog("export", case_id="c1", actor="a").confirm_label == "Write"
