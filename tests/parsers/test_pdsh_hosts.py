"""Parallel-shell pastes (pdsh, clush: ``host: `` before every line) whose hosts are IPv4
addresses (``10.0.0.12``) or names with underscores (``gpu_node_3``), pastes with the poster's
sentence above the prefixed lines, sysstat reports since boot pasted from several nodes whose
clocks differ, and sysstat read node by node: ``pidstat -h`` rows, each node's banners, a node
since boot beside nodes with intervals. Each case failed before it was read (see
``casefile_probes._host_prefix`` and ``casefile_probes._sysstat_report``); the cases around them
are the lines with a colon that must stay no prefix.

The pastes are constructed: verbatim samples (``tests/golden/ibstat/005``, the layout of
``tests/golden/mpstat/009``, a pdsh paste of one node) prefixed here as pdsh prefixes a node's
lines, ``host: `` before each, an empty line printed as ``host:``."""

from __future__ import annotations

from time import perf_counter

import pytest
from casefile_probes._host_prefix import is_host_name, split_host_prefixes
from casefile_probes._sysstat_rows import row_node
from casefile_probes.cpu_load import looks_like_pidstat, parse_mpstat, parse_pidstat
from casefile_probes.ibstat import parse_ibstat

from casefile.domain.facts import ParseResult
from tests.parsers.corpus import GOLDEN, check_result, read_sample
from tests.parsers.test_cpu_since_boot import MPSTAT_SINCE_BOOT, PIDSTAT_SINCE_BOOT


def _prefixed(text: str, host: str) -> list[str]:
    """A node's lines as pdsh prints them."""
    return [f"{host}: {line}".rstrip() for line in text.splitlines()]


def _interleaved(*nodes: list[str]) -> list[str]:
    """The nodes' lines as pdsh prints them when they arrive together: one of each in turn."""
    out: list[str] = []
    for at in range(max(map(len, nodes))):
        out += [lines[at] for lines in nodes if at < len(lines)]
    return out


# -------------------------------------------------------------------------- the splitter


@pytest.mark.parametrize("host", ["gpu_node_3", "10.0.0.12", "rack_2.gpu-07.example.org"])
def test_underscore_and_address_hosts_are_split(host: str) -> None:
    split = split_host_prefixes([f"{host}: CA 'mlx5_0'", f"{host}: \tPort 1:", f"{host}:"])
    assert split is not None
    assert split.hosts == {host: ["CA 'mlx5_0'", "\tPort 1:", ""]}


@pytest.mark.parametrize(
    ("name", "host"),
    [
        ("gpu_node_3", True),
        ("n_1.rack_2", True),
        ("10.0.0.12", True),
        ("_node3", False),
        ("node3_", False),
        ("node_3.", False),
        ("10.0.0.256", False),
        ("10.0.0", False),
    ],
)
def test_underscores_inside_a_label_make_a_host(name: str, host: bool) -> None:
    assert is_host_name(name) is host


@pytest.mark.parametrize(
    ("lines", "not_hosts"),
    [
        (["CA 'mlx5_0'"], ()),
        (["Port 1:"], ()),
        (["Physical state: LinkUp"], ()),
        (["12:00:01     all    1.50    0.00"], ()),
        (["11:19:24 AM  CPU    %usr"], ()),
        (["State: Active"], ("state",)),
        # snake_case keys are names now: the caller lists its tool's (ibstat does)
        (["hca_id: mlx5_0", "link_layer: InfiniBand"], ("hca_id", "link_layer")),
        (["_node3: x"], ()),
        (["node3_: x"], ()),
    ],
)
def test_lines_with_a_colon_stay_no_prefixes(lines: list[str], not_hosts: tuple[str, ...]) -> None:
    assert split_host_prefixes(lines, not_hosts=not_hosts) is None
    assert split_host_prefixes(lines, not_hosts=not_hosts, above=3) is None


def test_a_sentence_above_the_prefixed_lines_is_set_aside_where_the_caller_allows() -> None:
    lines = ["Here is ibstat on both nodes, node2's port is down:", "", "node1: CA 'mlx5_0'"]
    assert split_host_prefixes(lines) is None  # strict unless the caller says otherwise
    split = split_host_prefixes(lines, above=1)
    assert split is not None
    assert split.hosts == {"node1": ["CA 'mlx5_0'"]}
    assert split.above == [lines[0]]


