"""Who did something and when: one value stamped on every event a verb appends.

Every recording verb used to take ``actor`` and ``occurred_at`` as a pair of keyword arguments,
and the pair was dropped on the way by five of them. Passing one value whole makes that
impossible to get half right, and gives a front end one thing to build.
"""

from __future__ import annotations

from dataclasses import dataclass

from casefile.domain.events import written_time_problem
from casefile.domain.ids import actor_problem
from casefile.errors import DomainError

DEFAULT_ACTOR = "user"


@dataclass(frozen=True, slots=True)
class Who:
    """The actor of an event and, when it is known and not "now", when it happened.

    ``at`` is an ISO 8601 UTC string in casefile's stored form (see
    :func:`casefile.domain.events.format_time`), checked here because every verb stamps it on
    what it appends, and a time sealed in another form could never be rewritten; ``None``
    means the event happened when it was recorded.
    """

    actor: str = DEFAULT_ACTOR
    at: str | None = None

    def __post_init__(self) -> None:
        problem = actor_problem(self.actor)
        if problem is not None:
            raise DomainError(f"the actor {problem}")
        if self.at is not None:
            problem = written_time_problem(self.at)
            if problem is not None:
                raise DomainError(f"the time {problem}")

    def when(self, fallback: str | None) -> str | None:
        """``at`` if given, else ``fallback`` (say, when pasted output was taken)."""
        return self.at if self.at is not None else fallback


#: The default stamp: the generic actor, recorded now.
NOW = Who()
