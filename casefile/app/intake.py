"""Intake: the questions of a case's playbooks, the answers the case already holds, and
recording answers as evidence.

The likelihoods come from the playbook a case's question was opened from (the version it was
opened with), never from the person at the keyboard. An answer the case's ``--env`` or a
probe's facts already give is shown as known, and recorded with the others on request.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from casefile.app.candidates import case_playbooks
from casefile.app.experiment_rereading import reread_experiments
from casefile.app.intake_outcome import IntakeOutcome
from casefile.app.rescoping import required_questions, rescope
from casefile.app.who import NOW, Who
from casefile.domain import premises, triage
from casefile.domain.beliefs.by_observation import evidence_of
from casefile.domain.beliefs.fact_names import fact_names, restored_holding
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.event_types.stored import StoredObservation
from casefile.domain.facts import Fact
from casefile.domain.rules import contradicted
from casefile.errors import DomainError

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.app.sessions import CaseSessions
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import NewEvent
    from casefile.domain.intake import IntakeQuestion, Known
    from casefile.domain.playbook import Playbook

__all__ = ["IntakeItem", "IntakeOutcome", "answer_intake", "environment_answers", "intake_items"]


@dataclass(frozen=True)
class IntakeItem:
    """One intake question as the case stands: its answer in force, or one it already holds."""

    playbook: str
    id: str
    text: str
    answers: tuple[str, ...]
    help: str
    answer: str | None = None
    source: str | None = None  # answered / environment / observation
    known: Known | None = None  # an answer the case holds but has not recorded yet
    #: why a known answer is not recorded: a rule already counted the same fact
    counted_by: str | None = None
    #: what a recorded answer from the case's records rests on (``--env gpu-class=consumer``)
    basis: str | None = None
    #: why the question is not worth asking: an answer in force contradicts what it needs
    #: (``gpu-count = one (seq 27)``: NVLink means nothing for a job on one GPU)
    does_not_apply: str | None = None
    #: what the case must state for the question to be worth asking (question, answers)
    requires: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def moot_under(self, answers: Mapping[str, str]) -> bool:
        """Whether answers given since the list was made (at the terminal, one question after
        another) make this question moot, as ``does_not_apply`` says for those recorded."""
        return contradicted(self.requires, answers.get) is not None

    @property
    def known_fields(self) -> dict[str, str] | None:
        """The known answer as the front ends' JSON gives it (``--list --json``, the agent
        interface's intake read): what it is, where it came from, what it rests on."""
        if self.known is None:
            return None
        return {"answer": self.known.answer, "source": self.known.source, "basis": self.known.basis}

    @property
    def pending(self) -> bool:
        """Still to be asked: no answer in force, none a probe's rule already counted, and
        nothing the case states makes it moot."""
        return self.answer is None and self.counted_by is None and self.does_not_apply is None


def intake_items(
    sessions: CaseSessions,
    case_id: str,
    projection: Projection,
    given: Mapping[str, str] | None = None,
) -> list[IntakeItem]:
    """Every intake question of the case's playbooks, with its answer or a known one (the
    ``--env``, an observation, or what the answers in force and ``given`` settle)."""
    items = []
    facts = _LazyFacts(sessions, case_id, projection)
    for playbook in case_playbooks(sessions.registry, projection):
        said = _answers(projection, playbook, given or {})
        for question in playbook.intake:
            found = triage.active_answer(projection, question)
            if found is not None:
                state = projection.evidence[found[0]]
                answer = state.payload_field("intake") or {}  # (not ``said``: read below)
                item = _item(playbook, question, found[1], str(answer.get("source", "answered")))
                basis = answer.get("basis")
                items.append(replace(item, basis=str(basis)) if basis else item)
                continue
            known = (  # a person's own word first: it had overridden the others
                premises.moot_withdrawn(projection, question)
                or question.from_environment(projection.environment)
                or facts.known(question)
                or question.from_answers(said)
            )
            counted = _counted_by(projection, playbook, known) if known else None
            item = _item(playbook, question, None, None, known, counted)
            moot = _does_not_apply(projection, question)
            items.append(replace(item, does_not_apply=moot) if moot else item)
    return items


def _does_not_apply(projection: Projection, question: IntakeQuestion) -> str | None:
    """The answer in force (and its seq) that contradicts what ``question`` needs to be worth
    asking, as a hypothesis's "does not apply" names it; ``None`` when nothing does."""
    state = projection.questions.get(question.rule.question)
    return None if state is None else state.contradiction(question.rule.requires)


