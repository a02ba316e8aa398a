"""``casefile intake`` and ``casefile experiment``: what you know, and what one change did.

``intake`` (:mod:`casefile.cli.intake_commands`) asks the case's playbook questions about the
symptom's shape. ``experiment`` records an A/B of one benchmark — two recorded runs, both run
here with an environment change, figures someone states, or an outcome in words — and the
evidence the playbook's rule (or the generic table, for ``--tests``) gives it;
``experiment rules`` lists the changes each rule reads.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from casefile.cli import intake_commands
from casefile.cli.parsing import event_seq, who, who_and_when
from casefile.cli.terminal import say, say_json, terminal_safe
from casefile.errors import CasefileError

if TYPE_CHECKING:
    from casefile.app.experiments import ExperimentOutcome

#: the words --outcome takes (casefile.domain.triage.STATED_OUTCOMES, held equal by a test)
STATED = ("fixed", "better", "same", "worse")
#: how many times the direction question is asked before the A/B is recorded unread
_ASKS = 3
#: the answers to "is higher better?": yes and higher, no and lower
_WAYS = {"y": True, "yes": True, "higher": True, "h": True}
_WAYS |= {"n": False, "no": False, "lower": False, "l": False}
#: what --reported takes: two figures, each with the unit or neither, between ':', '->' or '→'
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?"
_FIGURE = re.compile(rf"\s*(?P<number>{_NUMBER})\s*(?P<unit>(?:[^\d.,\s].*?)?)\s*")
_BETWEEN = re.compile(r"\s*(?:->|→|:)\s*")
#: an environment assignment an experiment can apply itself (``NCCL_P2P_DISABLE=1``)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


def _hypotheses(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r}: name hypotheses, e.g. acs-iommu,p2p-policy")
    return names


def _figures(text: str) -> tuple[float, float, str | None]:
    """``--reported``: the baseline's and the variant's figures, and the unit written with
    both (``27 tok/s:48 tok/s``, ``10s -> 5s``; ``1,200:2,400`` in groups of thousands); a
    unit written once, or two units, is refused with the form that says it."""
    import math

    from casefile.domain.units import normal_unit

    parts = _BETWEEN.split(text.strip(), maxsplit=1)
    figures = [_FIGURE.fullmatch(part) for part in parts] if len(parts) == 2 else []
    units = {normal_unit(f["unit"]) for f in figures if f is not None}
    values = [float(f["number"].replace(",", "")) for f in figures if f is not None]
    if len(values) != 2 or len(units) != 1 or not all(math.isfinite(v) and v > 0 for v in values):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give the baseline's and the variant's figures as BASELINE:VARIANT "
            "(positive numbers), the unit apart: --reported 27:48 --unit tok/s"
        )
    unit = next(f["unit"] for f in figures if f is not None)
    return values[0], values[1], unit or None


def _outcome(text: str) -> str:
    """``--outcome``: one of the words, in any case, or a word the domain takes for one
    ("faster" is better, "no change" same); figures or a sentence are refused with where
    they go instead."""
    from casefile.domain.triage import STATED_SYNONYMS

    word = " ".join(text.casefold().split())
    if word in STATED:
        return word
    if word in STATED_SYNONYMS:
        return STATED_SYNONYMS[word]
    if re.search(r"[0-9]", word):
        raise argparse.ArgumentTypeError(
            f"{text!r}: --outcome is a word; give figures with --reported (2x faster: "
            "--reported 1:2)"
        )
    also = ", ".join(STATED_SYNONYMS)
    raise argparse.ArgumentTypeError(
        f"invalid choice: {text!r}: say {', '.join(STATED)} (also: {also}); what was said "
        "besides goes in --note"
    )


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    intake_commands.register(sub, common)

    e = sub.add_parser(
        "experiment",
        parents=[common, who_and_when()],
        help="record an A/B: two runs of one benchmark that differ in one stated change",
        usage="casefile experiment CASE --change TEXT (--baseline SEQ --variant SEQ | "
        "--run PROBE [-- COMMAND ARG…] | --reported BASELINE:VARIANT [--probe P] | "
        "--outcome fixed|better|same|worse) [options]\n"
        "       casefile experiment rules [CASE | --playbook NAME[@VERSION]] [--json]",
        description="Record an A/B; or, as `experiment rules`, list the experiment rules: the "
        "changes each reads (its pattern in words, with examples), the metric, the probes.",
    )
    e.add_argument(
        "case", help="case id, unique prefix, or case directory; or `rules` to list the rules"
    )
    e.add_argument("rules_case", nargs="?", metavar="CASE", help="with rules: this case's rules")
    e.add_argument(
        "--playbook",
        metavar="NAME[@VERSION]",
        help="with rules: this playbook's rules (default: each installed playbook's newest)",
    )
    e.add_argument("--change", help="the one change (NCCL_P2P_DISABLE=1, iommu=pt)")
    e.add_argument("--baseline", type=event_seq, metavar="SEQ", help="the run without the change")
    e.add_argument("--variant", type=event_seq, metavar="SEQ", help="the run with the change")
    e.add_argument(
        "--run",
        metavar="PROBE",
        help="run both here: the command after -- as is, then with the change's environment",
    )
    e.add_argument(
        "--reported",
        type=_figures,
        metavar="BASELINE:VARIANT",
        help="figures stated rather than measured here (e.g. 27:48 from a thread; also "
        "27->48, 1,200:2,400, or 27 tok/s:48 tok/s with the unit on both): recorded as a "
        "reported experiment, its evidence as reported",
    )
    e.add_argument(
        "--outcome",
        type=_outcome,
        metavar="{fixed,better,same,worse}",
        help="the result in words, no figures: fixed, better, same or worse (also: faster, "
        'slower, "no change", unchanged; any case); recorded as a reported experiment. A '
        'thread\'s "fixed by that setting" is fixed, "no slowdown since" same (the words '
        "themselves go in --note); fixed or better reads as faster, fixed as a large gain (the "
        "change took the trouble away)",
    )
    e.add_argument(
        "--probe",
        help="with --reported: the benchmark the figures came from (default: the one the "
        "reading rule measures that unit with: a bandwidth by nccl-tests, tokens/s or s/step by "
        "the application's command); with --outcome: the benchmark it was seen on, if any (only "
        "its rules read it)",
    )
    e.add_argument(
        "--unit",
        help="the figures' unit (GB/s, tokens/s, s/step): with --reported, or for a compared "
        "fact that has none; a duration is better lower, a rate higher",
    )
    e.add_argument(
        "--direction",
        choices=("higher", "lower"),
        help="which way is better for the figures, whatever the unit or the rule says",
    )
    e.add_argument("--load", default="unknown", help="load state of both runs (with --run)")
    e.add_argument("--timeout", type=float, help="seconds per run (with --run)")
    e.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="FACT",
        help="the fact to compare (default: the rule's; figures stated with --reported are "
        "named by their unit: time, tokens_per_s, throughput or figure; repeatable, first "
        "found wins); one the rule does not measure, with no unit, is read by its name "
        "(step_time lower, tokens_per_s higher) or asked",
    )
    e.add_argument("--rule", metavar="ID", help="the experiment rule to apply (default: by change)")
    e.add_argument(
        "--tests",
        action="append",
        type=_hypotheses,
        default=[],
        metavar="HYP[,HYP…]",
        help="the hypotheses this change tests: read by a generic table (they predict faster, "
        "the others no change) as rule experiment.named, instead of the playbook's rule",
    )
    e.add_argument(
        "--restates",
        metavar="EXPERIMENT",
        help="an earlier experiment (x3) this one tells again, as a thread's closing 'fixed by "
        "it' retells an A/B: its evidence replaces that one's, so the finding counts once (a "
        "person's retelling of a measured A/B is read by nothing: the measurement stands); "
        "two runs already compared are read again with it, or by another --direction or "
        "--metric, the new reading replacing the old",
    )
    e.add_argument("--note", help="a remark stored with the experiment")
    e.add_argument("--json", action="store_true", help="what was recorded as JSON")
    e.set_defaults(argv=[])
    e.set_defaults(handler=cmd_experiment)


# --- experiments ---------------------------------------------------------------------------------


def cmd_experiment(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    if args.case == "rules" and args.change is None:
        return _rules(args)
    if args.rules_case is not None:
        raise CasefileError(f"unexpected {args.rules_case!r}: give one CASE")
    if args.change is None:
        raise CasefileError("an experiment needs --change TEXT: the one change between the runs")
    if args.playbook is not None:
        raise CasefileError("--playbook goes with `casefile experiment rules`")
    argv = list(args.argv)
    if args.outcome is not None:
        return _stated(args, argv)
    if args.reported is not None:
        if args.run is not None or args.baseline is not None or args.variant is not None or argv:
            raise CasefileError(
                "--reported states both figures: drop --baseline / --variant / --run"
            )
        return _reported(args)
    if args.run is None:
        if argv:
            raise CasefileError("a command after -- needs --run PROBE (to run both sides here)")
        if args.baseline is None or args.variant is None:
            missing = "--baseline" if args.baseline is None else "--variant"
            raise CasefileError(
                f"an experiment needs both runs: {missing} SEQ is missing (or use --run)"
            )
    elif args.baseline is not None or args.variant is not None:
        raise CasefileError("--run runs both sides itself: drop --baseline / --variant")
    with open_case(args.case, args.db) as opened:
        service, cid = opened.service, opened.case_id
        given = cast("tuple[int, int]", (args.baseline, args.variant))
        baseline, variant = _run_both(service, cid, args, argv) if args.run else given
        outcome = service.writer.record_experiment(
            cid,
            args.change,
            baseline,
            variant,
            metric=tuple(args.metric),
            rule_id=args.rule,
            note=args.note,
            tests=[name for names in args.tests for name in names],
            direction=_direction(args),
            unit=args.unit,
            ask=_asker(args),
            restates=args.restates,
            who=who(args),
        )
    if args.json:
        say_json(json.dumps(_experiment_json(outcome, baseline, variant), indent=2))
    else:
        say(terminal_safe(describe_experiment(outcome)))
    return 0


def _reported(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.domain.units import normal_unit

    baseline, variant, written = args.reported
    unit = args.unit if args.unit is not None else written
    if written is not None and normal_unit(written) != normal_unit(unit):
        raise CasefileError(
            f"--reported gives its figures in {written}, --unit says {args.unit}: say one"
        )
    with open_case(args.case, args.db) as opened:
        outcome = opened.service.writer.record_reported_experiment(
            opened.case_id,
            args.change,
            args.probe,
            baseline,
            variant,
            metric=args.metric[0] if args.metric else None,
            unit=unit,
            rule_id=args.rule,
            note=args.note,
            tests=[name for names in args.tests for name in names],
            direction=_direction(args),
            ask=_asker(args),
            restates=args.restates,
            who=who(args),
        )
    if args.json:
        shape = _experiment_json(outcome, None, None)
        say_json(json.dumps({**shape, "reported": True}, indent=2))
    else:
        say(terminal_safe(describe_experiment(outcome) + " (reported figures)"))
    return 0


def _rules(args: argparse.Namespace) -> int:
    """``casefile experiment rules``: a case's rules, a playbook's, or every installed one's."""
    from casefile.app.opening import open_case, registry
    from casefile.app.views.rules import NAMED_NOTE, experiment_rule_views
    from casefile.cli.render.playbook import render_rule

    if args.rules_case is not None and args.playbook is not None:
        raise CasefileError("experiment rules: give a CASE or --playbook, not both")
    if args.rules_case is not None:
        with open_case(args.rules_case, args.db) as opened:
            views = opened.service.reader.experiment_rule_list(opened.case_id)
    else:
        found = registry()
        chosen = (
            [found.playbook(args.playbook)]
            if args.playbook is not None
            else list(found.all_playbooks().values())
        )
        views = experiment_rule_views(chosen)
    if args.json:
        say_json(json.dumps([v.to_json() for v in views], indent=2, ensure_ascii=False))
        return 0
    if not views:
        say("no experiment rules" + (f" in case {args.rules_case}" if args.rules_case else ""))
    for view in views:
        say(render_rule(view))
    say(terminal_safe(NAMED_NOTE))
    return 0


