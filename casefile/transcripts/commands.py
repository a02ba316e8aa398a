"""Which probe a recorded command line ran, and where.

The line is split as a shell would (:mod:`shlex`, never re-joined into a shell string), then
unwrapped: ``sudo`` and ``env``/``time`` prefixes, ``ssh [OPTIONS] HOST 'CMD'`` (the host is
recorded and ``CMD`` is split in turn), redirections such as ``2>&1``, and a pipeline's later
stages (``| grep …``, ``| head``), which are kept as the run's filter. The program is then
matched against the argv each installed probe declares: the same program (by basename; any
``*_perf`` binary is an nccl-tests binary), the same subcommand word where one is declared
(``nvidia-smi topo``), and the most declared options in common (``-q -d`` over ``-q``). A line
that matches no probe is a ``command`` run.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from casefile.transcripts.secrets import is_secret_name

__all__ = ["COMMAND_PROBE", "Matched", "ProbeShape", "match_command", "shapes_of"]

COMMAND_PROBE = "command"

_WRAPPERS = frozenset({"sudo", "doas", "time", "nohup", "exec", "command"})
#: sudo's options that take a value
_SUDO_VALUED = frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"})
#: ssh's options that take a value (``man ssh``)
_SSH_VALUED = frozenset("BbcDEeFIiJLlmOopQRSWw")
_REDIRECTS = frozenset({">", ">>", "<", ">&", "&>", "<&", ">|", "&>>", "<<<"})
_SEPARATORS = frozenset({";", "&&", "||", "&"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


class CommandLineError(ValueError):
    """A command line that does not split (an unclosed quote)."""


@dataclass(frozen=True)
class ProbeShape:
    """What a probe's declared argv says about the commands it reads."""

    probe: str
    program: str
    subcommand: str | None
    marks: frozenset[str]
    #: the probes whose output this one reads in full (a command either fits is read as this)
    covers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Matched:
    """A command line understood: the probe, the command it ran, where, and what filtered it."""

    probe: str
    argv: tuple[str, ...]
    host: str | None
    #: the pipeline stages after the command (``grep -i pcie | head -80``), or None
    filter: str | None
    sudo: bool = False
    #: ``NAME=VALUE`` words set for this command alone (before it, or through ``env``)
    assignments: tuple[str, ...] = ()

    @property
    def setup(self) -> str | None:
        """The other setup this command ran on, when its own assignments change what it
        measures: see :func:`other_setup`."""
        return other_setup(self.assignments)


#: Assignments that change only what a command prints or how, never what it measures: logging,
#: locale, terminal and pager settings. Any other assignment made for one command alone
#: (``NCCL_P2P_DISABLE=1 all_reduce_perf …``, ``CUDA_VISIBLE_DEVICES=0,1 …``) is a deliberate
#: change for that run: the variant of an A/B, not the state of the system under investigation.
_COSMETIC = re.compile(
    r"(NCCL_DEBUG(_SUBSYS|_FILE)?|LANG|LANGUAGE|LC_[A-Z]+|TERM|COLUMNS|LINES|TZ|PAGER|"
    r"NO_COLOR|FORCE_COLOR|PYTHONUNBUFFERED|PYTHONIOENCODING)="
)


#: how a variable ``env -u`` removed stands among the assignments (and in a setup label)
UNSET = "=(unset)"
#: what ``env -i`` unsets, as it stands in a setup label
EVERYTHING = "(environment)"
#: the longest setup label a run's conditions keep
SETUP_LIMIT = 200


def other_setup(assignments: Iterable[str]) -> str | None:
    """``NAME=VALUE …`` of the assignments that make a run one of another setup, or None."""
    # a credential changes who may run, not what is measured (and its value is scrubbed)
    changed = [
        word
        for word in assignments
        if not _COSMETIC.match(word) and not is_secret_name(word.partition("=")[0])
    ]
    if not changed:
        return None
    label = "".join(ch if ch.isprintable() else "?" for ch in " ".join(changed))
    return label if len(label) <= SETUP_LIMIT else label[: SETUP_LIMIT - 1] + "…"


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return "all_reduce_perf" if name.endswith("_perf") else name


