"""The parallel shell's ``host: `` prefix (pdsh, clush, xdsh): what counts as one, and above
all what does not, since tools print ``Key: value`` lines of their own that read like it
(ibstat's ``State: Active``, ibv_devinfo's ``transport: InfiniBand (0)``). The parsers that
read such pastes have their own tests (``test_ibstat_pdsh``)."""

from __future__ import annotations

import pytest
from casefile_probes._host_prefix import is_host_name, split_host_prefixes


def test_interleaved_nodes_are_gathered_in_their_order() -> None:
    lines = [
        "node1: CA 'mlx5_0'",
        "node2: CA 'mlx5_0'",
        "node1: \tPort 1:",
        "node2: \tPort 1:",
        "node1:",  # pdsh's "node1: " for an empty line, its trailing blank dropped
        "node2: \t\tState: Down",
    ]
    split = split_host_prefixes(lines)
    assert split is not None
    assert list(split.hosts) == ["node1", "node2"]
    assert split.hosts["node1"] == ["CA 'mlx5_0'", "\tPort 1:", ""]
    assert split.hosts["node2"] == ["CA 'mlx5_0'", "\tPort 1:", "\t\tState: Down"]
    assert split.said == []


def test_the_nodes_own_indentation_and_colons_are_kept() -> None:
    split = split_host_prefixes(["gpu-07.cluster.local:         Rate: 200", "10.0.0.12: a: b"])
    assert split is not None
    assert split.hosts == {"gpu-07.cluster.local": ["        Rate: 200"], "10.0.0.12": ["a: b"]}


def test_the_shells_own_messages_and_command_line_are_set_aside() -> None:
    lines = [
        "pdsh -w node[1-3] ibstat",
        "node1: CA 'mlx5_0'",
        "pdsh@head: node3: ssh exited with exit code 255",
        "",
        "...",
        "clush: node2: exited with exit code 1",
        "node1: \tPort 1:",
    ]
    split = split_host_prefixes(lines)
    assert split is not None
    assert split.hosts == {"node1": ["CA 'mlx5_0'", "\tPort 1:"]}
    assert split.said == [
        "pdsh@head: node3: ssh exited with exit code 255",
        "clush: node2: exited with exit code 1",
    ]


@pytest.mark.parametrize(
    "lines",
    [
        # ibstat flattened to no indentation: the CA line has no prefix
        ["CA 'mlx4_0'", "CA type: MT4099", "Port 1:", "State: Active", "Rate: 40"],
        # keys that are no host names: a blank, digits alone (snake_case keys such as
        # ibv_devinfo's hca_id are names: the caller lists its tool's, test_pdsh_hosts)
        ["CA type: MT4123"],
        ["4: ACTIVE"],
        ["Port 1:"],
        # a time stamp, an address, a URL, a key glued to its value
        ["11:19:24 all 2.09 0.00"],
        ["http://example.com"],
        ["State:Active"],
        # one line without a prefix spoils the paste
        ["node1: CA 'mlx5_0'", "CA 'mlx5_1'"],
        ["node1: CA 'mlx5_0'", "the second node is down, see above"],
        # names that are no hosts
        ["-node1: x"],
        ["node1-: x"],
        ["node_: x"],
        ["999.1.1.1: x"],
        [f"{'a' * 64}: x"],
        # nothing prefixed at all
        [],
        ["", "...", "pdsh@head: node3: ssh exited with exit code 255"],
    ],
)
def test_what_is_no_prefixed_paste(lines: list[str]) -> None:
    assert split_host_prefixes(lines) is None


def test_the_callers_own_keys_are_no_hosts() -> None:
    """A paste of nothing but ``Key: value`` lines whose keys are DNS labels (ibstat cut to
    its port lines) reads as hosts unless the caller names its tool's keys: it must."""
    lines = ["State: Active", "Rate: 200", "LMC: 0"]
    assert split_host_prefixes(lines) is not None  # why the caller passes its keys
    assert split_host_prefixes(lines, not_hosts=("state", "rate", "lmc")) is None
    assert split_host_prefixes(["STATE: x"], not_hosts=("state",)) is None


@pytest.mark.parametrize(
    ("name", "host"),
    [
        ("node008", True),
        ("n-1.rack2.example.org", True),
        ("192.168.0.7", True),
        ("a", True),
        ("1", False),
        ("256.1.1.1", False),
        ("node..1", False),
        ("node_1", True),  # no DNS name, but pdsh's and /etc/hosts' (test_pdsh_hosts)
        ("-n", False),
        ("x" * 63, True),
        ("x" * 64, False),
    ],
)
def test_host_names(name: str, host: bool) -> None:
    assert is_host_name(name) is host


def test_long_or_hostile_lines_cost_little() -> None:
    """Linear in the line: a megabyte of label characters with no colon is no prefix."""
    assert split_host_prefixes(["a." * 500_000]) is None
    assert split_host_prefixes(["a" * 1_000_000 + ": x"]) is None
