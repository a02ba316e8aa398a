"""Binding verbs written as functions over the case sessions to the part of the service that
offers them.

A verb that needs only the sessions (intake answers, experiments) is a plain function whose
first parameter is :class:`~casefile.app.sessions.CaseSessions`; ``verb`` makes it a method of
a part (the writer, the reader) with the same signature less that parameter, as the type
checker sees it, so the part states what it offers in one line and the signature has one home.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from casefile.app.sessions import CaseSessions

P = ParamSpec("P")
R = TypeVar("R")


class HasSessions(Protocol):
    """A part of the service: it holds the sessions its verbs run on."""

    sessions: CaseSessions


class verb(Generic[P, R]):  # lower case: used like ``property``
    """A function over the sessions, offered as a method of a part of the service."""

    def __init__(self, function: Callable[Concatenate[CaseSessions, P], R]) -> None:
        self.function = function
        self.__doc__ = function.__doc__

    @overload
    def __get__(self, owner: None, kind: type[Any]) -> verb[P, R]: ...

    @overload
    def __get__(self, owner: HasSessions, kind: type[Any]) -> Callable[P, R]: ...

    def __get__(self, owner: HasSessions | None, kind: type[Any]) -> verb[P, R] | Callable[P, R]:
        if owner is None:
            return self
        return partial(self.function, owner.sessions)