def _strip_prefixes(words: list[str]) -> tuple[list[str], list[str], bool]:
    """(the command, the environment assignments before it, whether sudo ran it)."""
    assignments: list[str] = []
    sudo = False
    while words:
        head = words[0]
        if _ASSIGNMENT.match(head):
            assignments.append(words.pop(0))
        elif head == "env":
            words.pop(0)
            while words and (words[0].startswith("-") or _ASSIGNMENT.match(words[0])):
                word = words.pop(0)
                if _ASSIGNMENT.match(word):
                    assignments.append(word)
                elif word in ("-u", "--unset") and words:
                    # unsetting a variable changes the setup as setting one does
                    assignments.append(f"{words.pop(0)}{UNSET}")
                elif word.startswith("--unset="):
                    assignments.append(f"{word.partition('=')[2]}{UNSET}")
                elif word.startswith("-u") and len(word) > 2:
                    assignments.append(f"{word[2:]}{UNSET}")  # -uNAME
                elif word in ("-i", "--ignore-environment", "-"):
                    assignments.append(f"{EVERYTHING}{UNSET}")  # everything unset
                elif word in ("-S", "--split-string") and words:
                    # the value is the rest of the command line, as one string
                    words[:1] = _split(words[0])
                elif word.startswith("--split-string="):
                    words[:0] = _split(word.partition("=")[2])
                elif word in ("-C", "--chdir") and words:
                    words.pop(0)  # the option's value, not the command
        elif head in _WRAPPERS:
            sudo = sudo or head in ("sudo", "doas")
            valued = _SUDO_VALUED if head in ("sudo", "doas") else frozenset()
            words.pop(0)
            while words and words[0].startswith("-") and words[0] != "--":
                option = words.pop(0)
                if option in valued and words:
                    words.pop(0)
            if words and words[0] == "--":
                words.pop(0)
        else:
            break
    return words, assignments, sudo


def _marks(words: Iterable[str]) -> set[str]:
    """The words that tell one mode from another: option names (a short-option cluster as its
    letters), assignments, and plain words without digits or commas (values are not marks)."""
    marks: set[str] = set()
    for word in words:
        if _ASSIGNMENT.match(word):
            marks.add(word)
        elif word.startswith("--"):
            marks.add(word.split("=", 1)[0])
        elif word.startswith("-") and len(word) > 1:
            marks.update(f"-{letter}" for letter in word[1:] if letter.isalpha())
        elif not any(ch.isdigit() or ch == "," for ch in word):
            marks.add(word)
    return marks


def shapes_of(declared: Iterable[tuple[str, Sequence[str], Iterable[str]]]) -> list[ProbeShape]:
    """The shapes of probes given as (name, declared argv, the probes it covers); probes
    without an argv are left out (a sampler, the generic command probe)."""
    shapes = []
    for name, argv, covering in declared:
        covers = frozenset(covering)
        words, assignments, _ = _strip_prefixes(list(argv))
        if not words or name == COMMAND_PROBE:
            continue
        rest = words[1:]
        sub = rest[0] if rest and not rest[0].startswith("-") else None
        marks = _marks([*assignments, *rest])
        shapes.append(ProbeShape(name, _program(words[0]), sub, frozenset(marks), covers))
    return shapes


#: the longest command line split as a shell would: :mod:`shlex` builds each word a character
#: at a time, so a megabyte-long word took half a minute; nothing a probe runs is that long
SPLIT_LIMIT = 64 * 1024


def _split(line: str) -> list[str]:
    if len(line) > SPLIT_LIMIT:
        raise CommandLineError(
            f"a command line of {len(line):,} characters is longer than casefile reads as a "
            f"command ({SPLIT_LIMIT:,})"
        )
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError as error:
        raise CommandLineError(f"{line!r} does not split: {error}") from None