def _stated(args: argparse.Namespace, argv: list[str]) -> int:
    from casefile.app.opening import open_case

    figures = [
        flag
        for flag, value in (
            ("--baseline", args.baseline),
            ("--variant", args.variant),
            ("--run", args.run),
            ("--reported", args.reported),
            ("--metric", args.metric or None),
            ("--unit", args.unit),
            ("--direction", args.direction),
        )
        if value is not None
    ]
    if figures or argv:
        raise CasefileError(
            f"--outcome states the result without figures: drop {', '.join(figures) or '--'}"
        )
    with open_case(args.case, args.db) as opened:
        outcome = opened.service.writer.record_stated_experiment(
            opened.case_id,
            args.change,
            args.outcome,
            probe=args.probe,
            rule_id=args.rule,
            note=args.note,
            tests=[name for names in args.tests for name in names],
            restates=args.restates,
            who=who(args),
        )
    if args.json:
        shape = _experiment_json(outcome, None, None)
        say_json(json.dumps({**shape, "reported": True}, indent=2))
    else:
        say(terminal_safe(describe_experiment(outcome)))
    return 0


def _direction(args: argparse.Namespace) -> bool | None:
    return None if args.direction is None else args.direction == "higher"


def _asker(args: argparse.Namespace) -> Callable[[str], bool | None] | None:
    """At a terminal, a one-line question for a unit that says neither way, asked again (a
    few times) until answered yes or higher, no or lower; elsewhere none (the experiment is
    then recorded, and the outcome says --direction would read it). An end of input stops
    asking."""
    if not sys.stdin.isatty():
        return None

    def ask(unit: str) -> bool | None:
        question = f"is higher better for {unit}? [y/n] "
        for _ in range(_ASKS):
            # on stderr: with --json, stdout is for the JSON alone
            sys.stderr.write(terminal_safe(question))
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                return None  # end of input: nobody left to answer
            reply = line.strip().casefold()
            if reply in _WAYS:
                return _WAYS[reply]
            question = f"say y (higher is better) or n (lower is better) for {unit}: "
        return None

    return ask


