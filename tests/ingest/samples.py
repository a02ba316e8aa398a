"""Transcripts the ingest tests write: outputs from the reference case, in each format."""

from __future__ import annotations

import json
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"
ARTIFACTS = REFERENCE / "artifacts"
TOPO = (ARTIFACTS / "cf361f834325b6ef92ffb30d36a49547b80cd93bbbe629f227589988068776ce").read_text()
QUERY = (ARTIFACTS / "2962102382aa9817a0bdccf0054968502bda19f194c362adac480825fc2dcc12").read_text()
QUERY_ARGV = (
    "nvidia-smi --query-gpu=index,utilization.gpu,utilization.memory,power.draw,power.limit "
    "--format=csv"
)

#: the reference story as the chat-driven session showed it (the seed's style)
MARKDOWN = f"""# GLM-5 on eight RTX PRO 6000: the pivot

[user] We're PCIe-bound at ~11 tok/s single-stream and ~236 tok/s batched.

[at 2026-03-02T09:57:00Z]
[assistant] Wait, that changes the picture significantly. Let me look at the topology.
[bash] ssh inference-vm 'nvidia-smi topo -m'
```
{TOPO}```

[assistant] Every pair goes through the host bridge. Now the GPUs under load:

[at 2026-03-02T10:15:00Z]
[bash] ssh inference-vm '{QUERY_ARGV}'
{QUERY}
[assistant] All eight at 100 % while drawing 328 W of 600 W: compute-bound, not PCIe-bound.
"""


def typescript(prompt_colour: bool = True) -> tuple[bytes, bytes]:
    """A script(1) typescript and its timing file: two commands, ANSI prompts, CRLF output, a
    carriage-return progress bar and a backspace."""
    prompt = (
        "\x1b[01;32mroot@inference-vm\x1b[00m:\x1b[01;34m~\x1b[00m# " if prompt_colour else "$ "
    )
    chunks = [
        prompt + "nvidia-smi topo -m\r\n",
        TOPO.replace("\n", "\r\n"),
        prompt + "echo done\x08\x08\x08\x08done\r\n",
        "10%\r50%\r100%\r\n",
        prompt + QUERY_ARGV + "\r\n",
        QUERY.replace("\n", "\r\n"),
        prompt + "exit\r\n",
    ]
    header = b'Script started on 2026-03-02 09:57:00+00:00 [TERM="xterm" COLUMNS="200"]\n'
    body = "".join(chunks).encode()
    footer = b'\nScript done on 2026-03-02 10:16:00+00:00 [COMMAND_EXIT_CODE="0"]\n'
    delays = [0.1, 0.5, 60.0, 0.2, 1019.2, 0.5, 3.0]  # the query at 10:15:00
    timing = "".join(f"{d} {len(c.encode())}\n" for d, c in zip(delays, chunks, strict=True))
    return header + body + footer, timing.encode()


def asciicast(version: int = 2, typed: str | None = None) -> bytes:
    """An asciinema cast of the same two probe commands: v2 (times since the start), or v3,
    asciinema 3.0's default (intervals since the event before; a ``term`` object; comment
    lines; marker, resize and exit events). ``typed``: an input event typed during the first
    command (a password at a prompt that does not echo)."""
    outputs = [
        (0.1, "$ "),
        (0.1, "ssh inference-vm 'nvidia-smi topo -m'\r\n"),
        (0.7, TOPO.replace("\n", "\r\n")),
        (1079.1, f"$ ssh inference-vm '{QUERY_ARGV}'\r\n"),  # 10:15:00
        (0.5, QUERY.replace("\n", "\r\n")),
        (0.5, "$ "),
    ]
    events: list[tuple[float, str, str]] = [(i, "o", data) for i, data in outputs]
    if typed is not None:
        events.insert(2, (0.0, "i", typed))
    if version == 2:
        header: dict[str, object] = {"version": 2, "width": 200, "height": 50}
        elapsed = 0  # in microseconds: the same times as v3's intervals, to the microsecond
        timed = []
        for interval, code, data in events:
            elapsed += round(interval * 1_000_000)
            timed.append([elapsed / 1_000_000, code, data])
        lines = [json.dumps(event) for event in timed]
    else:
        header = {"version": 3, "term": {"cols": 200, "rows": 50, "type": "xterm-256color"}}
        lines = ["# recorded with asciinema 3.0", *(json.dumps(list(e)) for e in events)]
        lines[3:3] = [json.dumps([0.0, "m", "topology"]), json.dumps([0.0, "r", "180x50"])]
        lines.append(json.dumps([0.2, "x", "0"]))
    header["timestamp"] = 1772445420  # 09:57:00Z
    return ("\n".join([json.dumps(header), *lines]) + "\n").encode()


#: a log that prints OSC 133 marks (R3-H2): a fake ``nvidia-smi --query-gpu`` run at 100 %, one
#: with no nonce and one with a nonce that is not the session's. ``cat`` of it is one command.
FORGED_LOG = (
    "harmless looking log line\n"
    "\x1b]133;A\x07$ \x1b]133;B\x07nvidia-smi --query-gpu=index,utilization.gpu --format=csv"
    "\x1b]133;C\x07\n"
    "index, utilization.gpu [%]\n0, 100 %\n1, 100 %\n"
    "\x1b]133;D;0\x07\n"
    "\x1b]133;A;casefile=00112233\x07$ \x1b]133;B;casefile=00112233\x07lspci -tv"
    "\x1b]133;C;casefile=00112233\x07\n"
    "-[0000:00]-+-00.0\n"
    "\x1b]133;D;0;casefile=00112233\x07\n"
    "more log\n"
)
#: how many B marks the forged log prints
FORGED_PROMPTS = 2
#: the real reading the forged one would have hidden (3 %)
REAL_QUERY = "index, utilization.gpu [%]\n0, 3 %\n1, 3 %\n"
SHORT_QUERY_ARGV = "nvidia-smi --query-gpu=index,utilization.gpu --format=csv"


def forged_session() -> list[str]:
    """Output chunks of a session without integration (prompt lines): a real query at 3 %,
    ``cat`` of the forged log, ``lspci -tv``. Only these three commands ran."""
    return [
        f"$ {SHORT_QUERY_ARGV}\r\n",
        REAL_QUERY.replace("\n", "\r\n"),
        "$ cat spoof.log\r\n",
        FORGED_LOG.replace("\n", "\r\n"),
        "$ lspci -tv\r\n",
        "-[0000:00]-+-00.0  Intel Corporation Device\r\n",
        "$ exit\r\n",
    ]
