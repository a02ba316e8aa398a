"""``py-spy top`` and ``py-spy dump``: where a training process's Python threads spend their time,
read for a host that feeds its GPU too slowly.

A GPU left waiting is often waiting on Python: a DataLoader whose workers decode images, a main
thread blocked in ``torch.cuda.synchronize()`` or ``.item()``. py-spy shows either from outside
the process. Both of its text outputs are read:

- ``py-spy top`` (the table ``%Own %Total OwnTime TotalTime Function (filename[:line])``, with or
  without its ``Collecting samples …`` / ``Total Samples`` / ``GIL: …, Threads: N`` lines):
  shares are of the own time shown (the ``OwnTime`` column, cumulative over the run, rather
  than ``%Own``, which covers the last second only and passes 100% with several threads);
- ``py-spy dump`` (``Thread … (idle|active…): "name"`` lines, each followed by its frames,
  innermost first, indented; ``Process …`` and ``Python v…`` lines, ``--locals`` blocks,
  several processes one after another (below) and the tab-indented frames of py-spy 0.1 too):
  shares are of threads.

Facts, all on ``host``:

- ``host.data_share``: share in data loading and preprocessing: functions of
  ``torch/utils/data``, PIL, torchvision transforms and io, OpenCV, tokenizers and similar
  libraries, and functions named ``__getitem__``, ``collate…``, ``tokeniz…``, ``decode``,
  ``read``, ``load_image`` and the like. For a dump, a thread counts when one of its six
  innermost frames is such (a main thread blocked in ``_next_data`` waits for data), the
  pin-memory loop aside;
- ``host.gpu_wait_share``: share waiting on the GPU: ``…synchronize``, ``item``,
  ``_local_scalar_dense``, ``cpu``, ``tolist`` and ``wait`` in a CUDA module. For a dump, a
  thread counts when its top frame (or its first Python frame under native ones) is such;
- ``host.gil_share``: the share of samples in which a thread of the process held the GIL
  (top's ``GIL: 71.43%`` header; a dump has none). Native work (a PyTorch op on the CPU, a
  wait in ``synchronize``, a DataLoader queue) runs with the GIL released, so a share near one
  says Python bytecode itself keeps the process busy. ``GIL: 0.00%`` above rows whose Python
  functions ran in the last second is py-spy failing to find the GIL's holder (it cannot on
  Python 3.12+ nor on some older builds): no share is given then;
- ``pyspy.top_function`` (str): the row with the most own time (top), or the main thread's
  innermost frame with a name (dump; under ``--native`` not libc's bare ``0x7f…``
  addresses), as printed (``name (file:line)``); of the first process that shows a main
  thread where a dump holds several processes;
- ``pyspy.threads``: threads in the dump (of its first process where it holds several), or the
  ``Threads:`` count of top's header; not given for a dump pasted from inside a thread's frames
  (the threads above the cut are unknown).

Which threads a dump's shares are of: a process's main thread says most about where its time
goes, and most of its other threads sleep. So the shares are over the main thread and the other
threads that are doing something. The main thread is the one named ``MainThread``; where the
dump names no thread (py-spy 0.1 printed ``Thread 0x7F… (active)`` alone), the one whose
outermost Python frame is ``<module>`` (a thread that ``threading`` started has ``_bootstrap``
there). A thread with no frames (``Thread 4076 (idle)``) is left out, and so is a thread other
than the main one whose innermost frame is a block on a queue ``get``, a ``select``/``poll``, a
``wait`` outside CUDA or a ``sleep`` (a pin-memory thread or a worker waiting for its next batch
is no evidence that data loading is slow; a main thread blocked in the DataLoader is). A thread
whose only data-loading frames are DataLoader's pin-memory loop
(``torch/utils/data/_utils/pin_memory.py``) is not counted as loading data either: every
``pin_memory=True`` job has one. Where no thread is left (every thread blocked, no main
thread), the shares are over all threads with frames.

Several processes in one paste (``py-spy dump --subprocesses``; ray's ``ray stack``, a ``Stack
dump for`` line of ``ps`` above each process; a server's watchdog dumping each of its scheduler
processes, as SGLang's does): a ``Process N: …`` or ``Stack dump for`` line starts each, and
threads above the first such line are one more process's. The processes are kept apart, not
read as one process's threads:

- the shares are over every process's main thread and busy threads (each process does part of
  the job), save the main thread of a DataLoader worker process blocked in the worker loop: a
  worker waiting for its next index has nothing to do, like a thread blocked on a queue;
- ``pyspy.top_function`` is of the main thread of the first process that shows one (with
  ``--subprocesses``, the process ``--pid`` named; under a watchdog, the first one dumped),
  else of the first thread with frames, as for one process;
- ``pyspy.threads`` counts the first process's threads (none where the paste starts inside
  them): a sum over processes is no process's count.

A problem names the processes and says which of them each fact is of.

The patterns are a heuristic over names, said in the docstring so that a reader of a rule can
judge them: a ``read`` in a network client counts as data loading, a ``wait`` outside a CUDA
module does not count as waiting on the GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._software import NATIVE_RUNTIMES

__all__ = ["PROBE", "looks_like_py_spy", "parse_py_spy"]

_TOP_HEADER = re.compile(r"^\s*%Own\s+%Total\s+OwnTime\s+TotalTime\s+Function\b")
# The function cell is greedy and its trailing blanks are stripped afterwards: a lazy cell
# followed by ``\s*$`` is retried at every blank of a long line (quadratic).
_TOP_ROW = re.compile(
    r"^\s*(?P<own>-?\d+(?:\.\d+)?)%\s+(?P<total>-?\d+(?:\.\d+)?)%"
    r"(?:\s+(?P<own_s>\d+(?:\.\d+)?)s(?:\s+(?P<total_s>\d+(?:\.\d+)?)s"
    r"(?:\s+(?P<function>\S.*))?)?)?$"
)
_THREADS = re.compile(r"\bThreads:\s*(\d+)")
_GIL = re.compile(r"\bGIL:\s*(\d+(?:\.\d+)?)%")
_THREAD = re.compile(
    r"^\s*Thread\b(?:\s+(?P<id>0[xX][0-9A-Fa-f]+|\d+))?\s*\((?P<state>[^)]*)\)"
    r"(?::\s*\"(?P<name>.*)\")?\s*$"
)
#: the line that starts a process's dump: py-spy's own, or ray's ``ray stack`` (``Stack dump
#: for`` and a ``ps aux`` line: the user, then the pid)
_PROCESS = re.compile(r"^(?:Process\s+(?P<pid>\d+):|Stack dump for\s+\S+\s+(?P<ps_pid>\d+)\b)")
_ELISION = re.compile(r"^(?:\.\.\.|…)$")
_PY_FILE = re.compile(r"\S*\.py:\d+")
_DUMP_FRAMES = 6  # innermost frames of a dumped thread that may show it waits for data

_DATA_FILE = re.compile(
    r"(?:^|/)(?:torch/utils/data/|PIL/|torchvision/(?:transforms|io|datasets)/|cv2|"
    r"albumentations/|tokenizers/|transformers/tokenization_|datasets/|webdataset/|decord/|"
    r"imageio/|torchaudio/|nvidia/dali/|ffcv/)"
)
_DATA_FUNCTION = re.compile(
    r"^(?:__getitems?__|_next_data|_get_data|_try_get_data|_worker_loop|_pin_memory_loop|"
    r"\w*collate\w*|\w*tokeniz\w*|decode|decode_image|imdecode|imread|read|readinto|"
    r"read_image|load_image|_?(?:load|read)_(?:image|sample|data|audio|video)\w*|pil_loader)$",
    re.I,
)
# ``__getitem__`` of a container in torch itself (ModuleList, a tensor) is not data loading.
_NOT_DATA_FILE = re.compile(r"(?:^|/)(?:torch/(?:nn|fx|_tensor)|typing\.py)")
# DataLoader's pin-memory thread: present in every pin_memory=True job, busy or not
_PIN_MEMORY = re.compile(r"(?:^|/)torch/utils/data/_utils/pin_memory\.py|^_pin_memory_loop$")
# DataLoader's worker loop: a worker process's main thread blocked under it awaits its next index
_WORKER_LOOP = re.compile(r"(?:^|/)torch/utils/data/_utils/worker\.py|^_worker_loop$")
# a thread's innermost frame that only waits: a lock or condition, a queue, a poll, a sleep
_BLOCKING = frozenset({"select", "poll", "_poll", "acquire", "_recv_bytes", "_recv"})
_QUEUE_FILE = re.compile(r"(?:^|/)(?:queue\.py|multiprocessing/)")
_JOINS = frozenset({"join", "_shutdown", "_wait_for_tstate_lock", "wait"})
#: the C library's waits, bare of glibc's "__GI___" prefix
_NATIVE_WAITS = frozenset({"poll", "ppoll", "select", "pselect", "nanosleep", "clock_nanosleep"})
_THREADING_FILE = re.compile(r"(?:^|/)threading\.py(?::\d+)?$")
_WAIT_FUNCTION = re.compile(
    r"(?:synchroniz|^item$|_local_scalar_dense|^cpu$|^tolist$|^wait(?:_stream|_event)?$)", re.I
)


@dataclass(slots=True)
class _Frame:
    function: str
    file: str = ""

    def text(self) -> str:
        return f"{self.function} ({self.file})" if self.file else self.function


@dataclass(slots=True)
class _Thread:
    name: str
    frames: list[_Frame] = field(default_factory=list)
    #: the dump gave the thread a name ("MainThread"), not only an id
    named: bool = False


@dataclass(slots=True)
class _Process:
    #: the pid its ``Process`` line gives; None for threads above the paste's first such line
    pid: str | None
    threads: list[_Thread] = field(default_factory=list)

    def main_thread(self) -> _Thread | None:
        """The thread named ``MainThread`` (with frames), or where the dump names none, the
        one whose outermost Python frame is ``<module>``: a script's own thread."""
        named = next((t for t in self.threads if t.name == "MainThread" and t.frames), None)
        if named is not None or any(t.named for t in self.threads):
            return named
        return next((t for t in self.threads if _runs_a_script(t)), None)


