"""Pastes from a parallel shell (pdsh, clush, xCAT's xdsh and psh): each line a node printed
comes back as ``node1: <line>``, the nodes' lines interleaved as they arrived (or in blocks,
when the poster sorted them). A parser that reads one node's output can read such a paste node
by node once :func:`split_host_prefixes` has taken the prefixes off and gathered each node's
lines, in their order.

What counts as a prefix is strict, because tools print ``Key: value`` lines of their own
(ibstat's ``State: Active`` and ``Rate: 200``, ibv_devinfo's ``transport: InfiniBand (0)``)
that read like ``host: text``:

- every line must carry one, but for blank lines and the ``...`` a poster puts for what they
  cut: a paste where other lines do not is not a parallel shell's. A caller may let a few
  lines without one head the paste (``above``: the poster's sentence saying what follows);
  they are set aside for it to check (:attr:`HostLines.above`): lines of its own tool there
  make the paste a plain one with a prefixed part, not a parallel shell's;
- the host is a name as pdsh and clush take it from a host list (labels of letters, digits,
  hyphens and underscores, 1 to 63 long, a letter or digit at either end, joined by dots:
  ``gpu_node_3`` is no DNS name but a valid ``/etc/hosts`` one) or an IPv4 address
  (``10.0.0.12``). A blank or any other character makes it no host (``CA type: MT4123``,
  ``Port 1:``, ``Physical state: LinkUp``), and so do digits alone (ibstatus's ``4: ACTIVE``)
  and dotted digits that are no address (``999.1.1.1``);
- the colon is followed by one blank and the node's line, or ends the line (pdsh prints a
  node's empty line as ``node1: ``, whose trailing blank a paste drops): ``11:19:24`` and
  ``http://`` are no prefixes;
- names the caller knows as keys of its own tool's output (``not_hosts``, compared without
  case) are no hosts, so a paste of nothing but ``State: Active`` and ``Rate: 200`` lines
  stays the tool's own; with underscores taken, that includes snake_case keys (ibv_devinfo's
  ``hca_id: mlx5_0``, ``link_layer: InfiniBand``). A caller should still check that the lines
  it gets back read as its tool's (a device header, a table header): a key it did not list is
  a valid host name.

The parallel shell's own messages (``pdsh@head: node3: ssh exited with exit code 255``,
``clush: node3: exited with exit code 1``) are no node's output: they are set aside for the
caller to show (a node missing from the paste is worth saying), not read as a node named
``clush``. So is the command line that ran it (``pdsh -w node[1-4] ibstat``) heading the paste
without a prompt (a prompt line is gone already: :func:`~casefile_probes._text.clean_paste`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from ._text import is_elision

__all__ = ["HostLines", "is_host_name", "split_host_prefixes"]

#: ``host: line`` or a bare ``host:``; the name is checked label by label (is_host_name), so
#: the pattern itself does no backtracking worth the name (its class holds no colon: the
#: first colon is the only place the name can end)
_PREFIX = re.compile(r"^(?P<host>[A-Za-z0-9][A-Za-z0-9._-]{0,252}):(?: (?P<line>.*))?$")
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$")
#: what pdsh and clush say themselves: ``pdsh@head: …``, ``clush: …``
_SHELL_SAID = re.compile(r"^(?:pdsh@[A-Za-z0-9][A-Za-z0-9._-]{0,252}|clush): \S")
#: the programs whose command line may head such a paste
_SHELLS = frozenset({"pdsh", "clush", "xdsh", "psh"})


#: how many of the shell's own messages a reading names one by one
SAID_SHOWN = 3


def shell_said(said: list[str]) -> list[str]:
    """The problems a parallel shell's own messages make ("pdsh@head: node3: ssh exited with
    exit code 255": a node that gave nothing), the first few word for word: a node the shell
    could not reach is missing from the reading, and the reading says so."""
    problems = [f"the parallel shell said: {line}" for line in said[:SAID_SHOWN]]
    if len(said) > SAID_SHOWN:
        problems.append(f"the parallel shell said {len(said) - SAID_SHOWN} thing(s) more")
    return problems


@dataclass
class HostLines:
    """A parallel shell's paste taken apart: each node's lines, and what the shell said."""

    #: node name → its lines without the prefix, in the paste's order; nodes in the order
    #: they first appear
    hosts: dict[str, list[str]] = field(default_factory=dict)
    #: the parallel shell's own messages, as printed
    said: list[str] = field(default_factory=list)
    #: the lines without a prefix above the first prefixed one (``above`` of them at most),
    #: for the caller to check: the poster's words, or lines of its tool's plain output
    above: list[str] = field(default_factory=list)
    #: likewise below the last prefixed one (``below`` of them at most): a closing sentence,
    #: ``time``'s lines
    below: list[str] = field(default_factory=list)


def is_host_name(name: str) -> bool:
    """Whether ``name`` is a host name (a DNS name, underscores allowed) or an IPv4 address
    (see the module's docstring)."""
    labels = name.split(".")
    if all(label.isdigit() for label in labels):
        return len(labels) == 4 and all(len(label) <= 3 and int(label) < 256 for label in labels)
    return len(name) <= 253 and all(_LABEL.match(label) for label in labels)


def _runs_a_shell(line: str) -> bool:
    """Whether a line is the command line of a parallel shell (``pdsh -w n[1-4] ibstat``)."""
    words = line.split()
    return bool(words) and words[0].rsplit("/", 1)[-1] in _SHELLS


def split_host_prefixes(
    lines: list[str], *, not_hosts: Collection[str] = (), above: int = 0, below: int = 0
) -> HostLines | None:
    """Each node's lines of a paste whose every line carries a ``host: `` prefix, or None when
    the paste is not such a paste (a line without a prefix, a name that is no host, no
    prefixed line at all). Blank and ``...`` lines are passed over, as are the shell's own
    messages and a leading command line (kept in :attr:`HostLines.said` and dropped).

    Up to ``above`` lines that read as no prefix at all may come before the first prefixed
    line; they are kept in :attr:`HostLines.above`, and up to ``below`` after the last in
    :attr:`HostLines.below` (a prefixed line after one of those ends the split). A line in a
    prefix's shape whose name is a key (``not_hosts``) or no host name ends the split (None):
    it is a tool's ``key: value``. A key with a blank in it (``CA type: MT4123``, ``Port 1:``)
    is in no prefix's shape, so it may be one of the lines above: the caller must check them
    (ibstat takes a header or a field of its own there for a plain paste).
    """
    excluded = {name.lower() for name in not_hosts}
    split = HostLines()
    for line in lines:
        if not line.strip() or is_elision(line):
            continue
        if _SHELL_SAID.match(line):
            split.said.append(line.strip())
            continue
        if not split.hosts and _runs_a_shell(line):
            continue
        match = _PREFIX.match(line)
        if match is None:
            if split.hosts:
                if len(split.below) >= below:
                    return None
                split.below.append(line)
                continue
            if len(split.above) >= above:
                return None
            split.above.append(line)
            continue
        if split.below:
            return None
        host = match.group("host")
        if host.lower() in excluded or not is_host_name(host):
            return None
        split.hosts.setdefault(host, []).append(match.group("line") or "")
    return split if split.hosts else None