@pytest.mark.parametrize(
    "lines",
    [
        # more lines above than the caller allows
        ["one", "two", "node1: CA 'mlx5_0'"],
        # a line without a prefix below the first prefixed one
        ["see:", "node1: CA 'mlx5_0'", "that is all"],
        # a key of the caller's tool above is its output, not the poster's words
        ["State: Active", "node1: CA 'mlx5_0'"],
        # a name that is no host above
        ["999.1.1.1: x", "node1: CA 'mlx5_0'"],
    ],
)
def test_what_stays_no_prefixed_paste_with_lines_above(lines: list[str]) -> None:
    assert split_host_prefixes(lines, not_hosts=("state",), above=1) is None


# --------------------------------------------------------------------------------- ibstat


def _ibstat_nodes(one: str, two: str) -> str:
    text = read_sample(GOLDEN / "ibstat" / "005.txt")
    down = text.replace("State: Active", "State: Down").replace("LinkUp", "Polling")
    return "\n".join(_prefixed(text, one) + _prefixed(down, two)) + "\n"


@pytest.mark.parametrize(("one", "two"), [("gpu_node_3", "gpu_node_4"), ("10.0.0.12", "10.0.0.13")])
def test_ibstat_through_pdsh_names_underscore_and_address_hosts(one: str, two: str) -> None:
    result = parse_ibstat(_ibstat_nodes(one, two))
    check_result(result)
    assert result.values("ib.state") == {f"mlx4_0/1 ({one})": "Active", f"mlx4_0/1 ({two})": "Down"}
    assert result.values("ib.ports_active") == {"host": 1}
    assert result.problems == []


def test_ibstat_with_the_posters_sentence_above_is_read_node_by_node() -> None:
    paste = "Output of pdsh -w node[1-2] ibstat, node2 never comes up:\n\n" + _ibstat_nodes(
        "node1", "node2"
    )
    result = parse_ibstat(paste)
    assert result.values("ib.state") == {"mlx4_0/1 (node1)": "Active", "mlx4_0/1 (node2)": "Down"}
    assert result.problems == []


@pytest.mark.parametrize(
    "above",
    [
        "CA 'mlx4_0'\n",  # the tool's own header: a plain listing above prefixed lines
        "Physical state: LinkUp\n",  # one of its port lines
        "one\ntwo\nthree\nfour\n",  # more than a sentence
    ],
)
def test_ibstat_with_other_lines_above_stays_plain(above: str) -> None:
    result = parse_ibstat(above + _ibstat_nodes("node1", "node2"))
    assert not result.facts


# ------------------------------------------------------------------------ mpstat, pidstat

_MPSTAT_HEADER = (
    "{t}     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle"
)
_MPSTAT_ALL = (
    "{t}     all    {usr}    0.00    0.00    0.00    0.00    0.00    0.00    0.00    0.00   {idle}"
)


def _mpstat(host: str, header: str, row: str, usr: str = "2.09", idle: str = "97.91") -> list[str]:
    """One node's ``mpstat`` through pdsh, banner and all, as golden mpstat/009 shows its
    header and row (a report since boot where ``header`` and ``row`` are one time)."""
    text = "\n".join(
        [
            f"Linux 4.18.0-425.3.1.el8.x86_64 ({host}) \t05/03/2023 \t_x86_64_\t(48 CPU)",
            "",
            _MPSTAT_HEADER.format(t=header),
            _MPSTAT_ALL.format(t=row, usr=usr, idle=idle),
        ]
    )
    return _prefixed(text, host)


def test_mpstat_through_pdsh_with_address_hosts_is_read() -> None:
    """``10.0.0.12:`` is a host's label, not a row's first cell: the interval report is read."""
    paste = _mpstat("10.0.0.12", "11:19:24", "11:19:25", usr="40.00", idle="60.00")
    result = parse_mpstat("\n".join(paste))
    assert result.values("cpu.busy.mean") == {"host": 40.0}
    assert result.problems == []


@pytest.mark.parametrize("interleave", [False, True], ids=["blocks", "interleaved"])
@pytest.mark.parametrize("hosts", [("node007", "node008"), ("10.0.0.12", "gpu_node_3")])
def test_mpstat_since_boot_from_nodes_whose_clocks_differ(
    interleave: bool, hosts: tuple[str, str]
) -> None:
    """Each node's header and row share its own time, one second apart from the other's:
    averages since boot on both, whatever order pdsh printed their lines in."""
    one = _mpstat(hosts[0], "11:19:24", "11:19:24")
    two = _mpstat(hosts[1], "11:19:25", "11:19:25")
    lines = _interleaved(one, two) if interleave else one + two
    result = parse_mpstat("\n".join(lines))
    assert not result.parsed and not result.facts
    assert result.problems == [MPSTAT_SINCE_BOOT]


