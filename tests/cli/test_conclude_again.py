"""Concluding is said plainly: a second conclusion says which one it replaces and how the root
cause changed (a new user saw a bare seq and no word that the first was replaced), and a root
cause misspelt (``host_cpu``) is refused with the id it likely meant."""

from __future__ import annotations

from tests.cli.conftest import CLI


def test_a_second_conclusion_says_what_it_replaces(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "c1", "--playbook", "gpu-throughput").code == 0
    first = cli("conclude", "c1", "hot card", "--root-cause", "thermal-degradation")
    assert first.code == 0 and first.err == ""
    seq = first.out.strip()
    second = cli("conclude", "c1", "power cap after all", "--root-cause", "power-cap")
    assert second.code == 0
    assert f"replaces the conclusion at seq {seq} (root cause thermal-degradation → power-cap)" in (
        second.err
    )
    same = cli("conclude", "c1", "power cap, with numbers", "--root-cause", "power-cap")
    assert same.code == 0 and "replaces the conclusion at seq" in same.err
    assert "root cause" not in same.err


def test_a_misspelt_root_cause_is_refused_with_the_id_it_likely_meant(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "c2", "--playbook", "gpu-throughput").code == 0
    refused = cli("conclude", "c2", "cpu", "--root-cause", "host_cpu")
    assert refused.code == 1
    assert "no hypothesis 'host_cpu' to name as the root cause (did you mean host-cpu?)" in (
        refused.err
    )
