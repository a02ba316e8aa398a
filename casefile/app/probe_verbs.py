"""Probing: run a probe from a typed request, record a run, and ingest what a recorded
terminal session shows.

A run's raw output is data: it is scrubbed of secrets, stored as an artifact, parsed by its
probe (and offered to the probes that recognise it), and read by the rules of the case's
playbooks, all in one append.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from casefile.app.recording import ProbeRecord, rules_for
from casefile.app.who import NOW, Who
from casefile.domain.repeats import refuse_repeated_reading
from casefile.errors import DomainError

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.app.ingest import IngestedRun
    from casefile.app.probing import ProbeRequest
    from casefile.app.recording import Decided
    from casefile.app.sessions import CaseSessions
    from casefile.probes.api import Probe
    from casefile.probes.runners.cancel import CancelToken
    from casefile.probes.runners.result import RunResult
    from casefile.transcripts.proposal import Proposal


class CaseProbing:
    """Running, recording and ingesting probe output."""

    def __init__(self, sessions: CaseSessions) -> None:
        self.sessions = sessions

    def probe(self, name: str) -> Probe:
        return self.sessions.registry.probe(name)

    def run_probe(
        self,
        case_id: str,
        request: ProbeRequest,
        who: Who = NOW,
        cancel: CancelToken | None = None,
    ) -> Iterator[ProbeRecord]:
        """Run a probe where the request says and record each host's run as it lands.

        A failed run is recorded like any other (it is data) and its record says why it
        failed; pasted output takes the time it was taken unless ``who`` says otherwise.
        Once ``cancel`` is cancelled (Ctrl-C), each run still going is recorded within about a
        second as a cancelled, failed run (``record.result.cancelled``).
        """
        from casefile.app.probing import collect, failure_reason

        probe = self.sessions.registry.probe(request.probe).with_facts(request.facts)
        self.sessions.require(case_id)
        for result in collect(probe, request, cancel):
            # output taken elsewhere, or a reading stated, happened when it was taken
            taken = result.source in ("pasted", "stated")
            at = who.when(result.started_at if taken else None)
            yield self.record_probe(
                case_id,
                probe,
                result,
                load=request.load,
                reconstructed=request.reconstructed,
                note=request.note,
                who=Who(who.actor, at),
                setup=request.setup,
                failure=failure_reason(result),
                scrub=request.scrub,
                refuse_repeat=taken,
            )

    def record_probe(
        self,
        case_id: str,
        probe: Probe,
        result: RunResult,
        load: str = "unknown",
        reconstructed: bool = False,
        note: str | None = None,
        who: Who = NOW,
        apply_rules: bool = True,
        failure: str | None = None,
        setup: str | None = None,
        scrub: bool = True,
        refuse_repeat: bool = False,
    ) -> ProbeRecord:
        """Store a run's raw output, its parsed facts, and what the rules make of them; output
        its probe could not read (or ``command``'s) is offered to the probes that recognise it.
        Secrets are scrubbed from the command, the output and the note first, unless ``scrub``
        is False (the run records that they were kept). ``refuse_repeat``: output a person
        brought (pasted, stated) whose facts the case already records from the same host,
        conditions and note is refused, so one finding does not count twice
        (:mod:`casefile.domain.repeats`)."""
        from casefile.app.probing import failure_reason
        from casefile.app.recording import (
            Readers,
            decide_run,
            outcome_failure,
            parse_run,
            store_output,
        )
        from casefile.app.scrubbing import scrub_run, scrub_text

        scrubbed = 0
        if scrub:
            clean = scrub_run(result, note)
            result, note, scrubbed = clean.result, clean.note, clean.count
            if setup is not None:  # a setup's label is free text too ("with HF_TOKEN=…")
                setup = scrub_text(setup)
        stored = store_output(self.sessions.store.put_artifact, result)
        if stored.result is not result:  # the output could not be stored: a failed run now
            result = stored.result
            failure = failure_reason(result)
        collected = parse_run(
            probe,
            result,
            stdout_digest=stored.stdout_digest,
            stderr_digest=stored.stderr_digest,
            load=load,
            reconstructed=reconstructed,
            note=note,
            rules=rules_for(self.sessions.registry, probe.name) if apply_rules else [],
            setup=setup,
            readers=Readers.of(self.sessions.registry, with_rules=apply_rules),
            scrubbed=scrubbed,
            scrub=scrub,
        )

        def decide(draft: Draft) -> Decided:
            if refuse_repeat:
                refuse_repeated_reading(
                    draft.projection, collected.run_payload, collected.parsed.facts
                )
            return decide_run(draft, collected)

        appended, decided = self.sessions.execute(case_id, decide, who)
        return ProbeRecord(
            decided.run_seq,
            decided.obs_seq,
            collected.parsed,
            decided.evidence_ids,
            decided.set_aside,
            result,
            outcome_failure(collected.parsed, result, failure),
            tuple(event.seq for event in appended),
            setup,
            collected.read_as,
            scrubbed,
            tuple(decided.wanting),
            tuple(decided.intake_reads),
            tuple(decided.withdrawn),
        )

    def propose_ingest(
        self,
        data: bytes,
        fmt: str = "auto",
        timing: bytes | None = None,
        load: str = "unknown",
        exclude: Callable[[str], bool] | None = None,
        host: str = "unknown",
        marks: str | None = None,
        scrub: bool = True,
    ) -> Proposal:
        """What a recorded session proposes (nothing is stored): runs and notes to review.
        ``marks``: the nonce of ``record``'s shell integration (see ``proposal.propose``);
        ``scrub=False`` keeps the secrets (the events say so)."""
        from casefile.app.ingest import shapes
        from casefile.transcripts.proposal import propose

        return propose(
            data,
            shapes(self.sessions.registry),
            fmt=fmt,
            timing=timing,
            load=load,
            exclude=exclude,
            host=host,
            marks=marks,
            scrub=scrub,
        )

    def ingest(
        self,
        case_id: str,
        proposal: Proposal,
        accept: Sequence[int] | None = None,
        who: Who = NOW,
    ) -> list[IngestedRun]:
        """Append the accepted items of ``proposal`` (all for None) in one append, the source
        stored as an artifact each event points into; the same file twice is refused."""
        from casefile.app import ingest

        self.sessions.require(case_id)
        digest = self.sessions.store.put_artifact(proposal.source)
        seen = ingest.already_ingested(self.sessions.store.load(case_id), digest)
        if seen is not None:
            raise DomainError(
                f"this transcript was ingested into {case_id} already (events {seen[0]}–"
                f"{seen[1]}); nothing appended"
            )
        prepared = ingest.prepare(
            proposal, accept, digest, self.sessions.store.put_artifact, self.sessions.registry
        )
        self.sessions.execute(
            case_id, lambda draft: ingest.decide_ingest(draft, prepared, digest), who
        )
        return prepared.runs