@pytest.mark.parametrize("interleave", [False, True], ids=["blocks", "interleaved"])
def test_mpstat_interval_from_nodes_whose_clocks_differ_is_read(interleave: bool) -> None:
    """One interval on each node: node008's header bears node007's row time, but a node's
    rows are compared with its own header only."""
    one = _mpstat("node007", "11:19:24", "11:19:25", usr="40.00", idle="60.00")
    two = _mpstat("node008", "11:19:25", "11:19:26", usr="20.00", idle="80.00")
    lines = _interleaved(one, two) if interleave else one + two
    result = parse_mpstat("\n".join(lines))
    assert result.values("cpu.busy.mean") == {"host": 30.0}


def test_mpstat_since_boot_on_one_node_and_interval_on_another_is_read() -> None:
    """A node whose header and rows show two times ran an interval: the paste is not one of
    averages since boot, even where the other node's block alone would be; the node since
    boot is left out of the load now (it read 21.05 % busy, its 2.09 averaged in)."""
    one = _mpstat("node007", "11:19:24", "11:19:24")
    two = _mpstat("node008", "11:19:25", "11:19:26", usr="40.00", idle="60.00")
    result = parse_mpstat("\n".join(one + two))
    assert result.parsed
    assert result.values("cpu.busy.mean") == {"host": 40.0}
    assert result.problems == [f"node007: {MPSTAT_SINCE_BOOT}"]


def test_pidstat_since_boot_from_nodes_whose_clocks_differ() -> None:
    """``pdsh -w node[007-008] pidstat -u -p ALL``: one time per node, one second apart."""
    header = "{t}      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command"
    row = "{t}     1000      4242  150.00    9.00    0.00    1.00  159.00     3  python"
    lines: list[str] = []
    for host, time in (("node007", "12:00:01"), ("node008", "12:00:02")):
        text = f"Linux 6.8.0 ({host})  10/01/2024  _x86_64_  (32 CPU)\n\n"
        lines += _prefixed(text + header.format(t=time) + "\n" + row.format(t=time), host)
    result = parse_pidstat("\n".join(lines))
    assert not result.parsed and not result.facts
    assert result.problems == [PIDSTAT_SINCE_BOOT]


@pytest.mark.parametrize(
    ("line", "node"),
    [
        ("node008: 11:19:24     all    2.09", "node008"),
        ("10.0.0.12: Average:     all    2.09", "10.0.0.12"),
        ("gpu_node_3: 11:19:24 AM     all    2.09", "gpu_node_3"),
        ("Average:     all    2.09", None),  # sysstat's label, alone: no node
        ("11:19:24     all    2.09", None),
        ("11:19:24 AM     all    2.09", None),
        ("-node8: 11:19:24     all    2.09", None),  # no host name
    ],
)
def test_which_leading_label_is_a_node(line: str, node: str | None) -> None:
    tokens = line.split()
    prefix = next(at for at, token in enumerate(tokens) if token == "all")
    assert row_node(tokens, prefix) == node


# ------------------------------------------- sysstat node by node: -h, banners, since boot
#
# Real sysstat lines, each node's prefixed here as pdsh prefixes them (golden samples, sources
# in each folder's SOURCES): pidstat/007 (-h rows with epoch times, no banner), mpstat/002 (a
# since-boot report, then pcp's, each under its banner), mpstat/009 (a since-boot report already
# through pdsh, node008), mpstat/004 (two interval blocks), pidstat/004 (a since-boot report)
# and pidstat/005 (an interval report, its last row cut). The poster's prompt line heading a
# sample is left out: pdsh prints none.


def _sample(name: str, start: int = 0, stop: int | None = None) -> str:
    """Lines ``start:stop`` of a golden sample, verbatim."""
    return "\n".join(read_sample(GOLDEN / f"{name}.txt").splitlines()[start:stop])


def _paste(one: list[str], two: list[str], order: str) -> str:
    """Two nodes' lines as pdsh prints them: in blocks, either node first, or interleaved."""
    lines = {"blocks": one + two, "reversed": two + one, "interleaved": _interleaved(one, two)}
    return "\n".join(lines[order]) + "\n"


