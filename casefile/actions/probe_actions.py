"""Running a probe, as one action: which probe, where (this machine, SSH hosts, output pasted
from elsewhere, or readings a person states), under what load, and what to keep with the run.

The CLI's ``casefile probe``, the TUI's probe dialog and the agent interface's probe tools all
build a :class:`RunProbe`; its :meth:`RunProbe.request` is the service's probe request and its
row's command line is what the TUI echoes (pasted output goes to that command's stdin, stated
as ``--paste -``). How SSH connects (the config file's ``ssh_config``, ``known_hosts`` and
connect timeout) is the front end's setting, not the action's: it is passed to
:meth:`RunProbe.request`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casefile.actions.spec import ActionSpec, Option, Outcome
from casefile.app.probing import LOADS, Here, Pasted, ProbeRequest, Ssh, SshOptions, Stated, Where

if TYPE_CHECKING:
    from casefile.app.probing import CancelToken
    from casefile.app.recording import ProbeRecord
    from casefile.app.service import CaseService
    from casefile.app.who import Who


#: a sampler's window when none is given
DEFAULT_WINDOW = 2.0


@dataclass(frozen=True)
class RunProbe:
    probe: str
    load: str = "unknown"
    #: SSH targets to run on; with pasted output, the one host it was taken on
    hosts: tuple[str, ...] = ()
    trust_host: bool = False
    #: output taken elsewhere, as given (bytes from a file keep what does not decode)
    paste: str | bytes | None = None
    #: when the pasted output (or the stated reading) was taken (stored form); None: now
    taken_at: str | None = None
    timeout: float | None = None
    window: float = DEFAULT_WINDOW
    reconstructed: bool = False
    note: str | None = None
    setup: str | None = None
    #: ``NAME=REGEX``: facts to pull out of the output besides the probe's own
    facts: tuple[str, ...] = ()
    #: False: keep the secrets in the command, output and note (the run records it)
    scrub: bool = True
    #: the command to run (or that produced pasted output); empty: the probe's own
    argv: tuple[str, ...] = ()
    #: readings a person states instead of output: ``NAME[SUBJECT]`` to value (nothing runs)
    stated: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.load not in LOADS:
            raise ValueError(f"load must be one of {', '.join(LOADS)}")
        for host in self.hosts:
            if host.startswith("-"):
                raise ValueError(f"{host!r} is not a host")
        if self.paste is not None and len(self.hosts) > 1:
            raise ValueError(
                f"pasted output is one host's: name at most one host (got {len(self.hosts)})"
            )
        if self.trust_host and (not self.hosts or self.paste is not None):
            raise ValueError("trusting a new host key goes with SSH hosts to run on")
        if self.stated:
            self._check_stated()
        elif self.taken_at is not None and self.paste is None:
            raise ValueError("a time the output was taken goes with pasted output")

    def _check_stated(self) -> None:
        """A stated reading is told, not run: nothing to run, paste, time or pull out."""
        given = [
            name
            for name, value in (
                ("pasted output", self.paste is not None),
                ("a command line", bool(self.argv)),
                ("facts to pull out of output", bool(self.facts)),
                ("a new host key to trust", self.trust_host),
                ("more than one host", len(self.hosts) > 1),
                ("timeout", self.timeout is not None),
                ("sampling window", self.window != DEFAULT_WINDOW),
                ("'reconstructed' (nothing was captured to rebuild)", self.reconstructed),
            )
            if value
        ]
        if given:
            raise ValueError(f"a stated reading runs nothing: it takes no {given[0]}")

    def request(self, ssh: SshOptions | None = None) -> ProbeRequest:
        """The service's probe request; ``ssh`` says how SSH hosts are reached."""
        from casefile.probes.patterns import fact_pattern

        where: Where
        argv = self.argv
        if self.stated:
            where = Stated(
                tuple(self.stated.items()),
                host=self.hosts[0] if self.hosts else "unknown",
                taken_at=self.taken_at,
            )
        elif self.paste is not None:
            where = Pasted(
                text=self.paste,
                host=self.hosts[0] if self.hosts else "unknown",
                taken_at=self.taken_at,
            )
            argv = pasted_command(argv)
        elif self.hosts:
            options = ssh or SshOptions()
            where = Ssh(
                self.hosts,
                trust_host=self.trust_host,
                known_hosts=options.known_hosts,
                ssh_config=options.ssh_config,
                connect_timeout_s=options.connect_timeout_s,
            )
        else:
            where = Here(self.window)
        patterns = []
        for given in self.facts:
            name, _, regex = given.partition("=")
            patterns.append(fact_pattern(name, regex))
        return ProbeRequest(
            probe=self.probe,
            where=where,
            argv=argv,
            load=self.load,
            timeout_s=self.timeout,
            reconstructed=self.reconstructed,
            note=self.note,
            facts=tuple(patterns),
            setup=self.setup,
            scrub=self.scrub,
        )

    def records(
        self,
        service: CaseService,
        case_id: str,
        who: Who,
        *,
        ssh: SshOptions | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[ProbeRecord]:
        """Run and record, one record per host as each lands (Ctrl-C: ``cancel``)."""
        return service.probing.run_probe(case_id, self.request(ssh), who, cancel=cancel)

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        records = list(self.records(service, case_id, who))
        lines = [said(record) for record in records]
        return Outcome(
            "\n".join(lines),
            value=" ".join(str(record.probe_run_seq) for record in records),
            seqs=tuple(seq for record in records for seq in record.seqs),
            failed=any(record.failure for record in records),
        )


def said(record: ProbeRecord) -> str:
    """One host's run in a line: recorded, or recorded as a failed run and why."""
    host = record.result.host or "local"
    if record.failure:
        return f"{host}: recorded as failed run #{record.probe_run_seq}: {record.failure}"
    line = (
        f"{host}: run #{record.probe_run_seq}, {len(record.parse.facts)} facts, "
        f"{len(record.evidence_ids)} evidence, {len(record.set_aside)} set aside"
    )
    if record.setup is not None:
        return line  # a run of another setup is kept to compare: no rule reads it anyway
    if record.withdrawn:  # read, and withdrawn at once: an answer rules the rule out
        line += f"; withdrawn at once: {', '.join(record.withdrawn)}"
    if record.result.source != "stated":
        needs = wanting_words(record)
        return f"{line}; {needs}" if needs else line
    return f"{line}; {stated_words(record)}"


def wanting_words(record: ProbeRecord) -> str:
    """What the rules that could not read a run still need ("" where nothing): said by
    every front end, so a run the case cannot read yet is not passed over in silence."""
    return "; ".join(record.wanting)


def stated_words(record: ProbeRecord) -> str:
    """What the rules made of a stated reading: read as reported evidence, or read by none
    (and what a rule that reads one of its facts still needed): a statement no rule read is
    said to be one, not passed over as if it had counted. Every front end says it so."""
    if record.evidence_ids:
        return "stated, not run: the rules read it as reported evidence"
    if record.set_aside:
        return "stated, not run"  # the line counts those set aside; `log` says by whom, why
    intake = f"; it answers intake {', '.join(record.intake_reads)}" if record.intake_reads else ""
    needs = f" ({wanting_words(record)})" if record.wanting else ""
    return f"stated, not run: no rule read it{needs}{intake}"


def pasted_command(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The command that produced pasted output, as argv: a command line pasted as one word
    (``-- 'nvidia-smi --query-gpu="index,name"'``) is split as a shell would, quotes removed.

    Only for pasted output, where the words describe what ran elsewhere; a command casefile
    runs itself is never split (its words are the argv, exactly)."""
    import shlex

    if len(argv) != 1 or argv[0].split() == [argv[0]]:
        return argv
    try:
        words = shlex.split(argv[0])
    except ValueError as error:
        raise ValueError(f"the pasted command line {argv[0]!r} does not split: {error}") from None
    return tuple(words) or argv


PROBE = ActionSpec(
    "probe",
    "Probe",
    RunProbe,
    (
        Option("probe", "Probe", "id", required=True, example="nvidia-smi-q"),
        Option(
            "load",
            "Load (idle, under-load, unknown)",
            "choice",
            flag="--load",
            default="unknown",
            choices=LOADS,
            help="load state when taken",
        ),
        Option(
            "hosts",
            "SSH hosts (empty: this machine); for pasted output, the host it came from",
            "lines",
            flag="--host",
            default=(),
            example="gpu-node-1",
            metavar="HOST",
            help="SSH target [user@]host[:port] (repeatable)",
            noun="host",
            multiline=False,
        ),
        Option(
            "trust_host",
            "Trust a new host key? (yes/no: check its fingerprint with the host's owner first)",
            "switch",
            flag="--trust-host",
            default=False,
        ),
        Option(
            "paste",
            "…or paste output taken elsewhere",
            "note",
            flag="--paste",
            from_file=True,
            metavar="FILE",
            help="take output captured elsewhere ('-': stdin)",
            noun="pasted output",
        ),
        Option(
            "stated",
            "…or state readings, NAME[SUBJECT]=VALUE per line (reported evidence)",
            "pairs",
            flag="--stated",
            default={},
            example="pcie.link.gen.current[gpu0]=2",
            metavar="NAME=VALUE",
            help="record a reading a person states instead of output, as the fact the probe "
            "would give, or one only a person can give (a profile's gpu.busy_share) "
            "(NAME[SUBJECT]=VALUE, repeatable; e.g. pcie.link.gen.current[gpu0]=2; a share as "
            "a fraction, 0.32 not 32, and a utilisation in percent, 90 not 0.9): nothing runs, "
            "and the rules read it as reported evidence",
            noun="stated reading",
        ),
        Option("taken_at", "Taken at", flag="--taken-at", form=False),
        Option("timeout", "Timeout, seconds", "seconds", flag="--timeout", form=False),
        Option(
            "window",
            "Sampling window, seconds (samplers such as nvml-sampler)",
            "seconds",
            flag="--window",
            default=2.0,
        ),
        Option(
            "reconstructed",
            "Output rebuilt, not captured",
            "switch",
            flag="--reconstructed",
            default=False,
            form=False,
        ),
        Option("note", "Note (optional)", flag="--note"),
        Option(
            "setup",
            "Taken on another setup? Name it (kept to compare; the rules skip it)",
            flag="--setup",
            example="NCCL 2.22, after the fix",
        ),
        Option(
            "facts", "Facts NAME=REGEX", "lines", flag="--fact", default=(), form=False, noun="fact"
        ),
        Option("scrub", "Scrub secrets", "switch", flag="--no-scrub", default=True, form=False),
        Option(
            "argv",
            "Command line (empty: the probe's own)",
            "words",
            flag="--",
            default=(),
            noun="command line",
        ),
    ),
    ("probe",),
    "run a probe (here, over SSH, or on pasted output) and record what it shows",
    ("Probe", "Run a probe here, over SSH, or from pasted output"),
    heading="Run a probe",
    key="p",
    short="probe",
    footer=True,
    own_parser=True,
)
