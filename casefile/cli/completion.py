"""Shell completion for bash and zsh: ``casefile completion bash|zsh`` prints the script.

The script is generated from the argument parser itself, so the commands, actions, options and
option choices it completes are always the ones this casefile takes. What depends on the
machine is asked for at completion time through a hidden subcommand,
``casefile __complete KIND [--db URL] PREFIX``, which prints one match a line:

* ``probes`` and ``playbooks``: names from the installed plugins' entry-point metadata only
  (nothing imported, no database opened, no database driver loaded), so it stays fast;
* ``cases``: the case ids in the database (``--db``, ``CASEFILE_DB`` or the config file's).

The helper never fails loudly: any error means no matches (a completion must not print a
traceback into the middle of a command line).

Load it with ``source <(casefile completion bash)`` in ``~/.bashrc``, or for zsh write
``casefile completion zsh`` to a file named ``_casefile`` in a directory on ``$fpath``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from casefile.cli.terminal import say

SHELLS = ("bash", "zsh")
HELPER = "__complete"
KINDS = ("probes", "playbooks", "cases")

#: what a positional argument's values are, by its dest (others complete nothing)
_POSITIONAL_KINDS = {
    "case": "cases",
    "probe": "probes",
    "playbook": "playbooks",
    "directory": "file",
    "file": "file",
    "shell": "words:" + " ".join(SHELLS),
}
#: options whose value is a path, by dest
_PATH_DESTS = {"db", "paste", "known_hosts", "ssh_config", "file", "directory"}


@dataclass
class Spec:
    """What one command path (``status``, ``hypothesis add``) takes."""

    path: str
    options: list[str] = field(default_factory=list)
    #: option → "words:a b c", "file" or "" (a value, but nothing to complete)
    values: dict[str, str] = field(default_factory=dict)
    positionals: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


def _visible(action: argparse._SubParsersAction[argparse.ArgumentParser]) -> list[str]:
    """The subcommands listed in help (those registered with ``help=``), in order."""
    return [choice.dest for choice in action._choices_actions]


def _subparsers(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _spec(path: str, parser: argparse.ArgumentParser) -> Spec:
    spec = Spec(path)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            spec.actions = _visible(action)
        elif action.option_strings:
            if action.help != argparse.SUPPRESS:  # a hidden option is still walked past
                spec.options += action.option_strings
            if action.nargs != 0:
                kind = ""
                if action.choices is not None:
                    kind = "words:" + " ".join(str(c) for c in action.choices)
                elif action.dest in _PATH_DESTS:
                    kind = "file"
                for option in action.option_strings:
                    spec.values[option] = kind
        else:
            spec.positionals.append(_POSITIONAL_KINDS.get(action.dest, ""))
    return spec


def specs(parser: argparse.ArgumentParser) -> Iterator[Spec]:
    """The top level (path ``""``), then every command and every action of a command group."""
    yield _spec("", parser)
    sub = _subparsers(parser)
    if sub is None:
        return
    for name in _visible(sub):
        command = sub.choices[name]
        yield _spec(name, command)
        group = _subparsers(command)
        if group is not None:
            for action in _visible(group):
                yield _spec(f"{name} {action}", group.choices[action])


def _quote(word: str) -> str:
    """A word inside double quotes in the script (names and choices are plain, but be sure)."""
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def _data_functions(all_specs: Sequence[Spec]) -> str:
    """Shell functions, valid in bash and zsh alike, that answer from the parser's data."""
    groups = [s.path for s in all_specs if s.actions and s.path]
    lines = [
        "_casefile_is_group() {",
        '    case "$1" in',
        f"        {'|'.join(_quote(g) for g in groups) or '__none__'}) return 0 ;;",
        "    esac",
        "    return 1",
        "}",
        "",
        "# the value kind of option $2 of command $1 (status 1: the option takes no value)",
        "_casefile_value_kind() {",
        '    case "$1|$2" in',
    ]
    for spec in all_specs:
        for option, kind in spec.values.items():
            lines.append(f"        {_quote(spec.path + '|' + option)}) echo {_quote(kind)} ;;")
    lines += [
        "        *) return 1 ;;",
        "    esac",
        "}",
        "",
        "# what command $1 takes: its options, its actions, and its positional argument $2",
        "_casefile_options() {",
        '    case "$1" in',
    ]
    for spec in all_specs:
        lines.append(f"        {_quote(spec.path)}) echo {_quote(' '.join(spec.options))} ;;")
    lines += ["    esac", "}", "", "_casefile_actions() {", '    case "$1" in']
    for spec in all_specs:
        if spec.actions:
            lines.append(f"        {_quote(spec.path)}) echo {_quote(' '.join(spec.actions))} ;;")
    lines += ["    esac", "}", "", "_casefile_positional() {", '    case "$1|$2" in']
    for spec in all_specs:
        for index, kind in enumerate(spec.positionals):
            if kind:
                lines.append(f"        {_quote(f'{spec.path}|{index}')}) echo {_quote(kind)} ;;")
    lines += ["    esac", "}"]
    return "\n".join(lines)