def _frame(text: str) -> _Frame:
    """``name (file:line)`` split at its last `` (``; a line without one is all name."""
    text = text.strip()
    opening = text.rfind(" (")
    inside = text[opening + 2 : -1]
    if opening <= 0 or not text.endswith(")") or "(" in inside or ")" in inside:
        return _Frame(function=text)
    return _Frame(function=text[:opening].rstrip(), file=inside)


def _runs_a_script(thread: _Thread) -> bool:
    """The outermost Python frame is ``<module>``: the interpreter's own thread running a
    script (one that ``threading`` started has ``_bootstrap`` there). Native frames below it
    (``--native``: ``Py_RunMain``, libc's addresses) are passed over."""
    python = [f for f in thread.frames if ".py" in f.file or f.file.startswith("<")]
    return bool(python) and python[-1].function == "<module>"


def _is_data(frame: _Frame) -> bool:
    path = frame.file.rsplit(":", 1)[0] if re.search(r":\d+$", frame.file) else frame.file
    if _NOT_DATA_FILE.search(path):
        return False
    return bool(_DATA_FILE.search(path) or _DATA_FUNCTION.match(frame.function))


def _loads_data(thread: _Thread) -> bool:
    """A data-loading frame among the innermost ones, the pin-memory loop not counted."""
    for frame in thread.frames[:_DUMP_FRAMES]:
        if _is_data(frame) and not (
            _PIN_MEMORY.search(frame.file) or _PIN_MEMORY.match(frame.function)
        ):
            return True
    return False


