"""What an action is: typed options, one declarative row, a typed outcome.

An action is a frozen dataclass (its options) with ``run(service, case_id, who) -> Outcome``.
Its :class:`ActionSpec` row says everything a front end needs to offer it: the words a form
shows, the ``casefile …`` command and flags, the TUI key and palette line, and whether it
writes. Front ends derive their parsers, dialogs, key bindings and read-only gates from the
rows, so an action is spelled once; :func:`argv` turns an action back into the command line
that would record the same events, and a test holds ``parse(argv(action)) == action``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who

#: How an option's text becomes its value (see :mod:`casefile.actions.text`).
Kind = Literal[
    "text",  # one line; empty means absent unless required
    "note",  # several lines kept as typed (the CLI reads ``-`` from stdin)
    "lines",  # several values, one per line (a repeated flag)
    "prior",  # a probability in (0, 1)
    "likelihood",  # a probability in (0, 1]
    "reliability",  # a probability in [0, 1]
    "seq",  # an event's seq, from 1
    "id",  # one id, a single word
    "table",  # HYPOTHESIS=P, one per line (a repeated flag)
    "pairs",  # KEY=VALUE, one per line (a repeated flag)
    "choice",  # one of ``choices``
    "switch",  # yes or no (a flag without a value)
    "seconds",  # a duration: a finite number of seconds above 0
    "words",  # a command line: its words, after ``--`` on the CLI (split as a shell would)
]


@dataclass(frozen=True)
class Option:
    """One field of an action, as every front end offers it."""

    #: the action's attribute
    name: str
    #: how a form labels it
    label: str
    kind: Kind = "text"
    #: the CLI flag (``--under``); None: a positional argument, in the order of the options
    flag: str | None = None
    required: bool = False
    #: what an absent value is (the action's own default); never shown as if typed
    default: Any = None
    #: a sample value; a form shows it greyed as "e.g. …" (never as if it were the default,
    #: which a form shows typed in, ready to keep or change)
    example: str = ""
    help: str = ""
    choices: tuple[str, ...] = ()
    #: the CLI flag's repeated name where it differs (``--likelihood`` for a table)
    metavar: str | None = None
    #: offered by a form (the TUI); False for options only a command line can give
    form: bool = True
    #: how an error names it ("the prior is empty"); default: its name in words
    noun: str = ""
    #: what a required option says when it is not given (default: "the NOUN is empty")
    missing: str = ""
    #: a form gives it several lines (default: by kind; a repeated flag may take one line)
    multiline: bool | None = None
    #: the CLI reads the value from the file its flag names (``-``: stdin), and a command line
    #: states it as ``-``, the text going to the command's stdin (pasted output)
    from_file: bool = False


@dataclass(frozen=True)
class Outcome:
    """What an action did, as data: front ends word it, none re-reads it from prose."""

    #: one line in the domain's words: what was recorded
    said: str
    #: the id or seq the command prints (``casefile hypothesis add`` prints the new id)
    value: str = ""
    #: the events appended, in order
    seqs: tuple[int, ...] = ()
    #: recorded, but what it recorded is a failure (a probe run that failed)
    failed: bool = False
    #: lines worth showing beside the value (what opening a case recorded from its ``--env``):
    #: the CLI prints them on stderr, so ``C=$(casefile new …)`` still captures the id alone
    notes: tuple[str, ...] = ()


class Action(Protocol):
    """A user action's options; running it appends its events through the service."""

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome: ...


@dataclass(frozen=True)
class ActionSpec:
    """One row of the action table."""

    #: the stable name front ends use (``hypothesis``; the TUI's ``write('hypothesis')``)
    name: str
    #: the dialog's title, and the first words of its errors ("Hypothesis not recorded")
    title: str
    #: the action's options class
    action: type[Any]
    options: tuple[Option, ...]
    #: ``casefile`` words before the options (``("hypothesis", "add")``)
    command: tuple[str, ...]
    #: the command's one-line help
    help: str
    #: a palette entry: its title and its line of help
    palette: tuple[str, str]
    #: a dialog's heading ("Propose a hypothesis")
    heading: str = ""
    #: the TUI key (Textual's name for it: ``plus``, ``A``)
    key: str | None = None
    #: the key's few words in the footer and the help ("add hypothesis")
    short: str = ""
    #: shown in the footer, not only in the help
    footer: bool = False
    #: appends events (a read-only view refuses it)
    writes: bool = True
    #: on an open case: the command takes the case id first
    on_case: bool = True
    #: takes ``--actor``/``--at`` (the events it appends name who and when)
    stamped: bool = True
    #: its command takes more than the row (report's stdout and redaction map, intake's
    #: prompts): the CLI writes that parser itself, and a test holds it to the row's flags
    own_parser: bool = False

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    def build(self, values: Mapping[str, Any]) -> Any:
        """The action from option values; absent ones take the option's default."""
        known = {f.name for f in fields(self.action)}
        return self.action(
            **{o.name: values.get(o.name, o.default) for o in self.options if o.name in known}
        )


def argv(spec: ActionSpec, action: Any, case_id: str) -> list[str]:
    """The ``casefile`` arguments that record what ``action`` records."""
    words = [*spec.command]
    if spec.on_case:
        words.append(case_id)
    last: list[str] = []  # a command line's words go after everything else, past ``--``
    for option in spec.options:
        value = getattr(action, option.name)
        if option.flag is None:
            words.append(_word(option, value))
            continue
        if value is None or value == option.default or value in ((), {}):
            continue
        if option.kind == "words":
            last = ["--", *value]
        elif option.from_file:
            words += [option.flag, "-"]
        elif option.kind == "switch":
            words.append(option.flag)
        elif option.kind in ("lines",):
            for item in value:
                words += [option.flag, str(item)]
        elif option.kind in ("table", "pairs"):
            for key, item in _items(value):
                words += [option.flag, f"{key}={_word(option, item)}"]
        else:
            words += [option.flag, _word(option, value)]
    return words + last


def command_line(spec: ActionSpec, action: Any, case_id: str, actor: str) -> str:
    """The action as a command a shell can run (quoted with :func:`shlex.join`); ``--actor``
    only where the command takes it."""
    words = ["casefile", *argv(spec, action, case_id)]
    if actor != "user" and spec.stamped:
        # before a command line's ``--``: after it, the words are the command's own
        last = [getattr(action, o.name) for o in spec.options if o.kind == "words"]
        end = len(words) - (len(last[0]) + 1 if last and last[0] else 0)
        words[end:end] = ["--actor", actor]
    return shlex.join(words)


def _items(value: Any) -> list[tuple[str, Any]]:
    return list(value.items()) if isinstance(value, Mapping) else [tuple(v) for v in value]


def _word(option: Option, value: Any) -> str:
    if isinstance(value, float):
        short = f"{value:g}"  # 0.4, not 0.4000000000000001; exact where :g would round
        return short if float(short) == value else repr(value)
    return str(value)


#: an option converter: text → value, raising ValueError in the option's words
Converter = Callable[[Option, str], Any]
