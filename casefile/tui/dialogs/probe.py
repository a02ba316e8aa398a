"""The probe dialog: which probe, where (this machine, SSH hosts, pasted output, or readings a
person states) and under what load; it returns a :class:`ProbeOutcome` holding the service's own
:class:`~casefile.app.probing.ProbeRequest` and the equivalent command line."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, OptionList

from casefile.actions.probe_actions import PROBE, RunProbe, said
from casefile.actions.spec import Outcome, command_line
from casefile.actions.text import parse
from casefile.app.probing import (
    CancelToken,
    ProbeRequest,
    SshOptions,
    check_setup,
    remedy_for,
)
from casefile.app.views.probe_catalog import ProbeEntry
from casefile.domain.stated import check_statement
from casefile.errors import DomainError, RunnerError, did_you_mean
from casefile.tui.dialogs.form import Field, FormDialog, optional, required
from casefile.tui.errors import control_hint
from casefile.tui.widgets.probe_picker import ProbePicker

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who

#: The field that accepts and saves an SSH host's unknown key (the remedy of that refusal)
TRUST_FIELD = "trust"
TRUST_LABEL = "Trust a new host key (yes/no: check its fingerprint with the host's owner first)"

PROBE_LABEL = "Probe: pick one (↑ ↓, Enter), or type its name in the field below the list"

#: The picker's height (``#probe-picker`` in casefile.tcss)
PICKER_ROWS = 10

#: Hosts one dialog may fan out to (the CLI takes more; a dialog line is for a handful).
MAX_HOSTS = 64


@dataclass(frozen=True)
class ProbeOutcome:
    action: RunProbe
    request: ProbeRequest
    command: str
    title: str = "Probe"


def build_probe(
    values: Mapping[str, str],
    probes: Sequence[str],
    case_id: str,
    ssh: SshOptions | None = None,
    actor: str = "user",
    declared: Mapping[str, ProbeEntry] | None = None,
) -> ProbeOutcome:
    """The probe action the dialog's fields state (the probe row's rules, and this dialog's
    own: SSH hosts or pasted output from one field each, a handful of hosts), its request and
    the command line that records the same run. ``declared``: each probe's entry, so that a
    stated fact the probe does not give, or a fraction stated as anything else, is refused in
    the dialog, before anything runs."""
    name = required(values, "probe", "the probe")
    if name not in probes:
        hint = did_you_mean(name, probes)
        raise ValueError(f"no probe {name!r}{hint} (installed: {', '.join(probes)})")
    hosts = [h for h in values.get("hosts", "").replace(",", " ").split() if h]
    pasted = values.get("paste", "")
    # one line, readings apart by ';' (a value may hold spaces: "231 GB/s")
    stated = "\n".join(part.strip() for part in values.get("stated", "").split(";"))
    if hosts and pasted.strip():
        raise ValueError("give SSH hosts or pasted output, not both")
    if hosts and stated.strip():
        raise ValueError("give SSH hosts or stated readings, not both")
    if len(hosts) > MAX_HOSTS:
        raise ValueError(f"at most {MAX_HOSTS} hosts from the dialog")
    if pasted.strip() or stated.strip():
        origin = optional(values, "paste_host") or "unknown"
        hosts = [] if origin == "unknown" else [origin]
    given = {
        "probe": name,
        "load": values.get("load", ""),
        "hosts": hosts,
        "trust_host": values.get(TRUST_FIELD, "").strip() or None,
        "paste": pasted if pasted.strip() else None,
        "stated": stated,
        "window": values.get("window", ""),
        "note": values.get("note", ""),
        "setup": values.get("setup"),
        "argv": values.get("argv", ""),
    }
    action = parse(PROBE, given)
    if action.stated:
        try:
            entry = (declared or {}).get(name)
            if entry is None:
                check_statement(name, (), action.stated.items())
            else:
                check_statement(
                    name, entry.statable, action.stated.items(), entry.fractions,
                    entry.percentages,
                )  # fmt: skip
        except DomainError as error:
            raise ValueError(str(error)) from None
    if action.setup is not None:
        try:
            check_setup(action.setup, "the other setup")
        except RunnerError as error:
            raise ValueError(str(error)) from None
    request = action.request(ssh)
    return ProbeOutcome(action, request, command_line(PROBE, action, case_id, actor))


class ProbeDialog(FormDialog[ProbeOutcome]):
    def __init__(
        self,
        probes: Sequence[str],
        *,
        probe: str | None,
        load: str,
        case_id: str,
        actor: str,
        hosts: Sequence[str] = (),
        ssh: SshOptions | None = None,
        catalog: Sequence[ProbeEntry] = (),
    ) -> None:
        self.catalog = list(catalog)
        declared = {entry.name: entry for entry in self.catalog}
        self.chosen_probe = probe
        known = f" — from ~/.ssh/config: {' '.join(hosts[:12])}" if hosts else ""
        fields = [
            Field("probe", PROBE_LABEL, "e.g. nvidia-smi-q", probe or ""),
            Field("load", "Load (idle, under-load, unknown)", "", load),
            Field(
                "hosts",
                f"SSH hosts, space-separated (empty: this machine){known}",
                f"e.g. {hosts[0] if hosts else 'gpu-node-1'}",
            ),
            Field(TRUST_FIELD, TRUST_LABEL, "", "no"),
            Field("argv", "Command line (empty: the probe's own)"),
            Field("paste", "…or paste output taken elsewhere", multiline=True),
            Field(
                "stated",
                "…or state readings, NAME[SUBJECT]=VALUE; … (reported evidence)",
                f"e.g. {PROBE.option('stated').example}; pcie.link.gen.max[gpu0]=5",
            ),
            Field(
                "paste_host", "Host the pasted output or stated reading came from", "", "unknown"
            ),
            Field("window", "Sampling window, seconds (samplers such as nvml-sampler)", "", "2"),
            Field("note", "Note (optional)"),
            Field(
                "setup",
                "Taken on another setup? Name it (kept to compare; the rules skip it)",
                "e.g. NCCL 2.22, after the fix",
            ),
        ]
        super().__init__(
            "Run a probe",
            fields,
            lambda values: build_probe(values, probes, case_id, ssh, actor, declared),
            echo=lambda outcome: outcome.command,
            confirm_label="Run",
        )

    def compose_before(self, spec: Field) -> ComposeResult:
        """The picker goes above the probe's name field."""
        if spec.name == "probe" and self.catalog:
            yield ProbePicker(self.catalog, self.chosen_probe)

    def rows_before(self, spec: Field) -> int:
        return PICKER_ROWS if spec.name == "probe" and self.catalog else 0

    def first_focus(self) -> str:
        """The picker, where there is one."""
        return "#probe-picker" if self.catalog else super().first_focus()

    @on(ProbePicker.Typed)
    def _typed(self, event: ProbePicker.Typed) -> None:
        """What is typed on the picker shows in the probe's field (Enter picks the match)."""
        self.query_one("#field-probe", Input).value = event.text

    @on(OptionList.OptionSelected, "#probe-picker")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        """Enter on a probe: its name goes in the field, and the focus to the next one."""
        event.stop()
        name = event.option.id
        if name is not None:
            self.query_one("#field-probe", Input).value = name
            self.query_one("#field-load", Input).focus()


def run_probe_request(
    service: CaseService,
    case_id: str,
    outcome: ProbeOutcome,
    who: Who,
    progress: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
) -> Outcome:
    """Run and record (on the probe thread); one line per host as each lands, and whether any
    host's run was recorded as a failed run."""
    lines: list[str] = []
    seqs: list[int] = []
    failed = False
    for record in service.probing.run_probe(case_id, outcome.request, who, cancel=cancel):
        seqs.append(record.probe_run_seq)
        failed = failed or bool(record.failure)
        text = said(record)
        if record.failure:
            text += control_hint(remedy_for(record.result))
        lines.append(text)
        if progress is not None:
            progress(text)
    return Outcome("\n".join(lines), seqs=tuple(seqs), failed=failed)