def _run_both(service: Any, cid: str, args: argparse.Namespace, argv: list[str]) -> tuple[int, int]:
    """Run the command as given, then under the change's environment; (baseline, variant)."""
    from casefile.app.probing import MAX_SETUP, Local, ProbeRequest

    tokens = args.change.split()
    if not tokens or not all(_ASSIGNMENT.fullmatch(t) for t in tokens):
        raise CasefileError(
            f"--run applies only environment changes (NAME=VALUE …), not {args.change!r}: run "
            "the variant yourself and pass --baseline SEQ --variant SEQ"
        )
    probe = service.probing.probe(args.run)
    command = tuple(argv) or tuple(probe.argv)
    if not command:
        raise CasefileError(f"probe {args.run} has no default command: give one after --")
    # the variant's setup label, settled before the baseline runs: whatever the change says, the
    # label it gets is one line the run's conditions keep (a refusal after the baseline ran
    # would leave half an experiment recorded)
    setup = "".join(ch if ch.isprintable() else "?" for ch in " ".join(tokens))
    if len(setup) > MAX_SETUP:
        setup = setup[: MAX_SETUP - 1] + "…"
    seqs = []
    for label, run_argv in (("baseline", command), ("variant", ("env", *tokens, *command))):
        request = ProbeRequest(
            probe=probe.name,
            where=Local(),
            argv=run_argv,
            load=args.load,
            timeout_s=args.timeout,
            note=f"experiment {label}: {args.change}",
            # the variant runs under the change: the rules must not read it as the case's state
            # (NCCL_P2P_DISABLE=1 would otherwise read as P2P switched off by a leftover)
            setup=setup if label == "variant" else None,
        )
        records = list(service.probing.run_probe(cid, request, who(args)))
        record = records[0]
        if record.failure is not None:
            raise CasefileError(
                f"the {label} run (seq {record.probe_run_seq}, recorded) failed: {record.failure}"
            )
        seqs.append(record.probe_run_seq)
    return seqs[0], seqs[1]