def answer_intake(
    sessions: CaseSessions,
    case_id: str,
    answers: Mapping[str, str],
    *,
    known: bool = True,
    who: Who = NOW,
) -> IntakeOutcome:
    """Record answers (question id → answer) and, with ``known``, every answer the case
    already holds, in one append. An unknown question or answer refuses the lot; an answer to
    a question an answer in force makes moot (recorded first in the same call, as gpu-count
    is asked first) is not recorded, and the outcome says why."""

    def decide(draft: Draft) -> IntakeOutcome:
        projection = draft.projection
        playbooks = {p.ref: p for p in case_playbooks(sessions.registry, projection)}
        wanted = _by_question_id(answers, playbooks.values())
        items = {item.id: item for item in intake_items(sessions, case_id, projection, wanted)}
        if not items:
            raise DomainError(
                "no intake questions: open a playbook that has them (casefile playbook "
                "open CASE gpu-throughput)"
            )
        for qid in wanted:
            if qid not in items:
                raise DomainError(f"no intake question {qid!r} (questions: {', '.join(items)})")
        recorded: list[tuple[str, str, str, str]] = []
        unchanged: list[str] = []
        counted: list[tuple[str, str]] = []
        replaced: dict[str, tuple[str, int]] = {}
        implied: dict[str, str] = {}
        moot: dict[str, str] = {}
        restored: dict[str, str] = {}
        for qid, item in items.items():
            question = playbooks[item.playbook].intake_question(qid)
            given: Known | None = None
            if qid in wanted:
                value = wanted[qid]
            elif known and item.answer is None and item.known is not None:
                if item.counted_by is not None:
                    counted.append((qid, item.counted_by))
                    continue
                given = item.known
                value = given.answer
            else:
                continue
            reason = _does_not_apply(draft.projection, question)
            if reason is not None:  # its likelihoods would weigh what the case rules out
                if qid in wanted:
                    triage.normalised_answer(question, value)  # not an answer: refuse the lot
                    moot[qid] = reason
                continue
            before = triage.active_answer(draft.projection, question)
            event = triage.answer_intake(draft.projection, question, value, given)
            if event is None:
                unchanged.append(qid)
                continue
            if before is not None:
                replaced[qid] = (before[1], draft.projection.evidence[before[0]].seq)
            draft.add(event)
            answer = EvidenceAssessed.of(event.payload)
            recorded.append((qid, str(answer.outcome), answer.evidence_id, _source(given)))
            if given is not None and given.source == "answered":
                implied[qid] = given.basis
            elif given is not None and given.source == premises.RESTORED:
                restored[qid] = given.basis
        withdrawn = _unsettled(draft, list(playbooks.values()), wanted, recorded, implied)
        mooted = _withdraw_moot(draft, list(playbooks.values()))
        moved = {q for q, *_ in recorded} | set(withdrawn) | set(mooted)
        readings = (
            rescope(draft, playbooks.values())
            if moved & required_questions(playbooks.values())
            else []
        )
        experiments = reread_experiments(draft, playbooks.values()) if moved else []
        return IntakeOutcome(
            tuple(recorded),
            tuple(unchanged),
            tuple(counted),
            replaced,
            implied,
            withdrawn,
            moot,
            mooted,
            restored,
            tuple(readings),
            tuple(experiments),
        )

    _, outcome = sessions.execute(case_id, decide, who)
    result: IntakeOutcome = outcome
    return result


def settle(draft: Draft, playbooks: list[Playbook]) -> None:
    """Bring what rests on the answers in step with them after an answer was taken out of
    force other than by ``answer_intake`` (evidence recorded over it by hand): the answers it
    implied are withdrawn, questions it left moot reopen, and the readings it ruled out come
    back (:mod:`casefile.app.rescoping`)."""
    _unsettled(draft, playbooks, {}, [], {})
    _withdraw_moot(draft, playbooks)
    rescope(draft, playbooks)
    reread_experiments(draft, playbooks)