def _is_blocked(thread: _Thread) -> bool:
    """Its innermost frame only waits (a queue get, a select, a wait outside CUDA, a sleep)."""
    return _only_waits(thread.frames[0])


def _idle_worker(thread: _Thread) -> bool:
    """A DataLoader worker process's thread waiting for its next index: a frame of the worker
    loop, and the innermost frame (or under ``--native`` the innermost Python one) only waits.
    A worker with nothing to do is no evidence that loading is slow."""
    if not any(
        _WORKER_LOOP.search(f.file) or _WORKER_LOOP.match(f.function) for f in thread.frames
    ):
        return False
    python = next((f for f in thread.frames if ".py" in f.file), None)
    return _is_blocked(thread) or (python is not None and _only_waits(python))


def _idle_top(frame: _Frame) -> bool:
    """A top row that is no one's work: a thread joined or idle in ``threading`` (``join``,
    ``_wait_for_tstate_lock``, ``_shutdown``: the main thread at exit waiting for the others;
    an Event's or Condition's ``wait``) or a native wait in the C library (a futex, a
    condition, a poll, a sleep). A Python lock's ``acquire`` is kept: threads queueing on one
    lock is contention, a finding."""
    name = frame.function.lower()
    if name in _JOINS and _THREADING_FILE.search(frame.file):
        return True
    native = ".so" in frame.file or not frame.file
    return native and (
        "futex" in name
        or "pthread_cond" in name
        or name.lstrip("_").removeprefix("gi_").lstrip("_") in _NATIVE_WAITS
        or name.startswith("epoll_")
    )


