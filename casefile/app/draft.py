"""Events decided but not yet appended.

A verb decides its events on a folded case: each event is validated, sealed provisionally and
folded at once, so the next one can refer to it (a probe run, its observation and the evidence
the rules derive from it are one append, and the evidence names the observation's ``seq``,
which the draft predicts). The store seals them for real when they are appended.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from casefile.domain.beliefs import Projection, project
from casefile.domain.catalogue import validate_payload
from casefile.domain.events import NewEvent, seal, written_time_problem
from casefile.errors import DomainError

#: ``prev_hash`` of a provisional event: never a real hash, so it can never be mistaken for one.
PROVISIONAL = "provisional"


@dataclass
class Draft:
    """The events one verb decided, folded provisionally into ``projection``."""

    projection: Projection
    case_id: str
    events: list[NewEvent] = field(default_factory=list)
    #: whether anything was folded into ``projection`` (a verb that fails before its first
    #: event leaves the fold as it found it, and a session may keep it)
    touched: bool = False

    @property
    def next_seq(self) -> int:
        return self.projection.last_seq + 1

    def add(self, new: NewEvent) -> int:
        """Validate ``new``, fold it provisionally and return the ``seq`` it will get.

        Its ``occurred_at`` (a transcript's time, say) must be in the one stored form: the
        store seals whatever it is given, and a sealed time can never be rewritten."""
        if new.occurred_at is not None:
            problem = written_time_problem(new.occurred_at)
            if problem is not None:
                raise DomainError(f"{new.type}: occurred_at {problem}")
        payload = validate_payload(new.type, new.version, new.payload)
        normal = NewEvent(new.type, payload, new.actor, new.occurred_at, new.version)
        seq = self.next_seq
        provisional = seal(self.case_id, seq, PROVISIONAL, normal, recorded_at="")
        self.touched = True
        project([provisional], into=self.projection)
        self.events.append(normal)
        return seq