def describe_experiment(outcome: ExperimentOutcome) -> str:
    from casefile.cli.errors import flag_hint

    unit = f" {outcome.unit}" if outcome.unit else ""
    ratio = f" ({outcome.speedup:.2f}×)" if outcome.speedup is not None else ""
    said = (
        f"stated {outcome.stated} (no figures, reported)"
        if outcome.stated is not None
        else f"{outcome.metric} {outcome.baseline_value:g} → {outcome.variant_value:g}{unit}{ratio}"
    )
    head = f"experiment {outcome.experiment_id} (seq {outcome.seq}): {outcome.change}: {said}"
    if outcome.evidence_id is not None:
        read = (
            f"{head}; rule {outcome.rule_id}: {outcome.read_as()} → evidence {outcome.evidence_id}"
        )
        return read + _retold(outcome)
    return f"{head}; no evidence: {outcome.unread}{flag_hint(outcome.unread_remedy)}"


def _retold(outcome: ExperimentOutcome) -> str:
    """What a retelling replaced: the restated experiment's evidence, or nothing to replace;
    or, for an A/B that restates nothing, an earlier one of the same change it may retell."""
    if outcome.restates is None:
        if outcome.same_change is None:
            return ""
        x = outcome.same_change
        return (
            f"; experiment {x} records an A/B of the same change: if this tells it again, "
            f"--restates {x} counts it once"
        )
    if outcome.superseded is None:
        return f"; restates {outcome.restates}, which no rule had read: nothing superseded"
    return f"; restates {outcome.restates}: supersedes its evidence {outcome.superseded}"


def _experiment_json(
    outcome: ExperimentOutcome, baseline: int | None, variant: int | None
) -> dict[str, Any]:
    return {
        "experiment_id": outcome.experiment_id,
        "seq": outcome.seq,
        "change": outcome.change,
        "baseline_seq": baseline,
        "variant_seq": variant,
        "metric": outcome.metric,
        "baseline_value": outcome.baseline_value,
        "variant_value": outcome.variant_value,
        "speedup": outcome.speedup,
        "unit": outcome.unit,
        "direction": outcome.direction,
        "stated": outcome.stated,
        "rule": outcome.rule_id,
        "outcome": outcome.outcome,
        "leaning": None
        if outcome.leaning is None
        else {"to": outcome.leaning[0], "share": outcome.leaning[1]},
        "large": outcome.large,
        "evidence_id": outcome.evidence_id,
        "unread": outcome.unread,
        "nearest": [{"rule": n.rule_id, "words": list(n.words)} for n in outcome.nearest],
        "restates": outcome.restates,
        "supersedes": outcome.superseded,
        "same_change": outcome.same_change,
    }