def _unsettled(
    draft: Draft,
    playbooks: list[Playbook],
    given: Mapping[str, str],
    recorded: list[tuple[str, str, str, str]],
    implied: dict[str, str],
) -> dict[str, tuple[str, str, str]]:
    """Withdraw each implied answer whose premise no longer holds, or record the one a new
    premise implies (added to ``recorded`` and ``implied``), until none is left: withdrawing
    one may unsettle another (:mod:`casefile.domain.premises`). An answer given now is never
    touched. Returns the answers withdrawn: question → (answer, its basis, evidence id)."""
    withdrawn: dict[str, tuple[str, str, str]] = {}
    projection = draft.projection
    # each pass settles one answer at least, so a pass per question is enough
    for _ in range(1 + sum(len(playbook.intake) for playbook in playbooks)):
        moved = False
        for playbook, question in ((pb, q) for pb in playbooks for q in pb.intake):
            found = triage.active_answer(projection, question)
            if question.id in given or found is None:
                continue
            basis = premises.rests_on_another(projection.evidence[found[0]].payload_field("intake"))
            said = _answers(projection, playbook, {})
            premise = question.from_answers(said)
            if basis is None or (premise is not None and premise.answer == found[1]):
                continue
            event: NewEvent | None
            if premise is None:
                event = premises.withdrawal(projection, question, found[0], basis, said)
            else:  # the new premise settles it otherwise
                event = triage.answer_intake(projection, question, premise.answer, premise)
            if event is None:
                continue
            draft.add(event)
            eid = EvidenceAssessed.of(event.payload).evidence_id
            if premise is None:
                withdrawn[question.id] = (found[1], basis, eid)
            else:
                recorded.append((question.id, premise.answer, eid, premise.source))
                implied[question.id] = premise.basis
            moved = True
        if not moved:
            break
    return withdrawn


def _withdraw_moot(draft: Draft, playbooks: list[Playbook]) -> dict[str, tuple[str, str, str]]:
    """Withdraw each answer in force to a question the answers now make moot (see
    :func:`casefile.domain.premises.moot_withdrawal`): question → (answer, why, evidence id)."""
    mooted: dict[str, tuple[str, str, str]] = {}
    for question in (q for playbook in playbooks for q in playbook.intake):
        found = triage.active_answer(draft.projection, question)
        reason = _does_not_apply(draft.projection, question) if found is not None else None
        if found is None or reason is None:
            continue
        event = premises.moot_withdrawal(draft.projection, question, found[0], reason)
        draft.add(event)
        mooted[question.id] = (found[1], reason, EvidenceAssessed.of(event.payload).evidence_id)
    return mooted


def _by_question_id(answers: Mapping[str, str], playbooks: Iterable[Playbook]) -> dict[str, str]:
    """``answers`` keyed by question id: a key may name its question as the case's ``--env``
    does (``degrades=yes``) or in another spelling (``Degrades_Over_Time``); a key that names
    no question is kept as given, for the refusal to name it."""
    questions = [q for playbook in playbooks for q in playbook.intake]
    out: dict[str, str] = {}
    for key, value in answers.items():
        named = next((q.id for q in questions if q.id == key), None) or next(
            (q.id for q in questions if q.named_by(key)), key
        )
        out[named] = value
    return out


def _answers(
    projection: Projection, playbook: Playbook, given: Mapping[str, str]
) -> dict[str, str]:
    """The playbook's intake answers in force, with those ``given`` now over them."""
    said = {}
    for question in playbook.intake:
        found = triage.active_answer(projection, question)
        answer = question.normalise(given[question.id]) if question.id in given else None
        if answer is None and found is not None:
            answer = found[1]
        if answer is not None:
            said[question.id] = answer
    return said


def environment_answers(draft: Draft, playbook: Playbook) -> None:
    """The intake answers the case's ``--env`` gives, as the evidence ``casefile intake``
    records for them (source "environment"), and the answers those settle (``implied_by``):
    added where a playbook is opened, so an ``--env`` answer counts from the start until an
    explicit answer supersedes it."""
    projection = draft.projection
    for settled in (False, True):
        said = _answers(projection, playbook, {})
        for question in playbook.intake:
            if settled and question.id in said:
                continue
            known = (
                question.from_answers(said)
                if settled
                else question.from_environment(projection.environment)
            )
            if known is None or not any(
                projection.hypothesis_question.get(h) == question.rule.question
                for h in question.rule.likelihoods
            ):
                continue  # nothing given, or a table naming none of the case's hypotheses
            if _does_not_apply(projection, question) is not None:
                continue  # NVLink stated for a job the case says runs on one GPU
            event = triage.answer_intake(projection, question, known.answer, known)
            if event is not None:
                draft.add(event)