def _only_waits(frame: _Frame) -> bool:
    """A frame that only waits: a queue get, a select, a wait outside CUDA, a sleep, or a
    thread joined (``threading``'s ``join`` and ``_shutdown``: the main thread at exit waiting
    for the others, which ``py-spy top`` shows as its own time)."""
    if _is_gpu_wait(frame):
        return False
    name = frame.function.lower()
    if name in ("get", "_get"):
        return bool(_QUEUE_FILE.search(frame.file))
    if name in _JOINS and _THREADING_FILE.search(frame.file):
        return True
    if not name or any(blank in name for blank in " \t"):
        return False
    return (
        name in _BLOCKING
        or "wait" in name
        or name.endswith("sleep")
        or name.startswith(("epoll_", "futex", "__futex"))
    )


def _is_gpu_wait(frame: _Frame) -> bool:
    if not _WAIT_FUNCTION.search(frame.function):
        return False
    if frame.function.lower().startswith("wait"):
        return "cuda" in frame.file.lower()
    return True


def _parse_top(lines: list[str], start: int, result: ParseResult) -> bool:
    """``py-spy top``'s table: shares of the own time shown. True when a Python function
    (one in a ``.py`` file) ran in the last second (its ``%Own`` above 0)."""
    rows: list[tuple[float, _Frame]] = []
    python_ran = False
    cut = 0
    for line in lines[start + 1 :]:
        if not line.strip():
            if rows:
                break
            continue
        match = _TOP_ROW.match(line)
        if match is None:
            break
        if not match.group("function"):
            cut += 1
            continue
        frame = _frame(match.group("function").rstrip())
        rows.append((float(match.group("own_s")), frame))
        python_ran = python_ran or (float(match.group("own")) > 0 and ".py" in frame.file)
    if cut:
        result.problems.append(f"{cut} row(s) cut short, without their function: not read")
    if not rows:
        return python_ran
    total = sum(own for own, _ in rows)
    if total > 0:
        data = sum(own for own, frame in rows if _is_data(frame))
        waiting = sum(own for own, frame in rows if _is_gpu_wait(frame))
        result.add("host.data_share", round(min(data / total, 1.0), 4))
        result.add("host.gpu_wait_share", round(min(waiting / total, 1.0), 4))
    # the function that takes the time, not a thread that only waits (the main thread joining
    # the others at exit holds the most "own" time of a top that ran past the job's end)
    working = [row for row in rows if not _idle_top(row[1])] or rows
    best = max(working, key=lambda row: row[0])
    result.add("pyspy.top_function", best[1].text())
    return python_ran


