"""What a short PyTorch check printed: ``python -c "import torch; print(torch.__version__); …"``
and its variants, for :mod:`casefile_probes.torch_env`.

People check their install with a one-liner before they paste anything else, and paste what it
printed: often only the values (``2.4.0+cpu`` / ``None`` / ``False``), which say nothing unless
the command that printed them is known. So a value is read only where the text shows what
printed it:

- a command line (after any shell prompt) running ``python -c CODE``, followed by its output:
  the ``print`` calls of CODE, in order, against the lines after it, one line per call (a call
  with several arguments prints them on one line, separated by blanks);
- a few lines of a script (``import torch``, ``print(torch.cuda.is_available())`` …) followed,
  after blank or fence lines, by its output, read the same way;
- a Python prompt (``>>> torch.__version__``, IPython's ``In [2]:``) and the value under it;
- a labelled value (``torch.cuda.is_available(): False``, ``PyTorch version: 2.4.0+cpu``).

Where the number of lines printed is not the number of ``print`` calls (a warning printed on
import, a loop), nothing of that command is read: a value matched to the wrong call would be
worse than none. A value of the wrong shape (``return False`` where ``True`` or ``False`` is
due) likewise. The code is parsed with :mod:`ast`, never run.

What each call gives is in :data:`EXPRESSIONS`: the version, the CUDA it was built with, whether
CUDA is available, the GPUs the job can see (``device_count()``) and the first one's name.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field

__all__ = ["EXPRESSIONS", "Printed", "read_printed", "shows_printed"]

#: the expressions read (as :func:`ast.unparse` writes them) and what each gives
EXPRESSIONS = {
    "torch.__version__": "version",
    "torch.version.__version__": "version",
    "torch.version.cuda": "cuda",
    "torch.version.hip": "hip",
    "torch.cuda.is_available()": "available",
    "torch.cuda.device_count()": "count",
    "torch.cuda.get_device_name()": "name",
    "torch.cuda.get_device_name(0)": "name",
}
_VERSION = re.compile(r"^\d{1,3}\.\d{1,3}(?:\.\d{1,4})?[\w.+-]{0,60}$")
_CUDA = re.compile(r"^\d{1,3}\.\d{1,3}(?:\.\d{1,6})?$|^None$")
_BOOL = {"True": True, "False": False}
_WANTED = {
    "version": "a torch version",
    "cuda": "a CUDA version or None",
    "hip": "a HIP version or None",
    "available": "True or False",
    "count": "a GPU count",
    "name": "a GPU name",
}
_LONGEST_CODE = 4000
# a command line running python with code: the interpreter word, -c, then the code
_COMMAND = re.compile(
    r"(?:^|[\s$#>%])((?:\S{0,200}[/\\])?python[0-9.]{0,6}(?:\.exe)?\s{1,4}-c\s.{1,4000})$"
)
# a line of a script that prints a torch value or readies one
_SCRIPT_LINE = re.compile(
    r"^\s{0,8}(?:import torch\b|from torch\b|print\(|torch\.\w[\w.]{0,80}\(.{0,80}\)\s*$)"
)
_FENCE = re.compile(r"^\s{0,8}(?:`{3,}|~{3,})")
_PROMPT = re.compile(r"^\s{0,8}(?:>>>|In \[\d{1,5}\]:)\s?(?P<code>.{1,400}?)\s*$")
_OUT = re.compile(r"^\s{0,8}(?:Out\[\d{1,5}\]:\s?)?(?P<value>.{1,200}?)\s*$")
_SEP = r"\s{0,4}[:=]\s{0,4}"
_LABELLED = (
    (
        re.compile(
            r"^\s{0,8}(?:py)?torch(?: version| __version__|\.__version__)?"
            + _SEP
            + r"(\S{1,80})\s*$",
            re.I,
        ),
        "version",
    ),
    (re.compile(r"^\s{0,8}torch\.version\.cuda" + _SEP + r"(\S{1,40})\s*$"), "cuda"),
    (
        re.compile(
            r"^\s{0,8}(?:torch\.cuda\.is_available\(\)|(?:is )?cuda (?:is )?available)"
            r"\s{0,4}[:=?]\s{0,4}(True|False)\s*$",
            re.I,
        ),
        "available",
    ),
    (
        re.compile(
            r"^\s{0,8}(?:torch\.cuda\.device_count\(\)|(?:cuda )?device count)"
            + _SEP
            + r"(\d{1,3})\s*$",
            re.I,
        ),
        "count",
    ),
    (
        re.compile(r"^\s{0,8}torch\.cuda\.get_device_name\(0?\)" + _SEP + r"(\S.{0,100}?)\s*$"),
        "name",
    ),
)


@dataclass
class Printed:
    """The values a check printed, by what each is (:data:`EXPRESSIONS`), first reading kept."""

    values: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def put(self, what: str, raw: str) -> bool:
        """Keep ``raw`` as ``what`` if it has that value's shape; say so if not."""
        value = raw.strip().strip("'\"")
        fits = {
            "version": _VERSION.match(value) is not None,
            "cuda": _CUDA.match(value) is not None,
            "hip": _CUDA.match(value) is not None or _VERSION.match(value) is not None,
            "available": value in _BOOL,
            "count": value.isdigit() and len(value) <= 3,
            "name": 0 < len(value) <= 100 and not value.startswith(("<", "Traceback")),
        }[what]
        if not fits:
            self.problems.append(f"printed {value[:60]!r} where {_WANTED[what]} was due; not read")
            return False
        self.values.setdefault(what, value)
        return True


