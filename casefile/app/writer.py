"""The writer: every verb that records reasoning in a case.

Each verb decides its events on the case's fold and appends them, retrying on a lost race;
verbs that need no belief state (a note, an action) append knowing only the case's head, so
their cost does not grow with the case. What a person writes (a title, a note, an action, a
question, a hypothesis, a reason, a rationale, a conclusion) and a case's environment are
scrubbed of secrets before they are sealed, as a probe run's output is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from casefile.app import experiments, intake
from casefile.app.candidates import case_playbooks
from casefile.app.draft import Draft
from casefile.app.scrubbing import scrub_environment, scrub_text
from casefile.app.verbs import verb
from casefile.app.who import NOW, Who
from casefile.domain import commands
from casefile.domain.event_types import new_event
from casefile.domain.event_types.case import ActionTaken, CaseConcluded, NoteAdded
from casefile.domain.event_types.hypothesis import HypothesisProposed, QuestionProposed
from casefile.domain.events import NewEvent
from casefile.errors import ConcurrencyError, DomainError, Remedy, did_you_mean

if TYPE_CHECKING:
    from casefile.app.sessions import CaseSessions
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import Event


class CaseWriter:
    """Records notes, actions, questions, hypotheses, priors, evidence, playbooks, intake
    answers, experiments and conclusions."""

    def __init__(self, sessions: CaseSessions) -> None:
        self.sessions = sessions

    answer_intake = verb(intake.answer_intake)
    record_experiment = verb(experiments.record_experiment)
    record_reported_experiment = verb(experiments.record_reported_experiment)
    record_stated_experiment = verb(experiments.record_stated_experiment)

    def new_case(
        self,
        title: str,
        symptom: str | None = None,
        environment: Mapping[str, str] | None = None,
        case_id: str | None = None,
        playbook: str | None = None,
        who: Who = NOW,
    ) -> str:
        cid = commands.check_case_id(case_id) if case_id else uuid.uuid4().hex[:12]
        if playbook is not None:
            self.sessions.registry.playbook(playbook)  # an unknown playbook opens no case
        symptom = scrub_text(symptom) if symptom else symptom
        environment = scrub_environment(environment or {})
        event = commands.open_case(scrub_text(title), symptom, **environment)
        stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)
        try:
            self.sessions.store.append(cid, 0, [stamped])
        except ConcurrencyError:
            raise DomainError(
                f"case {cid!r} already exists", remedy=Remedy("chooses another", "case_id")
            ) from None
        if playbook is not None:
            self.open_playbook(cid, playbook, who)
        return cid

    def note(self, case_id: str, text: str, who: Who = NOW) -> Event:
        if not text.strip():
            raise DomainError("a note needs some text")
        return self.sessions.append_at_head(
            case_id, new_event(NoteAdded, text=scrub_text(text)), who
        )

    def act(self, case_id: str, text: str, outcome: str | None = None, who: Who = NOW) -> Event:
        if not text.strip():
            raise DomainError("an action needs some text")
        event = new_event(
            ActionTaken, text=scrub_text(text), outcome=scrub_text(outcome) if outcome else None
        )
        return self.sessions.append_at_head(case_id, event, who)

    def conclude(
        self,
        case_id: str,
        summary: str,
        root_cause: str | None = None,
        recommendations: Sequence[str] = (),
        lessons: Sequence[str] = (),
        who: Who = NOW,
    ) -> Event:
        def make(p: Projection) -> NewEvent:
            if root_cause is not None and root_cause not in p.hypothesis_question:
                hint = did_you_mean(root_cause, p.hypothesis_question)
                raise DomainError(f"no hypothesis {root_cause!r} to name as the root cause{hint}")
            return new_event(
                CaseConcluded,
                summary=scrub_text(summary),
                root_cause=root_cause or None,
                recommendations=list(recommendations),
                lessons=list(lessons),
            )

        return self.sessions.one(case_id, make, who)

    def add_question(
        self,
        case_id: str,
        text: str,
        question_id: str | None = None,
        catch_all: float = 0.1,
        who: Who = NOW,
    ) -> str:
        text = scrub_text(text)
        event = self.sessions.one(
            case_id, lambda p: commands.propose_question(p, text, question_id, catch_all), who
        )
        return QuestionProposed.of(event.payload).question_id

    def add_hypothesis(
        self,
        case_id: str,
        text: str,
        under: str,
        prior: float,
        hypothesis_id: str | None = None,
        meaning: str | None = None,
        who: Who = NOW,
    ) -> str:
        text, meaning = scrub_text(text), scrub_text(meaning) if meaning else meaning
        event = self.sessions.one(
            case_id,
            lambda p: commands.propose_hypothesis(p, text, under, prior, hypothesis_id, meaning),
            who,
        )
        return HypothesisProposed.of(event.payload).hypothesis_id

    def refine_hypothesis(
        self, case_id: str, hid: str, text: str, reason: str | None = None, who: Who = NOW
    ) -> Event:
        text, reason = scrub_text(text), scrub_text(reason) if reason else reason
        return self.sessions.one(
            case_id, lambda p: commands.refine_hypothesis(p, hid, text, reason), who
        )

    def retire_hypothesis(self, case_id: str, hid: str, reason: str, who: Who = NOW) -> Event:
        reason = scrub_text(reason)
        return self.sessions.one(case_id, lambda p: commands.retire_hypothesis(p, hid, reason), who)

    def reinstate_hypothesis(
        self, case_id: str, hid: str, reason: str | None = None, who: Who = NOW
    ) -> Event:
        reason = scrub_text(reason) if reason else reason
        return self.sessions.one(
            case_id, lambda p: commands.reinstate_hypothesis(p, hid, reason), who
        )

    def assess(
        self,
        case_id: str,
        likelihoods: Mapping[str, float],
        rationale: str,
        who: Who = NOW,
        **options: Any,
    ) -> Event:
        """Record evidence; ``options`` are those of :func:`commands.assess_evidence`. Evidence
        that supersedes an intake answer changes the answers in force, so what stands on them (the
        answers it implied, the readings it ruled out) is brought in step in the same append
        (:func:`casefile.app.intake.settle`)."""
        return self.assess_in_step(case_id, likelihoods, rationale, who, **options)[0]

    def assess_in_step(
        self,
        case_id: str,
        likelihoods: Mapping[str, float],
        rationale: str,
        who: Who = NOW,
        **options: Any,
    ) -> list[Event]:
        """:meth:`assess`, returning every event appended: the evidence first, then what it
        brought in step, so a front end can say both."""
        rationale = scrub_text(rationale)
        registry = self.sessions.registry

        def decide(draft: Draft) -> None:
            old = draft.projection.evidence.get(str(options.get("supersedes")))
            answer = old is not None and old.payload_field("intake") is not None
            draft.add(commands.assess_evidence(draft.projection, likelihoods, rationale, **options))
            if answer:
                intake.settle(draft, case_playbooks(registry, draft.projection))

        appended, _ = self.sessions.execute(case_id, decide, who)
        return list(appended)

    def open_playbook(self, case_id: str, playbook_id: str, who: Who = NOW) -> str:
        """Propose a playbook's question and hypothesis tree in the case, as ordinary events,
        and in the same append the intake answers the case's ``--env`` already gives."""
        playbook = self.sessions.registry.playbook(playbook_id)

        def decide(draft: Draft) -> str:
            draft.add(
                commands.propose_question(
                    draft.projection,
                    playbook.question_text,
                    playbook.question_id,
                    playbook.catch_all,
                    playbook=f"{playbook.id}@{playbook.version}",
                )
            )
            for spec in playbook.hypotheses:
                draft.add(
                    commands.propose_hypothesis(
                        draft.projection,
                        spec.text,
                        spec.parent or playbook.question_id,
                        spec.prior,
                        spec.id,
                        spec.meaning,
                        spec.requires,
                    )
                )
            intake.environment_answers(draft, playbook)
            return playbook.question_id

        _, qid = self.sessions.execute(case_id, decide, who)
        return str(qid)

    def add_hypothesis_rebalanced(
        self,
        case_id: str,
        text: str,
        under: str,
        prior: float,
        hypothesis_id: str | None = None,
        meaning: str | None = None,
        *,
        force: bool = False,
        who: Who = NOW,
    ) -> str:
        """Propose a hypothesis, first scaling the others down in proportion where it would
        not fit (one ``priors.rebalanced`` event, then the proposal, in one append)."""
        text, meaning = scrub_text(text), scrub_text(meaning) if meaning else meaning

        def decide(draft: Draft) -> str:
            room = commands.room_for_hypothesis(draft.projection, under, prior, force)
            if room is not None:
                draft.add(room)
            event = commands.propose_hypothesis(
                draft.projection, text, under, prior, hypothesis_id, meaning
            )
            draft.add(event)
            return HypothesisProposed.of(event.payload).hypothesis_id

        _, hid = self.sessions.execute(case_id, decide, who)
        return str(hid)

    def set_prior(
        self,
        case_id: str,
        hypothesis_id: str,
        prior: float,
        reason: str | None = None,
        *,
        force: bool = False,
        who: Who = NOW,
    ) -> Event:
        """Correct one hypothesis's prior, its siblings making room in proportion."""
        return self.sessions.one(
            case_id,
            lambda p: commands.set_prior(p, hypothesis_id, prior, reason, force),
            who,
        )
