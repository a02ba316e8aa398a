"""NCCL shapes from a breadth round over real pastes (EFA, log collectors, torn and tagged
lines, side-by-side tables) that the parsers misread.

Each test names the real sample (``tests/golden/…``) that showed the shape, checks what is read
from it now, and pins the edge of the change on a reduced text so that the fix stays as narrow
as the format it reads.
"""

from __future__ import annotations

from casefile_probes.nccl import parse_nccl, recognise_nccl_tests
from casefile_probes.nccl_debug import parse_nccl_debug

from .corpus import GOLDEN


def _read(key: str) -> str:
    return (GOLDEN / f"{key}.txt").read_text(encoding="utf-8")


# --- NCCL_DEBUG=INFO ----------------------------------------------------------------------


def test_a_net_plugin_name_with_a_blank_is_a_whole_transport() -> None:
    """nccl#229: 'via NET/AWS Libfabric/0' was taken for a cut line and the pair dropped."""
    result = parse_nccl_debug(_read("nccl-debug/024"))
    assert result.values("nccl.transport")["rank7-rank8"] == "NET/AWS Libfabric"
    assert result.values("nccl.gdrdma")["rank15-rank0"] is False
    assert not result.problems
    # a name cut inside the plugin is still cut
    cut = parse_nccl_debug("h:1:2 [0] NCCL INFO Ring 00 : 7 -> 8 [receive] via NET/AWS Lib\n")
    assert not cut.values("nccl.transport") and cut.problems


def test_the_network_name_is_read_whole() -> None:
    """nccl#527: 'Using network AWS Libfabric' gave the network 'AWS'."""
    assert parse_nccl_debug(_read("nccl-debug/026")).values("nccl.network") == {
        "host": "AWS Libfabric"
    }
    assert parse_nccl_debug("h:1:2 [0] NCCL INFO Using network IB\n").values("nccl.network") == {
        "host": "IB"
    }


def test_a_time_stamp_glued_to_the_host_is_not_part_of_it() -> None:
    """aws-ofi-nccl#889 (CloudWatch): '…-07:00ip-10-36-29-253:79:79' made a second host, and
    the library's version line behind the collector's prefix was missed."""
    result = parse_nccl_debug(_read("nccl-debug/025"))
    assert result.values("nccl.log.hosts") == {"host": 1}
    assert result.values("nccl.version") == {"host": "2.21.5"}
    # prose naming a version without the build suffix is not NCCL's banner
    prose = parse_nccl_debug("h:1:2 [0] NCCL INFO Using network IB\nwe run NCCL version 2.18.1\n")
    assert prose.values("nccl.version") == {}


def test_torn_and_tagged_host_names_are_resolved() -> None:
    """ms-swift#3934's torn lines ('g183:161258:16169g183:…') and mpirun's '[1,9]<stdout>:'
    tags (bottlerocket-kernel-kit#304) each made a host of their own."""
    assert parse_nccl_debug(_read("nccl-debug/032")).values("nccl.log.hosts") == {"host": 1}
    tagged = parse_nccl(_read("nccl/issues/021"))
    assert tagged.values("nccl.log.hosts") == {"host": 2}
    assert parse_nccl_debug(_read("nccl/issues/021")).values("nccl.log.hosts") == {"host": 2}


def test_a_message_before_other_ranks_on_one_line_is_read() -> None:
    """DeepEP#106: a terminal ran ranks' lines together; the first, without its origin, was
    dropped with its connection."""
    result = parse_nccl_debug(_read("nccl-debug/033"))
    assert result.values("nccl.transport")["rank13-rank5"] == "NET/IBext"
    assert len(result.values("nccl.transport")) == 7


def test_lines_kept_with_only_their_device_are_read() -> None:
    """nccl#385 numbered the lines and kept only '[4] NCCL INFO …': nothing was read."""
    result = parse_nccl_debug(_read("nccl-debug/036"))
    assert result.parsed
    assert result.values("nccl.transport")["rank1-rank8"] == "NET/IB"
    assert result.values("nccl.gdrdma")["rank9-rank0"] is True
    assert len(result.values("nccl.transport")) == 11


def test_the_old_set_to_wording_is_a_setting_from_the_environment() -> None:
    """NCCL 2.7 (DeepLearningExamples#383) prints 'NCCL_SOCKET_IFNAME set to ib0'."""
    result = parse_nccl_debug(_read("nccl-debug/035"))
    assert result.values("nccl.env.NCCL_SOCKET_IFNAME") == {"host": "ib0"}
    other = parse_nccl_debug("h:1:2 [0] NCCL INFO P2P Chunksize set to 131072\n")
    assert not [fact for fact in other.facts if fact.name.startswith("nccl.env.")]


# --- nccl-tests ---------------------------------------------------------------------------


def test_a_second_table_beside_the_first_is_not_mixed_into_it() -> None:
    """rccl#1352 pasted two runs side by side: the right one's busbw was read as the left's."""
    result = parse_nccl(_read("nccl/issues/017"))
    assert result.values("nccl.busbw") == {"size=1048576": 65.19, "size=2097152": 99.11}
    assert result.values("nccl.busbw.inplace")["size=2097152"] == 104.21
    assert any("beside" in problem for problem in result.problems)
    # a '|' in a log line is no second table
    log = "h:1:2 [0] NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 512 | 512\n"
    assert not any("beside" in problem for problem in parse_nccl(log).problems)


def test_a_table_with_its_in_place_half_first_is_read_by_its_group_line() -> None:
    """mscclpp#114 puts 'in-place' first, each line tagged by mpirun: it was unparsed, and
    without the tags its in-place values would have been read as out-of-place ones."""
    text = _read("nccl/issues/016")
    assert recognise_nccl_tests(text)
    result = parse_nccl(text)
    assert result.values("nccl.busbw.inplace") == {"size=3221225472": 213.53}
    assert result.values("nccl.busbw") == {}
    assert result.values("nccl.out_of_bounds") == {"host": 0}


def test_an_old_error_column_within_tolerance_is_no_validation_error() -> None:
    """nccl#258: old nccl-tests print the largest deviation ('1e-07' in a float sum), not a
    count of wrong values; it was reported as validation errors at every size."""
    result = parse_nccl(_read("nccl/issues/018"))
    assert not any("validation" in problem for problem in result.problems)
    header = "#  size  count  type  redop  time  algbw  busbw  error  time  algbw  busbw  error\n"
    bad = (
        header
        + "  268435456  1048576  float  sum  520935  0.52  0.51  0e+00  519562  0.52  0.51  1e+00\n"
    )
    assert any("validation" in problem for problem in parse_nccl(bad).problems)


def test_a_sentence_that_names_a_setting_is_not_the_setting() -> None:
    """A person's words ("… set to 1 in my env but it still hangs") are not NCCL's line; the
    bare quoted line with one value still is."""
    said = parse_nccl_debug("NCCL_P2P_DISABLE set to 1 in my env but it still hangs\n")
    assert not any(f.name.startswith("nccl.env.") for f in said.facts)
    quoted = parse_nccl_debug("NCCL_P2P_DISABLE set by environment to 1\n")
    assert {f.name: f.value for f in quoted.facts}["nccl.env.NCCL_P2P_DISABLE"] == "1"