def _prints(code: str) -> list[list[ast.expr]] | None:
    """The arguments of each ``print`` call of ``code``, in order; None where the code does
    not parse, prints inside a block (a loop's count is unknown) or sets ``sep`` or ``end``."""
    if len(code) > _LONGEST_CODE:
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    calls: list[list[ast.expr]] = []
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "print"
        ):
            if call.keywords or any(isinstance(arg, ast.Starred) for arg in call.args):
                return None
            calls.append(list(call.args))
        elif any(isinstance(node, ast.Name) and node.id == "print" for node in ast.walk(statement)):
            return None
    return calls


def _match(printed: Printed, calls: list[list[ast.expr]], lines: list[str], where: str) -> bool:
    """Each call's line read against its arguments; nothing read where the counts differ."""
    if len(lines) != len(calls):
        printed.problems.append(
            f"{where}: {len(calls)} print call(s) but {len(lines)} line(s) printed; not read"
        )
        return False
    staged = Printed()
    for args, line in zip(calls, lines, strict=True):
        words = line.split(maxsplit=max(len(args) - 1, 0)) if len(args) > 1 else [line]
        if len(words) != len(args):
            printed.problems.append(f"{where}: {line[:60]!r} does not split into its arguments")
            return False
        for arg, word in zip(args, words, strict=True):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if arg.value.strip() != word.strip():
                    printed.problems.append(f"{where}: {line[:60]!r} is not what it prints")
                    return False
                continue
            what = EXPRESSIONS.get(_unparse(arg))
            if what is not None and not staged.put(what, word):
                printed.problems.extend(staged.problems)
                return False
    for what, value in staged.values.items():
        printed.values.setdefault(what, value)
    return bool(staged.values)


def _unparse(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # an odd tree must never cost the reading
        return ""


def _command_code(line: str) -> str | None:
    """The code of a ``python -c CODE`` command line (shell quoting undone), if it is one."""
    found = _COMMAND.search(line)
    if found is None or "torch" not in found.group(1):
        return None
    try:
        words = shlex.split(found.group(1))
    except ValueError:
        return None
    if "-c" not in words or words.index("-c") + 1 >= len(words):
        return None
    return words[words.index("-c") + 1]


def _output(lines: list[str], start: int, *, skip_fences: bool) -> tuple[list[str], int]:
    """The lines printed from ``start``: blank (and, after a script, fence) lines skipped
    first, then every line up to a blank one, a fence, a prompt or another command."""
    index = start
    while index < len(lines) and (
        not lines[index].strip() or (skip_fences and _FENCE.match(lines[index]))
    ):
        index += 1
    out: list[str] = []
    while index < len(lines):
        line = lines[index]
        if not line.strip() or _FENCE.match(line) or _command_code(line) is not None:
            break
        if _PROMPT.match(line) or _SCRIPT_LINE.match(line):
            break
        out.append(line.strip())
        index += 1
    return out, index


def read_printed(text: str) -> Printed:
    """The values of every command, script, prompt and label in ``text`` that shows what it
    printed (see the module's docstring)."""
    printed = Printed()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        code = _command_code(line)
        if code is not None:
            calls = _prints(code)
            out, index = _output(lines, index + 1, skip_fences=False)
            if calls:
                _match(printed, calls, out, "the command")
            continue
        prompt = _PROMPT.match(line)
        if prompt is not None:
            index = _read_prompt(printed, prompt.group("code"), lines, index + 1)
            continue
        if _SCRIPT_LINE.match(line):
            end = index
            while end < len(lines) and (not lines[end].strip() or _SCRIPT_LINE.match(lines[end])):
                end += 1
            calls = _prints("\n".join(part.strip() for part in lines[index:end]))
            out, index = _output(lines, end, skip_fences=True)
            if calls:
                _match(printed, calls, out, "the script")
            continue
        for pattern, what in _LABELLED:
            labelled = pattern.match(line)
            if labelled is not None:
                printed.put(what, labelled.group(1))
                break
        index += 1
    return printed


def _read_prompt(printed: Printed, code: str, lines: list[str], index: int) -> int:
    """A prompt's expression (or its one ``print``) and the value on the next line."""
    calls = _prints(code)
    if calls is None:
        return index
    if calls:
        args = calls[0] if len(calls) == 1 and len(calls[0]) == 1 else None
        expression = _unparse(args[0]) if args else ""
    else:
        try:
            tree = ast.parse(code.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return index
        expression = _unparse(tree.body)
    what = EXPRESSIONS.get(expression)
    if what is None or index >= len(lines):
        return index
    value = _OUT.match(lines[index])
    if value is not None and not _PROMPT.match(lines[index]):
        printed.put(what, value.group("value"))
        return index + 1
    return index


def shows_printed(text: str) -> bool:
    """Whether a text shows a torch check's command, script or prompt with a value it reads
    (cheap: the lines are looked at only where ``torch`` is named)."""
    if "torch" not in text:
        return False
    return bool(read_printed(text).values)