def _facts(result: ParseResult) -> list[tuple[str, str, object]]:
    return [(fact.name, fact.subject, fact.value) for fact in result.facts]


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
@pytest.mark.parametrize("hosts", [("node1", "node2"), ("10.0.0.12", "gpu_node_3")])
def test_pidstat_h_through_pdsh_is_read_node_by_node(order: str, hosts: tuple[str, str]) -> None:
    """pidstat/007 on one node, its header and first two rows on the other: each node's
    epoch-stamped rows are read by its own ``#      Time`` header, as without pdsh (the host
    label had been taken for the row's time, each cell read one column off: 0.0 % for a
    command of '3.64 /usr/java/…')."""
    whole = _prefixed(_sample("pidstat/007"), hosts[0])
    cut = _prefixed(_sample("pidstat/007", 0, 3), hosts[1])
    paste = _paste(whole, cut, order)
    assert looks_like_pidstat(paste)
    result = parse_pidstat(paste)
    check_result(result)
    assert _facts(result) == _facts(parse_pidstat(_sample("pidstat/007")))
    assert result.values("process.cpu.max") == {"host": 2.0}
    assert result.values("process.top_command") == {
        "host": "/usr/java/default/bin/java -Dproc_jobtracker -Xmx2048m -Djava."
    }
    assert result.problems == []


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
def test_pdsh_banners_start_each_nodes_reports(order: str) -> None:
    """mpstat/002 through pdsh on two nodes: ``node1: Linux 5.15.0-… (4 CPU)`` is a banner,
    so each node's since-boot report and pcp's after it are two reports, and the last is read,
    as without pdsh (one report had been read, the since-boot rows averaged in: cpu3 0.78 %
    busy where pcp shows 1.22)."""
    text = _sample("mpstat/002", 1)
    paste = _paste(_prefixed(text, "node1"), _prefixed(text, "node2"), order)
    result = parse_mpstat(paste)
    check_result(result)
    alone = parse_mpstat(text)
    host = [fact for fact in _facts(result) if fact[1] == "host"]
    assert host == [fact for fact in _facts(alone) if fact[1] == "host"]
    cores = result.values("cpu.busy")  # each node's cores are its own
    assert cores == {
        f"{n}:{core}": v for n in ("node1", "node2") for core, v in alone.values("cpu.busy").items()
    }
    assert cores["node1:cpu3"] == cores["node2:cpu3"] == 1.22
    assert result.problems == ["node1, node2: 2 mpstat reports in the paste; the last is read"]


@pytest.mark.parametrize("order", ["blocks", "reversed", "interleaved"])
def test_mpstat_node_since_boot_is_left_out_of_the_load_now(order: str) -> None:
    """mpstat/009 (node008, since boot: 2.09 % busy) beside mpstat/004's two intervals on
    node009: only node009's rows are the load now, read as they read alone; node008 is named
    with the words a single host since boot gets (its 2.09 % had been averaged in: 0.73 %
    busy read where node009 shows 0.05 %)."""
    interval = _sample("mpstat/004", 1, 12)
    paste = _paste(_sample("mpstat/009").splitlines(), _prefixed(interval, "node009"), order)
    result = parse_mpstat(paste)
    check_result(result)
    assert _facts(result) == _facts(parse_mpstat(interval))
    assert result.values("cpu.busy.mean") == {"host": 0.05}
    assert result.problems == [f"node008: {MPSTAT_SINCE_BOOT}"]


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
def test_pidstat_node_since_boot_is_left_out_of_the_load_now(order: str) -> None:
    """pidstat/004 (since boot: header and row share 18时53分35秒) on gpu01, pidstat/005 (an
    interval, its last row cut) on gpu02: gpu02's tasks are read as alone, gpu01 is named as
    averaged since boot, and each problem names its node (gpu01's row had been read with the
    rest and nothing said: its 0.01 % under gpu02's 10.73 % hid it in the facts)."""
    interval = _sample("pidstat/005")
    paste = _paste(
        _prefixed(_sample("pidstat/004", 1), "gpu01"), _prefixed(interval, "gpu02"), order
    )
    result = parse_pidstat(paste)
    check_result(result)
    assert _facts(result) == _facts(parse_pidstat(interval))
    assert result.values("process.cpu.max") == {"host": 10.73}
    assert result.problems == [
        f"gpu01: {PIDSTAT_SINCE_BOOT}",
        "gpu02: 1 task row(s) cut short, skipped",
    ]


def test_the_posters_sentence_above_the_nodes_is_set_aside() -> None:
    """The paste of the test above under the poster's sentence: still read node by node."""
    interval = _sample("mpstat/004", 1, 12)
    nodes = _paste(_sample("mpstat/009").splitlines(), _prefixed(interval, "node009"), "blocks")
    result = parse_mpstat("mpstat on both nodes, through pdsh:\n\n" + nodes)
    assert _facts(result) == _facts(parse_mpstat(interval))
    assert result.problems == [f"node008: {MPSTAT_SINCE_BOOT}"]