def _stages(words: list[str]) -> list[list[str]]:
    """The first command's pipeline stages, redirections dropped."""
    stages: list[list[str]] = [[]]
    index = 0
    while index < len(words):
        word = words[index]
        if word in _SEPARATORS:
            break
        if word == "|" or word == "|&":
            stages.append([])
        elif word in _REDIRECTS:
            if stages[-1] and stages[-1][-1].isdigit():
                stages[-1].pop()  # the descriptor of ``2>&1``
            index += 1  # and its target
        else:
            stages[-1].append(word)
        index += 1
    return [stage for stage in stages if stage]


def _unwrap_ssh(words: list[str]) -> tuple[str | None, list[str]] | None:
    """(host, remote command words) for ``ssh [OPTIONS] HOST CMD…``, or None if not ssh."""
    if not words or _program(words[0]) != "ssh":
        return None
    index = 1
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if len(option) == 2 and option[1] in _SSH_VALUED:
            index += 1
    if index >= len(words):
        return None
    host = words[index].rsplit("@", 1)[-1]
    remote = words[index + 1 :]
    if len(remote) == 1:
        return host, _split(remote[0])
    return host, _split(" ".join(remote)) if remote else []


def match_command(line: str, shapes: Sequence[ProbeShape]) -> Matched:
    """The probe ``line`` ran (``command`` when none matches). Raises
    :class:`CommandLineError` for a line that does not split."""
    words = _split(line)
    host: str | None = None
    stages = _stages(words)
    filters: list[str] = []
    if stages:
        remote = _unwrap_ssh(_strip_prefixes(list(stages[0]))[0])
        if remote is not None:
            host, remote_words = remote
            filters = [shlex.join(stage) for stage in stages[1:]]
            stages = _stages(remote_words)
    if not stages:
        return Matched(COMMAND_PROBE, tuple(words), host, None)
    command, assignments, sudo = _strip_prefixes(list(stages[0]))
    filters = [shlex.join(stage) for stage in stages[1:]] + filters
    unset = [a.partition("=")[0] for a in assignments if a.endswith(UNSET)]
    kept = [a for a in assignments if not a.endswith(UNSET)]
    # as a shell takes it back: ``env -i`` / ``env -u NAME`` for what was unset, then the rest
    options = [w for n in unset for w in (("-i",) if n == EVERYTHING else ("-u", n))]
    shown = (*(("env", *options) if options else ()), *kept, *command)
    probe = _best(command, assignments, shapes) if command else None
    return Matched(
        probe or COMMAND_PROBE, shown, host, " | ".join(filters) or None, sudo, tuple(assignments)
    )


def _best(command: list[str], assignments: list[str], shapes: Sequence[ProbeShape]) -> str | None:
    program = _program(command[0])
    rest = command[1:]
    sub = rest[0] if rest and not rest[0].startswith("-") else None
    marks = _marks([*assignments, *rest])
    best: tuple[int, int, str] | None = None
    fitting = [
        shape
        for shape in shapes
        if shape.program == program
        and (shape.subcommand == sub or (shape.subcommand is None and not _is_word(sub)))
    ]
    covered = {probe for shape in fitting for probe in shape.covers}
    if all(shape.probe in covered for shape in fitting):
        covered = set()  # probes that cover each other: the marks decide, as without covers
    for shape in fitting:
        if shape.probe in covered:
            continue  # another probe that fits reads all of its output, and more
        common = len(shape.marks & marks)
        score = (common, -len(shape.marks - marks), shape.probe)
        if best is None or score[:2] > best[:2]:
            best = score
    return best[2] if best is not None else None


def _is_word(word: str | None) -> bool:
    """Whether a positional word is a subcommand (``nvlink``) rather than a value (``0``)."""
    return word is not None and not any(ch.isdigit() or ch in ",/" for ch in word)