def _starts_inside_a_thread(lines: list[str]) -> bool:
    """The paste opens on indented ``name (file:N)`` frames before any thread header: the
    poster (or an excerpt) cut the dump inside a thread, so threads above it are missing."""
    for line in lines:
        if _THREAD.match(line):
            return False
        if line[:1] in (" ", "\t") and re.search(r"\S:\d+$", _frame(line).file):
            return True
    return False


def _dump_processes(lines: list[str]) -> list[_Process]:
    """The dump's threads, by process: a ``Process N:`` (or ray's ``Stack dump for``) line
    starts one, and threads above the first such line are a process of their own. A process
    line with no thread under it is left out."""
    processes: list[_Process] = []
    current: _Thread | None = None
    frame_indent: int | None = None
    for line in lines:
        start = _PROCESS.match(line)
        if start:
            processes.append(_Process(pid=start.group("pid") or start.group("ps_pid")))
            current = None
            continue
        header = _THREAD.match(line)
        if header:
            name = header.group("name")
            current = _Thread(name=name or header.group("id") or "", named=bool(name))
            if not processes:
                processes.append(_Process(pid=None))
            processes[-1].threads.append(current)
            frame_indent = None
            continue
        if current is None or not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        if indent == 0:
            current = None  # a Python / Parent Process line, a log line ends the thread
            continue
        if frame_indent is None:
            frame_indent = indent
        if indent > frame_indent or _ELISION.match(line.strip()):
            continue  # --locals blocks, "..." put in by whoever pasted it
        current.frames.append(_frame(line))
    return [process for process in processes if process.threads]


def _several_processes(processes: list[_Process], top: _Process | None, counts: bool) -> str:
    """The problem that says a paste held several processes and what each fact is of."""
    named = ", ".join(process.pid or "one above the first Process line" for process in processes)
    if top is None:
        source = "the first thread with frames (no process shows its main thread)"
    else:  # the threads above the first Process line have no pid: they are the first process
        source = (
            f"process {top.pid}'s main thread" if top.pid else "the first process's main thread"
        )
    threads = "pyspy.threads counts the first one's threads, " if counts else ""
    return (
        f"{len(processes)} processes dumped in one paste ({named}): {threads}the shares are "
        "over every process's main thread and busy threads, pyspy.top_function is from "
        f"{source}"
    )


def _parse_dump(lines: list[str], result: ParseResult) -> bool:
    """``py-spy dump``: shares of threads; False when there is no thread to read."""
    processes = _dump_processes(lines)
    if not processes:
        return False
    cut = _starts_inside_a_thread(lines)
    if cut:
        result.problems.append(
            "the dump starts inside a thread's frames: threads above the paste are missing,"
            " no pyspy.threads"
        )
    else:
        result.add("pyspy.threads", len(processes[0].threads))
    # each process's main thread, where it shows one
    shown = [
        (process, main) for process in processes if (main := process.main_thread()) is not None
    ]
    framed = [t for process in processes for t in process.threads if t.frames]
    # an idle worker is out whatever its innermost frame (under --native, libc's poll)
    counted = [
        t
        for t in framed
        if not _idle_worker(t) and (any(t is main for _, main in shown) or not _is_blocked(t))
    ] or framed
    if counted:
        data = sum(1 for t in counted if _loads_data(t))
        waiting = 0
        for thread in counted:
            # with --native the top frame may be libc's; the first Python frame says what waits
            python = next((f for f in thread.frames if ".py" in f.file), None)
            tops = thread.frames[:1] + ([python] if python else [])
            waiting += any(_is_gpu_wait(frame) for frame in tops)
        result.add("host.data_share", round(data / len(counted), 4))
        result.add("host.gpu_wait_share", round(waiting / len(counted), 4))
    top = shown[0][1] if shown else next(iter(framed), None)
    if top is not None:
        # with --native, libc's unnamed addresses ("0x7f… (libc.so.6)") may come first: the
        # first frame with a name says where the thread is
        named = next((f for f in top.frames if not _ADDRESS.match(f.function)), top.frames[0])
        result.add("pyspy.top_function", named.text())
    if len(processes) > 1:
        first = shown[0][0] if shown else None
        result.problems.append(_several_processes(processes, first, counts=not cut))
    return True