# Shared by both shells: walk the words before the cursor (given as arguments), setting
# _cf_path (the command, and action of a group), _cf_npos (positionals seen), _cf_expect (an
# option still waiting for its value), _cf_db (a --db given) and _cf_rest (after probe's --).
_WALK = r"""
_casefile_walk() {
    _cf_path="" _cf_npos=0 _cf_expect="" _cf_db="" _cf_rest=""
    local word
    for word in "$@"; do
        if [[ -n $_cf_rest ]]; then
            continue
        fi
        if [[ -n $_cf_expect ]]; then
            [[ $_cf_expect == --db ]] && _cf_db=$word
            _cf_expect=""
            continue
        fi
        if [[ $word == -- ]]; then
            [[ $_cf_path == probe ]] && _cf_rest=1
            continue
        fi
        if [[ $word == --db=* ]]; then
            _cf_db=${word#--db=}
            continue
        fi
        if [[ $word == -* ]]; then
            if [[ $word != *=* ]] && _casefile_value_kind "$_cf_path" "$word" >/dev/null; then
                _cf_expect=$word
            fi
            continue
        fi
        if [[ -z $_cf_path ]]; then
            _cf_path=$word
        elif [[ $_cf_path != *" "* ]] && _casefile_is_group "$_cf_path"; then
            _cf_path="$_cf_path $word"
        else
            _cf_npos=$((_cf_npos + 1))
        fi
    done
}

# What to complete for the word $1 under the cursor: words:LIST, file, cases, probes,
# playbooks or nothing.
_casefile_kind() {
    if [[ -n $_cf_rest ]]; then
        echo file
    elif [[ -n $_cf_expect ]]; then
        _casefile_value_kind "$_cf_path" "$_cf_expect"
    elif [[ -z $_cf_path || $1 == -* ]]; then
        if [[ $1 == -* ]]; then
            echo "words:$(_casefile_options "$_cf_path")"
        else
            echo "words:$(_casefile_actions "")"
        fi
    elif [[ $_cf_path != *" "* ]] && _casefile_is_group "$_cf_path"; then
        echo "words:$(_casefile_actions "$_cf_path")"
    else
        _casefile_positional "$_cf_path" "$_cf_npos"
    fi
}

# Names casefile knows: one a line, from the hidden helper; nothing if it fails.
_casefile_dynamic() {
    if [[ -n $_cf_db ]]; then
        command casefile __complete "$1" --db "$_cf_db" -- "$2" 2>/dev/null
    else
        command casefile __complete "$1" -- "$2" 2>/dev/null
    fi
}
"""

_BASH = r"""
_casefile() {
    local cur=${COMP_WORDS[COMP_CWORD]} kind
    _casefile_walk "${COMP_WORDS[@]:1:COMP_CWORD-1}"
    kind=$(_casefile_kind "$cur")
    COMPREPLY=()
    case $kind in
        words:*) COMPREPLY=($(compgen -W "${kind#words:}" -- "$cur")) ;;
        file) COMPREPLY=($(compgen -f -- "$cur")) ;;
        cases|probes|playbooks)
            local IFS=$'\n'
            COMPREPLY=($(_casefile_dynamic "$kind" "$cur"))
            ;;
    esac
    return 0
}
complete -o bashdefault -F _casefile casefile
"""

_ZSH = r"""
_casefile() {
    local cur=${words[CURRENT]} kind
    local -a found
    _casefile_walk "${(@)words[2,CURRENT-1]}"
    kind=$(_casefile_kind "$cur")
    case $kind in
        words:*)
            found=(${=kind#words:})
            compadd -- $found
            ;;
        file) _files ;;
        cases|probes|playbooks)
            found=(${(f)"$(_casefile_dynamic "$kind" "$cur")"})
            compadd -- $found
            ;;
    esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _casefile "$@"
else
    compdef _casefile casefile
fi
"""


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for ``shell``."""
    data = _data_functions(list(specs(parser)))
    if shell == "bash":
        head = "# casefile completion for bash: source <(casefile completion bash)\n"
        return head + data + _WALK + _BASH
    head = (
        "#compdef casefile\n"
        "# casefile completion for zsh: save as _casefile in a directory on $fpath\n"
    )
    return head + data + _WALK + _ZSH


def cmd_completion(args: argparse.Namespace) -> int:
    from casefile.cli.main import build_parser

    print(script(args.shell, build_parser()), end="")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "completion",
        help="print the shell completion script (bash or zsh)",
        description="Print a completion script. bash: `source <(casefile completion bash)` in "
        "~/.bashrc. zsh: `casefile completion zsh > ~/.zfunc/_casefile` with ~/.zfunc on $fpath.",
    )
    p.add_argument("shell", choices=SHELLS)
    p.set_defaults(handler=cmd_completion)


def _names(kind: str, db: str | None) -> list[str]:
    if kind in ("probes", "playbooks"):
        from importlib.metadata import entry_points

        return sorted({ep.name for ep in entry_points(group=f"casefile.{kind}")})
    from casefile.app.opening import open_service
    from casefile.cli.config import load_config
    from casefile.plugins import Registry

    if db is None:
        import os

        if not os.environ.get("CASEFILE_DB"):
            db = load_config().db
    with open_service(db, Registry()) as service:
        return [row.id for row in service.library.cases()]


def helper(words: Sequence[str]) -> int:
    """``casefile __complete KIND [--db URL] [--] PREFIX``: the matches, one a line; exit 0
    with nothing printed for anything it cannot answer."""
    rest = list(words)
    if not rest or rest[0] not in KINDS:
        return 0
    kind, rest = rest[0], rest[1:]
    db = None
    if len(rest) >= 2 and rest[0] == "--db":
        db, rest = rest[1], rest[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    prefix = rest[0] if rest else ""
    try:
        names = _names(kind, db)
    except Exception:  # a completion never prints an error into a command line
        return 0
    for name in names:
        if name.startswith(prefix):
            say(name)
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    return 0