class _LazyFacts:
    """Observation facts read from the store only for the probes that could answer intake.

    What a question's facts say is kept in the fold's indexes with the last observation read:
    observations are only ever added and the newest that answers wins, so a later call reads
    only the observations folded since (a case of 100,000 events asked every unanswered
    question about every observation on each ``status``). Whether a probe can give a
    question's facts is worked out once per probe."""

    def __init__(self, sessions: CaseSessions, case_id: str, projection: Projection) -> None:
        self.sessions = sessions
        self.case_id = case_id
        self.projection = projection
        self.cache: dict[int, list[Fact]] = {}
        self.gives: dict[tuple[str, frozenset[str]], bool] = {}

    def known(self, question: IntakeQuestion) -> Known | None:
        if not question.facts:
            return None
        observations = self.projection.observations
        read: dict[str, tuple[int, Known | None]] = self.projection.indexes.setdefault(
            "intake-known", {}
        )
        last, found = read.get(question.id, (0, None))
        newest = next(reversed(observations), 0) if observations else 0
        if newest <= last:
            return found
        wanted = frozenset(spec.fact for spec in question.facts)
        for seq in self._newest_first(wanted):
            if seq <= last:
                break  # read before: ``found`` holds what they say
            hit = self._answer(question, wanted, seq)
            if hit is not None:
                found = hit
                break
        read[question.id] = (newest, found)
        return found

    def _newest_first(self, wanted: frozenset[str]) -> Iterator[int]:
        """The observations that may hold a fact of those names, newest first: those folded
        since a restore, then the restored ones whose saved names include one (a long case's
        others are never visited)."""
        base, holding = restored_holding(self.projection, wanted)
        for seq in reversed(self.projection.observations):  # folded in seq order
            if seq <= base:
                break
            yield seq
        yield from reversed(holding)

    def _answer(self, question: IntakeQuestion, wanted: frozenset[str], seq: int) -> Known | None:
        stub = self.projection.observations[seq]
        if (stub.get("conditions") or {}).get("setup"):
            return None  # another setup's facts do not describe the case's system
        if not self._may_give(str(stub.get("probe")), wanted):
            return None
        names = fact_names(self.projection, seq)
        if names is not None and wanted.isdisjoint(names):
            return None  # holds no fact of those names: not read from the store
        return question.from_facts(seq, self._facts(seq))

    def _may_give(self, name: str, wanted: frozenset[str]) -> bool:
        key = (name, wanted)
        if key not in self.gives:
            from casefile.domain.beliefs.ranking import can_produce

            probe = self.sessions.registry.all_probes().get(name)
            self.gives[key] = (
                probe is None
                or not probe.facts
                or any(can_produce(probe.facts, fact) for fact in wanted)
            )
        return self.gives[key]

    def _facts(self, seq: int) -> list[Fact]:
        if seq not in self.cache:
            event = self.sessions.events(self.case_id, after=seq - 1, upto=seq)[0]
            self.cache[seq] = [fact.as_fact() for fact in StoredObservation(event.payload).facts]
        return self.cache[seq]


def _counted_by(projection: Projection, playbook: Playbook, known: Known) -> str | None:
    """The evidence that already counted the fact a known answer rests on, if any: the same
    reading is never counted twice, once by a probe's rule and again as an answer."""
    if known.observation_seq is None or known.fact is None:
        return None
    reads = {rule.id for rule in playbook.rules if known.fact in rule.reads}
    for eid in evidence_of(projection, known.observation_seq):
        state = projection.evidence[eid]
        rule: dict[str, Any] | None = state.rule
        if (
            state.active
            and state.observation_seq == known.observation_seq
            and rule is not None
            and rule.get("id") in reads
        ):
            return state.id
    return None


def _item(
    playbook: Playbook,
    question: IntakeQuestion,
    answer: str | None,
    source: str | None,
    known: Known | None = None,
    counted_by: str | None = None,
) -> IntakeItem:
    return IntakeItem(
        playbook.ref,
        question.id,
        question.text,
        question.answers,
        question.help,
        answer,
        source,
        known,
        counted_by,
        requires=question.rule.requires,
    )


def _source(known: Known | None) -> str:
    return "answered" if known is None else known.source