def parse_py_spy(text: str) -> ParseResult:
    """Read ``py-spy top`` or ``py-spy dump`` output into data-loading and GPU-wait shares."""
    if not isinstance(text, str):
        return ParseResult.unparsed("not text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    result = ParseResult()
    header = next((i for i, line in enumerate(lines) if _TOP_HEADER.match(line)), None)
    if header is not None:
        counted = next(
            (_THREADS.search(line) for line in lines[:header] if _THREADS.search(line)), None
        )
        result.add("pyspy.threads", int(counted.group(1)) if counted else None)
        gil = next((_GIL.search(line) for line in lines[:header] if _GIL.search(line)), None)
        python_ran = _parse_top(lines, header, result)
        if gil is not None and float(gil.group(1)) == 0.0 and python_ran:
            # Python code cannot run without the GIL: py-spy failed to find its holder (it
            # cannot on Python 3.12+, nor on some 3.7-3.9 builds), so 0% says nothing
            result.problems.append(
                "GIL: 0.00% while Python functions ran: py-spy could not detect the GIL in "
                "this Python; no host.gil_share"
            )
        elif gil is not None:
            result.add("host.gil_share", round(min(float(gil.group(1)) / 100, 1.0), 4))
    elif not _parse_dump(lines, result):
        return ParseResult.unparsed(
            "no py-spy top table ('%Own %Total OwnTime TotalTime Function') or dump "
            "('Thread … (active): \"MainThread\"' and its frames)"
        )
    if not any(fact.name.startswith(("host.", "pyspy.top")) for fact in result.facts):
        return ParseResult.unparsed("; ".join(result.problems) or "py-spy output without any rows")
    return result


#: a native frame without a symbol: "0x7f259f401d71 (libc.so.6)"
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{1,16}$")
#: how many frames of a dumped thread the guess looks through for a Python one
_NATIVE_LOOKAHEAD = 12


def looks_like_py_spy(text: str) -> bool:
    """A ``py-spy top`` header, or a dumped thread followed by a ``name (file.py:N)`` frame."""
    try:
        if not isinstance(text, str):
            return False
        lines = text.splitlines()
        for index, line in enumerate(lines):
            if _TOP_HEADER.match(line):
                return True
            if _THREAD.match(line):
                # the thread's first Python frame: under --native, libc's frames come first
                for following in lines[index + 1 : index + 1 + _NATIVE_LOOKAHEAD]:
                    if following[:1] not in (" ", "\t"):
                        break
                    if _PY_FILE.fullmatch(_frame(following).file):
                        return True
        return False
    except Exception:  # a guess must never break the caller
        return False


PROBE = Probe(
    name="py-spy",
    summary="py-spy dump / top of a training process: data loading and GPU-wait shares",
    parse=parse_py_spy,
    argv=("py-spy", "dump", "--pid"),
    where=frozenset({"pasted", "local", "ssh"}),
    cost="cheap",
    facts=(
        "host.data_share",
        "host.gpu_wait_share",
        "host.gil_share",
        "pyspy.top_function",
        "pyspy.threads",
    ),
    fractions=("host.data_share", "host.gpu_wait_share", "host.gil_share"),
    recognises=looks_like_py_spy,
    extra={"argv_note": "append the training process's pid; or paste `py-spy top --pid PID`"},
    not_for=NATIVE_RUNTIMES,
)
