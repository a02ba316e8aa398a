"""``playbook show`` and ``experiment rules`` as text: what a playbook asks, supposes and reads.

Every line from a playbook's own words goes through :func:`~casefile.cli.terminal.one_line`,
so a title or a meaning written with a newline cannot pose as another entry.
"""

from __future__ import annotations

from casefile.app.views.playbook import PlaybookView, RuleView
from casefile.app.views.rules import ExperimentRuleView
from casefile.cli.terminal import one_line


def _row(table: dict[str, float]) -> str:
    return "  ".join(f"{name} {p:.2f}" for name, p in table.items())


def render_rule(view: ExperimentRuleView, indent: str = "") -> str:
    """One experiment rule: id and title, the wordings it reads, examples, what it compares
    (and, with numbers, its noise margin and table)."""
    lines = [
        f"{view.id} ({view.playbook}): {view.title}",
        f"  reads:   {' / '.join(view.wordings)}",
    ]
    if view.unless:
        left = "left to a later rule" if view.later_rules else "not read: no rule comes after"
        lines.append(f"  unless:  {' / '.join(view.unless)} ({left})")
    if view.way:
        lines.append(f"  way:     {view.way}")
    if view.size:
        lines.append(f"  size:    {view.size}")
    if view.examples:
        lines.append(f"  e.g.:    {'; '.join(view.examples)}")
    lines += [
        f"  metric:  {', '.join(view.metric)}",
        f"  probes:  {', '.join(view.probes)} ({view.cost})",
    ]
    if view.cost_when:
        lines.append(f"  cost:    {'; '.join(view.cost_when)}; else {view.cost}")
    if view.requires:
        lines.append(f"  {needs_line(view.requires, view.only_where_required, ab=True)}")
    if view.likelihoods is not None:
        noise = ", ".join(f"{p} ±{v:.0%}" for p, v in (view.noise or {}).items())
        lines.append(f"  noise:   {noise}")
        lines += [f"    {hid:<22} {_row(row)}" for hid, row in view.likelihoods.items()]
    return "\n".join(indent + one_line(line) for line in lines)


def needs_line(requires: tuple[str, ...], only_where_required: bool, *, ab: bool = False) -> str:
    """What a rule needs the case to state, and what follows where an answer rules that out:
    a probe rule's reading counts only there, or the rule is merely not suggested; an A/B
    rule does not read a change while an answer rules it out (the next rule that reads it
    does), and its A/Bs are read again when the answers change."""
    if ab:
        where = "read only there, and read again when the answers change"
    elif only_where_required:
        where = "its reading counts only there"
    else:
        where = "suggested only there; it reads any run"
    return f"needs:   {', '.join(requires)} ({where})"


def _probe_rule(rule: RuleView) -> list[str]:
    """A probe rule: what it reads, each outcome with the hypotheses it raises and lowers,
    the states it is one witness of, and its table where numbers were asked for."""
    load = "" if rule.load == "any" else f", {rule.load.replace('-', ' ')}"
    lines = [
        f"  {rule.id} (v{rule.version}): {rule.title}",
        f"    reads:   {rule.reads}{load}, from {', '.join(rule.probes)}",
    ]
    for outcome in rule.outcomes:
        said = [f"raises {', '.join(outcome.raises)}"] if outcome.raises else []
        said += [f"lowers {', '.join(outcome.lowers)}"] if outcome.lowers else []
        only = f", only {outcome.load.replace('-', ' ')}" if outcome.load else ""
        lines.append(
            f"    {outcome.name} ({outcome.when}{only}): {'; '.join(said) or 'weighs as otherwise'}"
        )
    if rule.witness:
        states = [
            f"{state} (with {', '.join(others)})" if others else f"{state} (its own repeats)"
            for state, others in rule.witnessed_with
        ]
        lines.append(f"    one witness of {'; '.join(states)}")
    if rule.excludes:
        lines.append(f"    one run feeds this or {', '.join(rule.excludes)}, not both")
    if rule.requires:
        lines.append(f"    {needs_line(rule.requires, rule.only_where_required)}")
    if rule.likelihoods is not None:
        lines += [f"      {hid:<22} {_row(row)}" for hid, row in rule.likelihoods.items()]
    return lines


def render_playbook(view: PlaybookView) -> str:
    lines = [
        f"{view.ref}: {view.title}",
        f"Question {view.question_id}: {view.question}"
        + (f" (catch-all {view.catch_all:g})" if view.catch_all is not None else ""),
        f"Probes: {', '.join(view.probes) or 'none'}",
        "",
        f"Intake ({len(view.intake)}):" if view.intake else "Intake: none",
    ]
    for item in view.intake:
        lines.append(f"  {item.id}: {item.text} [{' / '.join(item.answers)}]")
        if item.help:
            lines.append(f"    help: {item.help}")
        if item.environment:
            keys = ", ".join(f"--env {key}=ANSWER" for key in item.environment)
            lines.append(f"    answered by {keys}")
        lines += [f"    answered by --env {match}" for match in item.environment_matches]
        lines += [f"    answered by the fact {fact}" for fact in item.facts]
        lines += [f"    answered by the answer {implied}" for implied in item.implied_by]
        if item.likelihoods is not None:
            lines.append(f"    reliability {item.reliability:g}")
            lines += [f"      {hid:<22} {_row(row)}" for hid, row in item.likelihoods.items()]
    lines += ["", f"Hypotheses ({len(view.hypotheses)}):"]
    for spec in view.hypotheses:
        pad = "  " * (spec.depth + 1)
        prior = f" (prior {spec.prior:g})" if spec.prior is not None else ""
        lines.append(f"{pad}{spec.id}{prior}: {spec.text}")
        if spec.meaning:
            lines.append(f"{pad}  meaning: {spec.meaning}")
        lines += [f"{pad}  requires {need}" for need in spec.requires]
    lines += [
        "",
        f"Experiments ({len(view.experiments)}):" if view.experiments else "Experiments: none",
    ]
    text = "\n".join(one_line(line) for line in lines)
    blocks = [render_rule(rule, indent="  ") for rule in view.experiments]
    if view.rules:
        rules = [f"Probe rules ({len(view.rules)}; each outcome the first that holds):"]
        for rule in view.rules:
            rules += _probe_rule(rule)
        blocks.append("\n" + "\n".join(one_line(line) for line in rules))
    return "\n".join([text, *blocks])