def test_a_paste_of_average_rows_alone_is_no_parallel_shells() -> None:
    """``Average:`` before every line is sysstat's label, in a prefix's shape (pidstat/010's
    header and row): read as without pdsh, no node named ``Average``."""
    text = _sample("pidstat/010", 0, 2)
    result = parse_pidstat(text)
    assert result.values("process.cpu.max") == {"host": 128.18}
    assert result.problems == []


def test_a_problem_of_many_nodes_names_the_first_few() -> None:
    """Six nodes since boot (golden mpstat/009's layout, as ``_mpstat`` builds it) beside one
    with an interval: the first five are named, the rest counted."""
    lines = _mpstat("node7", "11:19:25", "11:19:26", usr="40.00", idle="60.00")
    for number in range(1, 7):
        lines += _mpstat(f"node{number}", "11:19:24", "11:19:24")
    result = parse_mpstat("\n".join(lines))
    assert result.values("cpu.busy.mean") == {"host": 40.0}
    assert result.problems == [f"node1, node2, node3, node4, node5 and 1 more: {MPSTAT_SINCE_BOOT}"]


#: what a poster or the shell adds after the nodes' lines: a closing sentence, ``time``'s lines
BELOW = ["\nThe namenode is at 2%.", "\nreal\t0m5.123s\nuser\t0m0.010s\nsys\t0m0.020s"]


@pytest.mark.parametrize("below", BELOW)
def test_lines_below_the_nodes_are_set_aside(below: str) -> None:
    """A sentence or ``time``'s lines after the prefixed ones: the paste is still read node by
    node (they had sent it back to one reading, the -h rows one column off again and a node
    since boot averaged in, with nothing said)."""
    whole = _prefixed(_sample("pidstat/007"), "node1")
    cut = _prefixed(_sample("pidstat/007", 0, 3), "node2")
    result = parse_pidstat(_paste(whole, cut, "interleaved") + below)
    assert result.values("process.cpu.max") == {"host": 2.0}
    interval = _sample("mpstat/004", 1, 12)
    nodes = _paste(_sample("mpstat/009").splitlines(), _prefixed(interval, "node009"), "blocks")
    result = parse_mpstat(nodes + below)
    assert _facts(result) == _facts(parse_mpstat(interval))
    assert result.problems == [f"node008: {MPSTAT_SINCE_BOOT}"]


def test_a_prefixed_line_after_a_plain_one_below_is_no_split() -> None:
    """Lines below are set aside only after the last prefixed line: a prefixed line after a
    plain one makes the paste no parallel shell's as a whole."""
    lines = ["node1: a", "node2: b", "a sentence", "node1: c"]
    assert split_host_prefixes(lines, below=3) is None
    split = split_host_prefixes(lines[:3], below=3)
    assert split is not None
    assert split.below == ["a sentence"]
    assert split_host_prefixes(lines[:3]) is None


def test_average_rows_alone_name_no_node_in_their_problems() -> None:
    """pidstat/010's header and rows with a row cut short: the problem is the paste's, not a
    node's called ``Average`` (which a split would have named)."""
    lines = _sample("pidstat/010", 0, 2).splitlines()
    text = "\n".join([*lines, " ".join(lines[1].split()[:4])])
    result = parse_pidstat(text)
    assert result.values("process.cpu.max") == {"host": 128.18}
    assert result.problems == ["1 task row(s) cut short, skipped"]


def test_many_nodes_without_a_split_are_read_in_linear_time() -> None:
    """32,000 nodes' mpstat rows under four plain lines (no split: read in one, the rows' nodes
    told apart by their prefixes): each node's times are gathered in one pass (a scan of every
    table for each node took 19 s on 4.3 MB); a bound no per-node scan meets at 6.7 MB."""
    lines = ["some words here that are not", "a b", "c d", "e f"]
    for number in range(32_000):
        lines += [
            f"node{number}: 10:00:00     CPU    %usr   %nice    %sys %iowait    %irq   %soft"
            "  %steal  %guest  %gnice   %idle",
            f"node{number}: 10:00:01     all    5.00    0.00    0.00    0.00    0.00    0.00"
            "    0.00    0.00    0.00   95.00",
        ]
    started = perf_counter()
    result = parse_mpstat("\n".join(lines))
    assert perf_counter() - started < 15.0
    assert result.values("cpu.busy.mean") == {"host": 5.0}
