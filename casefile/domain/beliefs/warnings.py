"""Warnings: what a careful reviewer would point at in a case, derived from its events.

Four kinds:

- ``never-measured``: the leading hypothesis rests only on calculated, reported or assumed
  evidence — no measurement supports it yet;
- ``catch-all-rising``: "something not yet named" holds more than its prior;
- ``set-aside``: a reading a rule could not use because of the conditions it was taken under;
- ``unparsed``: probe output that could not be read (the raw output is kept) — but not the
  output of a run that was a mistake rather than a measurement (see :func:`is_mistake`).

The first two are states (raised and cleared as the case moves); the last two are records that
stay raised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from casefile.domain.event_types.stored import StoredSetAside

if TYPE_CHECKING:
    from casefile.domain.beliefs.question import QuestionState
    from casefile.domain.beliefs.warning_tally import WarningTally

#: The catch-all is flagged once it exceeds its prior by this factor.
CATCH_ALL_MARGIN = 1.5

#: Runner error kinds that say the command never reached what it was meant to measure: a
#: program that does not exist, an empty command line, a host name that does not resolve, a
#: host key nobody has accepted yet. Fixing the command is the next step, not reading output.
MISTAKE_ERROR_KINDS = frozenset({"not_found", "invalid", "dns", "host_key_unknown"})
#: Exit statuses a POSIX shell gives a command it could not find (127) or could not execute
#: (126): what a typo run over SSH, where a remote shell starts the command, comes back as.
MISTAKE_EXIT_STATUSES = frozenset({126, 127})


def is_mistake(run: dict[str, Any] | None) -> bool:
    """Whether a probe run was a mistake (a typo'd command, an unknown host) rather than
    evidence: it stays recorded as a failed run, but its empty output is no "unparsed" reading.

    Decided from what the run recorded (its ``error_kind`` and exit status), never from the
    wording of its message.
    """
    if run is None:
        return False
    if run.get("error_kind") in MISTAKE_ERROR_KINDS:
        return True
    return run.get("exit_status") in MISTAKE_EXIT_STATUSES and run.get("source") != "pasted"


@dataclass(frozen=True)
class CaseWarning:
    """One warning, raised at ``seq`` (named so as not to shadow the builtin ``Warning``)."""

    code: str
    message: str
    seq: int  # the event at which it was raised
    question_id: str | None = None
    subject: str | None = None

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        return (self.code, self.question_id, self.subject)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "seq": self.seq,
            "question": self.question_id,
            "subject": self.subject,
        }


def set_aside_warning(seq: int, payload: dict[str, Any]) -> CaseWarning:
    """The warning a reading set aside at ``seq`` raises (``payload``: its record)."""
    record = StoredSetAside(payload)
    return CaseWarning(
        "set-aside",
        f"reading {record.observation_seq} set aside by rule "
        f"{record.rule_id} v{record.rule_version}: {record.reason}",
        seq,
        subject=f"{record.observation_seq}:{record.rule_id}",
    )


def set_aside_rule(code: str, subject: str | None) -> str | None:
    """The rule that set a reading aside, from a set-aside warning's subject
    (``<reading>:<rule>``); ``None`` for any other warning."""
    if code != "set-aside" or not subject or ":" not in subject:
        return None
    return subject.split(":", 1)[1]


#: A restored tracker's active warnings before they are built, in raised order: a warning, or
#: the position of the set-aside record whose :func:`set_aside_warning` it is.
SavedEntries = list[int | CaseWarning]
#: the warnings of saved entries written in full, by their place in the raised order
Written = dict[int, CaseWarning]


def without(entries: list[Any], places: Written) -> list[Any]:
    """``entries`` less those at ``places`` (a few), at C speed."""
    if not places:
        return entries
    rest = list(entries)
    for k in sorted(places, reverse=True):
        del rest[k]
    return rest


#: The old name, kept while other modules still import it.
Warning = CaseWarning

WarningKey = tuple[str, str | None, str | None]


@dataclass(eq=False)
class WarningTracker:
    """The active warnings, raised and cleared as events are folded.

    A tracker restored from a saved fold (:meth:`restored_lazily`) holds its active warnings
    as saved (most are set-aside readings, each the position of its record) and builds them
    the first time they are read or changed: a status that only counts them
    (:meth:`tallies`) never does.
    """

    _active: dict[WarningKey, CaseWarning] = field(default_factory=dict)
    #: (code, question) → the keys active under it, so clearing a state costs O(1)
    _slots: dict[tuple[str, str | None], set[WarningKey]] = field(default_factory=dict)
    #: the last inputs each state warning was decided on, per question: most events change
    #: neither, and the check is then skipped
    _last_leader_state: dict[str, tuple[str, bool]] = field(default_factory=dict)
    _last_catch_all_state: dict[str, bool] = field(default_factory=dict)
    _raised: dict[WarningKey, CaseWarning] = field(default_factory=dict)
    _cleared: dict[WarningKey, CaseWarning] = field(default_factory=dict)
    #: a restored tracker's active warnings not built yet, and the set-aside records their
    #: positions name (see :meth:`restored_lazily`)
    _pending: tuple[SavedEntries, list[dict[str, Any]], Written] | None = None

    @property
    def active(self) -> dict[WarningKey, CaseWarning]:
        """Every active warning by key, in the order raised."""
        if self._pending is not None:
            self._build_pending()
        return self._active

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WarningTracker):
            return NotImplemented
        return self.saved_state() == other.saved_state() and (
            self._raised,
            self._cleared,
        ) == (other._raised, other._cleared)

    def _build_pending(self) -> None:
        assert self._pending is not None
        entries, records, _ = self._pending
        self._pending = None
        for entry in entries:
            if isinstance(entry, CaseWarning):
                warning = entry
            else:
                record = records[entry]
                warning = set_aside_warning(record["seq"], record)
            self._active[warning.key] = warning
            self._slots.setdefault((warning.code, warning.question_id), set()).add(warning.key)

    def begin_step(self) -> None:
        if self._raised:
            self._raised.clear()
        if self._cleared:
            self._cleared.clear()

    def end_step(self) -> tuple[tuple[CaseWarning, ...], tuple[CaseWarning, ...]]:
        """Warnings raised and cleared by the event just folded (one raised and cleared in the
        same event cancels out)."""
        if not self._raised and not self._cleared:
            return (), ()
        raised = tuple(w for k, w in self._raised.items() if k in self.active)
        cleared = tuple(w for k, w in self._cleared.items() if k not in self.active)
        return raised, cleared

    def all(self) -> list[CaseWarning]:
        return sorted(self.active.values(), key=lambda w: (w.seq, w.code))

    def all_deferred(self) -> Callable[[], list[CaseWarning]]:
        """What :meth:`all` returns now, built when called: a restored tracker's warnings
        stay unbuilt until then, whatever is folded meanwhile."""
        if self._pending is None:
            now = self.all()
            return lambda: now
        entries, records, _ = self._pending

        def build() -> list[CaseWarning]:
            warnings = [
                e
                if isinstance(e, CaseWarning)
                else set_aside_warning(records[e]["seq"], records[e])
                for e in entries
            ]
            return sorted(warnings, key=lambda w: (w.seq, w.code))

        return build

    def tallies(self) -> list[WarningTally]:
        """The active warnings counted by kind (see :mod:`~casefile.domain.beliefs.warning_tally`);
        a restored tracker counts them without building them."""
        from casefile.domain.beliefs.warning_tally import tally, tally_saved

        if self._pending is not None:
            return tally_saved(*self._pending)
        return tally(self._active.values())

    # --- saving and restoring (see fold_codec) ---------------------------------------------

    def saved_state(
        self,
    ) -> tuple[list[CaseWarning], dict[str, tuple[str, bool]], dict[str, bool]]:
        """What a restored tracker needs to carry on exactly as this one would: the active
        warnings in the order they were raised, and the inputs each question's state warnings
        were last decided on (without them a restored fold would re-raise or miss a change).
        The per-step raised/cleared sets are scratch, emptied before every event."""
        return (
            list(self.active.values()),
            dict(self._last_leader_state),
            dict(self._last_catch_all_state),
        )

    def decided_state(self) -> tuple[dict[str, tuple[str, bool]], dict[str, bool]]:
        """The inputs each question's state warnings were last decided on (see
        :meth:`saved_state`), without building a restored tracker's warnings."""
        return dict(self._last_leader_state), dict(self._last_catch_all_state)

    @classmethod
    def restored(
        cls,
        active: list[CaseWarning],
        last_leader_state: dict[str, tuple[str, bool]],
        last_catch_all_state: dict[str, bool],
    ) -> WarningTracker:
        """The tracker :meth:`saved_state` describes; ``_slots`` is derived from the active
        warnings, exactly as raising them one by one would have built it."""
        return cls.restored_lazily(list(active), [], last_leader_state, last_catch_all_state, None)

    @classmethod
    def restored_lazily(
        cls,
        entries: SavedEntries,
        records: list[dict[str, Any]],
        last_leader_state: dict[str, tuple[str, bool]],
        last_catch_all_state: dict[str, bool],
        written: Written | None = None,
    ) -> WarningTracker:
        """:meth:`restored`, with the active warnings given as saved: each a warning or the
        position in ``records`` of the set-aside record that raised it (checked by the caller:
        every position names a record, no two entries share a key; ``written``: the warnings
        among them by place, when the caller knows them). They are built when first read or
        changed, exactly as :meth:`restored` would have held them."""
        if written is None:
            written = {k: e for k, e in enumerate(entries) if isinstance(e, CaseWarning)}
        tracker = cls()
        tracker._pending = (entries, records, written)
        tracker._last_leader_state.update(last_leader_state)
        tracker._last_catch_all_state.update(last_catch_all_state)
        return tracker

    def saved_entries(self) -> SavedEntries | None:
        """The active warnings as a restored tracker was given them, while none is built (a
        dump writes them back as they were); ``None`` once they are."""
        return None if self._pending is None else self._pending[0]

    def _raise(self, warning: CaseWarning) -> None:
        if warning.key not in self.active:
            self.active[warning.key] = warning
            self._slots.setdefault((warning.code, warning.question_id), set()).add(warning.key)
            if self._cleared.pop(warning.key, None) is None:
                self._raised[warning.key] = warning

    def _clear(self, code: str, question_id: str | None) -> None:
        active = self.active  # built first: a restored tracker's slots come with it
        keys = self._slots.pop((code, question_id), None)
        for key in sorted(keys or (), key=str):
            warning = active.pop(key)
            if self._raised.pop(key, None) is None:
                self._cleared[key] = warning

    def unparsed(
        self, seq: int, observation: dict[str, Any], run: dict[str, Any] | None = None
    ) -> None:
        """Raise "unparsed" for an observation that did not parse, unless its ``run`` was a
        mistake (:func:`is_mistake`)."""
        if is_mistake(run):
            return
        problems = "; ".join(observation.get("problems", [])) or "no reason given"
        self._raise(
            CaseWarning(
                "unparsed",
                f"output of {observation['probe']} (probe run {observation['probe_run_seq']}) "
                f"did not parse: {problems}; the raw output is kept",
                seq,
                subject=f"obs:{seq}",
            )
        )

    def set_aside(self, seq: int, payload: dict[str, Any]) -> None:
        self._raise(set_aside_warning(seq, payload))

    def check_question(self, seq: int, question: QuestionState) -> None:
        self._check_never_measured(seq, question)
        self._check_catch_all(seq, question)

    def _check_never_measured(self, seq: int, question: QuestionState) -> None:
        leader = question.leader()
        counts = question.support.get(leader)
        unmeasured = (
            leader != question.catch_all_id
            and question.evidence_count > 0
            and counts is not None
            and counts.get("measured", 0) <= 0
            and any(n > 0 for n in counts.values())
        )
        state = (leader, unmeasured)
        if self._last_leader_state.get(question.id) == state:
            return
        self._last_leader_state[question.id] = state
        self._clear("never-measured", question.id)
        if unmeasured:
            assert counts is not None
            kinds = sorted(kind for kind, n in counts.items() if n > 0)
            text = question.nodes[leader].text
            self._raise(
                CaseWarning(
                    "never-measured",
                    f"{text!r} leads on {'/'.join(kinds)} evidence only: never measured",
                    seq,
                    question.id,
                    leader,
                )
            )

    def _check_catch_all(self, seq: int, question: QuestionState) -> None:
        prior = question.structure.catch_all_prior
        now = question.catch_all_confidence()
        rising = prior > 0.0 and now > prior * CATCH_ALL_MARGIN
        if self._last_catch_all_state.get(question.id, False) == rising:
            return
        self._last_catch_all_state[question.id] = rising
        if rising:
            self._raise(
                CaseWarning(
                    "catch-all-rising",
                    f"'something not yet named' is at {now:.0%} (prior {prior:.0%}): "
                    "the explanation may be something not yet named",
                    seq,
                    question.id,
                )
            )
        else:
            self._clear("catch-all-rising", question.id)
