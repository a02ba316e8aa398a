"""The application service: the one door every front end goes through.

The CLI, the terminal UI and the report reach the core only through :class:`CaseService`: it
opens sessions on cases, runs the verbs a responder uses (each decides its events on a folded
case and appends them, retrying on a lost race), runs probes from typed requests, and builds
the typed views the front ends render. None of them imports the store, the runners or the
fold; import-linter contracts in ``pyproject.toml`` hold that.

Verbs that need no belief state (a note, an action) append knowing only the case's head, so
their cost does not grow with the case. Verbs that need the fold decide on a
:class:`~casefile.app.session.CaseSession`, which a long-lived front end keeps current by
folding only new events, and which a one-shot command starts from a stored snapshot.

What a person writes (a title, a note, an action, a question, a hypothesis, a reason, a
rationale, a conclusion) and a case's environment are scrubbed of secrets before they are
sealed, as a probe run's output is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from casefile.app.draft import Draft
from casefile.app.recording import ProbeRecord, scrub_environment, scrub_text
from casefile.app.service_core import ServiceCore
from casefile.app.service_probes import ProbeVerbs
from casefile.app.service_triage import TriageVerbs
from casefile.app.service_views import ViewVerbs
from casefile.app.session import RETRIES
from casefile.app.who import NOW, Who
from casefile.domain import commands
from casefile.domain.event_types import new_event
from casefile.domain.event_types.case import ActionTaken, CaseConcluded, NoteAdded
from casefile.domain.events import NewEvent
from casefile.errors import ConcurrencyError, DomainError, Remedy

if TYPE_CHECKING:
    from casefile.app.views.lists import HypothesisList, QuestionList
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import Event
    from casefile.store.base import Removed

__all__ = ["RETRIES", "CaseService", "ProbeRecord"]


class CaseService(TriageVerbs, ProbeVerbs, ViewVerbs, ServiceCore):
    """Every action and view over one event store.

    The verbs that record reasoning live here; reading and views are in
    :mod:`casefile.app.service_views`, probes and transcripts in
    :mod:`casefile.app.service_probes`, intake in :mod:`casefile.app.service_triage` and
    experiments in :mod:`casefile.app.service_experiments`, and what they all stand on
    (sessions, the write loop) in :mod:`casefile.app.service_core`.
    """

    def __enter__(self) -> CaseService:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------------------

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
            self.registry.playbook(playbook)  # an unknown playbook opens no case
        symptom = scrub_text(symptom) if symptom else symptom
        environment = scrub_environment(environment or {})
        event = commands.open_case(scrub_text(title), symptom, **environment)
        stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)
        try:
            self.store.append(cid, 0, [stamped])
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
        return self._append_at_head(case_id, new_event(NoteAdded, text=scrub_text(text)), who)

    def act(self, case_id: str, text: str, outcome: str | None = None, who: Who = NOW) -> Event:
        if not text.strip():
            raise DomainError("an action needs some text")
        event = new_event(
            ActionTaken, text=scrub_text(text), outcome=scrub_text(outcome) if outcome else None
        )
        return self._append_at_head(case_id, event, who)

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
                raise DomainError(f"no hypothesis {root_cause!r} to name as the root cause")
            return new_event(
                CaseConcluded,
                summary=scrub_text(summary),
                root_cause=root_cause or None,
                recommendations=list(recommendations),
                lessons=list(lessons),
            )

        return self._one(case_id, make, who)

    def add_question(
        self,
        case_id: str,
        text: str,
        question_id: str | None = None,
        catch_all: float = 0.1,
        who: Who = NOW,
    ) -> str:
        text = scrub_text(text)
        event = self._one(
            case_id, lambda p: commands.propose_question(p, text, question_id, catch_all), who
        )
        return str(event.payload["question_id"])

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
        event = self._one(
            case_id,
            lambda p: commands.propose_hypothesis(p, text, under, prior, hypothesis_id, meaning),
            who,
        )
        return str(event.payload["hypothesis_id"])

    def refine_hypothesis(
        self, case_id: str, hid: str, text: str, reason: str | None = None, who: Who = NOW
    ) -> Event:
        text, reason = scrub_text(text), scrub_text(reason) if reason else reason
        return self._one(case_id, lambda p: commands.refine_hypothesis(p, hid, text, reason), who)

    def retire_hypothesis(self, case_id: str, hid: str, reason: str, who: Who = NOW) -> Event:
        reason = scrub_text(reason)
        return self._one(case_id, lambda p: commands.retire_hypothesis(p, hid, reason), who)

    def reinstate_hypothesis(
        self, case_id: str, hid: str, reason: str | None = None, who: Who = NOW
    ) -> Event:
        reason = scrub_text(reason) if reason else reason
        return self._one(case_id, lambda p: commands.reinstate_hypothesis(p, hid, reason), who)

    def assess(
        self,
        case_id: str,
        likelihoods: Mapping[str, float],
        rationale: str,
        who: Who = NOW,
        **options: Any,
    ) -> Event:
        """Record evidence; ``options`` are those of :func:`commands.assess_evidence`."""
        rationale = scrub_text(rationale)
        return self._one(
            case_id,
            lambda p: commands.assess_evidence(p, likelihoods, rationale, **options),
            who,
        )

    def open_playbook(self, case_id: str, playbook_id: str, who: Who = NOW) -> str:
        """Propose a playbook's question and hypothesis tree in the case, as ordinary events,
        and in the same append the intake answers the case's ``--env`` already gives."""
        playbook = self.registry.playbook(playbook_id)

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
            self._environment_answers(draft, playbook)
            return playbook.question_id

        _, qid = self._execute(case_id, decide, who)
        return str(qid)

    # --- lists, priors, removal ------------------------------------------------------------

    def hypothesis_list(self, case_id: str, question_id: str | None = None) -> HypothesisList:
        """Every hypothesis (or one question's) with its id, text, status and confidence."""
        from casefile.app.views.lists import build_hypothesis_list

        projection = self._current(case_id, history=False)
        if question_id is not None and question_id not in projection.questions:
            known = ", ".join(sorted(projection.questions)) or "none yet"
            raise DomainError(f"no question {question_id!r} in case {case_id} (questions: {known})")
        return build_hypothesis_list(projection, question_id)

    def question_list(self, case_id: str) -> QuestionList:
        """Every question with its leader, its leader's confidence and its catch-all."""
        from casefile.app.views.lists import build_question_list

        return build_question_list(self._current(case_id, history=False))

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
            return str(event.payload["hypothesis_id"])

        _, hid = self._execute(case_id, decide, who)
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
        return self._one(
            case_id,
            lambda p: commands.set_prior(p, hypothesis_id, prior, reason, force),
            who,
        )

    def remove_case(self, case_id: str) -> Removed:
        """Delete a case from the database: its events, snapshots and the artifacts no other
        case refers to. A case directory is refused: its folder is the user's to delete."""
        from casefile.store.base import DirectoryStore

        if isinstance(self.store, DirectoryStore):
            raise DomainError(
                f"{self.store.directory} is a case directory: casefile does not delete folders; "
                "delete the folder yourself if you mean to"
            )
        for key in [k for k in self._sessions if k[0] == case_id]:
            del self._sessions[key]  # a removed case leaves no fold to snapshot on close
        return self.store.remove_case(case_id)
