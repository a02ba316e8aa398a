"""``casefile probe --stated``: a reading a person states, recorded as the probe's facts and
read by the same rules as reported evidence; a statement that cannot be one writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casefile.domain.kinds import STATED_RELIABILITY
from tests.cli.conftest import CLI

GEN2 = ["--stated", "pcie.link.gen.current[e3:00.0]=2", "--stated", "pcie.link.gen.max[e3:00.0]=5"]


def _events(cli: CLI, case: str) -> list[dict[str, object]]:
    return json.loads(cli("log", case, "--json").out)  # type: ignore[no-any-return]


def test_a_stated_reading_is_read_by_the_rules_as_reported_evidence(cli: CLI) -> None:
    case = cli("new", "slow training", "--playbook", "gpu-throughput").out.strip()
    said = "the PR: GPU e3:00.0 sat at Gen2 x16 for three hours"
    result = cli(
        "probe", case, "nvidia-smi-q", *GEN2, "--load", "under-load", "--host", "rig",
        "--taken-at", "2026-01-05T10:00:00Z", "--note", said, "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    line = json.loads(result.out)
    assert line["ok"] and line["evidence"] and line["set_aside"] == []
    events = _events(cli, case)
    run = next(e for e in events if e["type"] == "probe.ran")
    payload = run["payload"]
    assert isinstance(payload, dict)
    assert (payload["source"], payload["argv"], payload["host"]) == ("stated", [], "rig")
    assert run["occurred_at"] == "2026-01-05T10:00:00.000000Z"
    observation = next(e for e in events if e["type"] == "observation.recorded")
    assert observation["payload"]["facts"] == [  # type: ignore[index]
        {"name": "pcie.link.gen.current", "subject": "e3:00.0", "value": 2},
        {"name": "pcie.link.gen.max", "subject": "e3:00.0", "value": 5},
    ]
    (evidence,) = [e["payload"] for e in events if e["type"] == "evidence.assessed"][-1:]
    assert isinstance(evidence, dict)
    # Gen2 of Gen5 under load: three generations down (link-speed-at-max version 3)
    assert evidence["rule"]["id"] == "link-speed-at-max" and evidence["outcome"] == "far-below"
    assert (evidence["kind"], evidence["reliability"]) == ("reported", STATED_RELIABILITY)
    shown = cli("show", case, str(run["seq"])).out
    assert "stated, not run" in shown and "pcie.link.gen.current[e3:00.0]=2" in shown
    assert "nothing ran" in shown and "$ " not in shown


def test_only_the_rules_that_read_the_stated_facts_judge_them(cli: CLI) -> None:
    """One stated fact is no reading for the rules that read others, so nothing is set aside
    for them (a pasted nvidia-smi -q at unknown load sets aside every under-load rule)."""
    case = cli("new", "slow", "--playbook", "gpu-throughput").out.strip()
    unread = cli("probe", case, "nvidia-smi-q", "--stated", "pcie.link.width.max=16", "--json")
    assert json.loads(unread.out)["set_aside"] == [] and json.loads(unread.out)["evidence"] == []
    idle = cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "idle", "--json")
    assert json.loads(idle.out)["set_aside"] == ["link-speed-at-max"]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--stated", "tokens_per_s=8"], "gives no fact 'tokens_per_s'"),
        (["--stated", "pcie.link.gen.max="], "the value is empty"),
        (["--stated", "=2"], "write each as KEY=VALUE"),
        ([*GEN2, "--", "nvidia-smi", "-q"], "takes no a command line"),
        ([*GEN2, "--host", "a", "--host", "b"], "takes no more than one host"),
        ([*GEN2, "--fact", "x=(\\d+)"], "takes no facts to pull out"),
        ([*GEN2, "--timeout", "3"], "takes no timeout"),
        ([*GEN2, "--reconstructed"], "takes no 'reconstructed'"),
        ([*GEN2, "--window", "5"], "takes no sampling window"),
        ([*GEN2, "--stated", "pcie.link.gen.max[e3:00.0]=4"], "given twice"),
        (["--stated", "pcie.link.gen.current[a\rb]=2"], "the subject is one short line"),
        (["--stated", f"pcie.link.gen.current[{'g' * 65}]=2"], "the subject is one short line"),
        (["--stated", "clocks.sm=1,36 MHz"], "is not a number and its unit"),
    ],
)
def test_a_statement_that_cannot_be_recorded_writes_nothing(
    cli: CLI, extra: list[str], says: str
) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput").out.strip()
    before = len(_events(cli, case))
    result = cli("probe", case, "nvidia-smi-q", *extra)
    assert result.code != 0 and says in result.err, result.err
    assert result.err.strip().count("\n") == 0 and "Traceback" not in result.err
    assert len(_events(cli, case)) == before


def test_a_stated_reading_with_pasted_output_is_refused(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "slow").out.strip()
    pasted = tmp_path / "out.txt"
    pasted.write_text("x\n")
    result = cli("probe", case, "nvidia-smi-q", *GEN2, "--paste", str(pasted))
    assert result.code != 0 and "takes no pasted output" in result.err


def test_a_secret_in_a_stated_value_is_scrubbed_before_it_is_sealed(cli: CLI) -> None:
    case = cli("new", "slow").out.strip()
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    result = cli("probe", case, "nvidia-smi-q", "--stated", f"name={token}")
    assert result.code == 0 and "1 secret scrubbed" in result.err
    assert token not in cli("log", case, "--json").out
    shown = cli("show", case, str(_events(cli, case)[-2]["seq"])).out
    assert token not in shown and "name=[scrubbed]" in shown


def test_a_value_with_digits_grouped_by_thousands_is_the_number(cli: CLI) -> None:
    case = cli("new", "slow").out.strip()
    assert cli("probe", case, "nvidia-smi-q", "--stated", "clocks.sm[gpu1]=1,365 MHz").code == 0
    (observation,) = [e for e in _events(cli, case) if e["type"] == "observation.recorded"]
    facts = observation["payload"]["facts"]  # type: ignore[index]
    assert facts == [{"name": "clocks.sm", "subject": "gpu1", "unit": "MHz", "value": 1365}]


def test_show_of_an_observation_shows_its_run_s_output(cli: CLI) -> None:
    """It said the run's stored output was missing: the artifacts it read were only those
    of a probe run or an evidence event."""
    case = cli("new", "slow", "--playbook", "gpu-throughput").out.strip()
    assert cli("probe", case, "nvidia-smi-q", *GEN2).code == 0
    (observation,) = [e for e in _events(cli, case) if e["type"] == "observation.recorded"]
    shown = cli("show", case, str(observation["seq"])).out
    assert "missing" not in shown and "pcie.link.gen.current[e3:00.0]=2" in shown


def test_a_statement_no_rule_read_says_so_and_what_a_rule_still_needs(cli: CLI) -> None:
    """The line said "the rules read it as reported evidence" of a stated SM clock no rule
    reads, and of a power draw stated without the limit its rule divides by. A fact a rule
    reads through a derived one (the clock, for its share of the maximum on a busy GPU) says
    what else that needs."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    under = ("--load", "under-load", "--host", "rig")
    clock = cli("probe", case, "nvidia-smi-q", "--stated", "clocks.sm=1300", *under)
    assert clock.code == 0, clock.err
    assert clock.out.strip().endswith(
        "1 fact — stated, not run: no rule read it "
        "(clock-held-low also needs clocks.max.sm and utilization.gpu)"
    )
    draw = cli("probe", case, "nvidia-smi-q", "--stated", "power.draw=290 W", *under, "--json")
    line = json.loads(draw.out)
    assert line["evidence"] == [] and line["wanting"] == ["power-headroom also needs power.limit"]
    shown = cli("probe", case, "nvidia-smi-q", "--stated", "power.draw=291 W", *under).out
    assert "no rule read it (power-headroom also needs power.limit)" in shown
    both = cli(
        "probe", case, "nvidia-smi-q", "--stated", "power.draw=290 W", "--stated",
        "power.limit=300 W", *under,
    )  # fmt: skip
    assert "2 facts — evidence e" in both.out and "read it as reported evidence" in both.out


def test_the_tui_line_says_the_same_of_a_statement_no_rule_read(cli: CLI) -> None:
    """The probe dialog's line (the action table's) and the command line's come from one
    place: a stated SM clock is read by no rule in both, which say what it still needs."""
    from casefile.actions.probe_actions import RunProbe, said
    from casefile.app.opening import open_case
    from casefile.app.who import Who

    case = cli("new", "slow", "--id", "s1", "--playbook", "gpu-throughput@3").out.strip()
    action = RunProbe("nvidia-smi-q", stated={"clocks.sm": "1300"}, load="under-load")
    with open_case(case, None) as opened:
        (record,) = opened.service.probing.run_probe(opened.case_id, action.request(None), Who("t"))
    assert said(record).endswith(
        "0 evidence, 0 set aside; stated, not run: no rule read it "
        "(clock-held-low also needs clocks.max.sm and utilization.gpu)"
    )


def test_what_a_statement_no_rule_read_still_did_is_said(cli: CLI) -> None:
    """A GPU's name answers an intake question; a reading set aside at idle was not read as
    evidence; a pooled or derived fact is asked for as a person can state it; a run of
    another setup says 'no rule read it' once."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    under = ("--load", "under-load", "--host", "rig")
    named = cli("probe", case, "nvidia-smi-q", "--stated", "name=NVIDIA GeForce RTX 3090", *under)
    assert named.out.strip().endswith("no rule read it; it answers intake gpu-class: consumer")
    unknown = cli("probe", case, "nvidia-smi-q", "--stated", "name=Some Unknown GPU", *under)
    assert unknown.out.strip().endswith("stated, not run: no rule read it"), unknown.out
    flag = cli("probe", case, "nvidia-smi-q", "--stated",
               "clocks_event_reasons.sw_power_cap=Not Active", *under)  # fmt: skip
    assert "clock-event-reasons also needs clocks_event_reasons.hw_slowdown" in flag.out
    idle = cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "idle", "--host", "rig").out
    assert "set aside by link-speed-at-max" in idle and "reported evidence" not in idle
    rx = cli("probe", case, "nvidia-smi-q", "--stated", "pcie.rx_throughput=1000 KB/s", *under)
    assert (
        "pcie-link-busy also needs pcie.link.gen.max or pcie.link.gen.current and "
        "pcie.link.width.max or pcie.link.width.current" in rx.out
    ), rx.out
    setup = cli("probe", case, "nvidia-smi-q", "--stated", "clocks.sm=1", *under,
                "--setup", "the other rig")  # fmt: skip
    assert setup.out.count("no rule read it") == 1, setup.out


def test_a_link_generation_stated_alone_says_it_needs_the_maximum(cli: CLI) -> None:
    """link-speed-at-max reads generations lost, derived from the current generation and the
    maximum: a statement of the current one alone names the maximum, not "no rule read it"."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    one = cli("probe", case, "nvidia-smi-q", "--stated", "pcie.link.gen.current[gpu0]=2",
              "--load", "under-load", "--host", "rig")  # fmt: skip
    assert one.code == 0, one.err
    assert "link-speed-at-max also needs pcie.link.gen.max" in one.out, one.out


def test_a_busy_share_stated_in_percent_is_refused_and_a_fraction_is_read(cli: CLI) -> None:
    """A profile's "GPU busy 32 % of each step" read as 32 would pass every band of the rule
    that compares fractions and count a starved GPU as busy: "32 %" and 32 are refused in one
    line, writing nothing, and 0.32 is read as a host-bound step."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    before = len(_events(cli, case))
    for wrong in ("32", "32 %"):
        refused = cli("probe", case, "nsys-stats", "--stated", f"gpu.busy_share={wrong}")
        assert refused.code != 0, refused.out
        assert "a fraction from 0 to 1, without a unit (write 0.32 for 32 %)" in refused.err
        assert refused.err.strip().count("\n") == 0 and len(_events(cli, case)) == before
    said = cli("probe", case, "nsys-stats", "--stated", "gpu.busy_share=0.32", "--json")
    assert said.code == 0, said.err
    events = _events(cli, case)
    (observation,) = [e for e in events if e["type"] == "observation.recorded"]
    facts = observation["payload"]["facts"]  # type: ignore[index]
    assert facts == [{"name": "gpu.busy_share", "subject": "host", "value": 0.32}]
    (evidence,) = [e["payload"] for e in events if e["type"] == "evidence.assessed"][-1:]
    assert isinstance(evidence, dict)
    assert evidence["rule"]["id"] == "gpu-busy-in-profile"
    assert evidence["outcome"] == "host-bound" and evidence["kind"] == "reported"
    idle = cli("probe", case, "nsys-stats", "--stated", "gpu.busy_share=0.9", "--load", "idle",
               "--json")  # fmt: skip
    assert json.loads(idle.out)["set_aside"] == ["gpu-busy-in-profile"]


def test_the_command_line_says_of_stated_what_the_probe_action_says() -> None:
    """The command line takes its --stated help from the probe action, which the TUI's form
    and the agent interface read too."""
    import argparse

    from casefile.actions.probe_actions import PROBE
    from casefile.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    probe = sub.choices["probe"]
    (stated,) = [a for a in probe._actions if "--stated" in a.option_strings]
    assert stated.help == PROBE.option("stated").help
    for option in PROBE.options:  # and so of every option the action has words for
        if option.flag and option.help:
            (given,) = [a for a in probe._actions if option.flag in a.option_strings]
            assert given.help == option.help, option.flag


def test_a_fraction_pulled_out_as_a_percentage_is_not_kept(cli: CLI, tmp_path: Path) -> None:
    """--fact 'train.data_share=wait: (\\d+)%' gave 45, read as forty-five times the step (data
    bound, measured); a probe's fractions pulled out with --fact are checked as stated ones."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    out = tmp_path / "a.txt"
    out.write_text("dataloader wait: 45% of step time\n")
    ran = cli("probe", case, "app-log", "--paste", str(out), "--load", "under-load", "--fact",
              r"train.data_share=wait: (\d+)%", "--json", "--", "python", "train.py")  # fmt: skip
    assert ran.code == 0, ran.err
    line = json.loads(ran.out)
    assert line["evidence"] == []
    (observation,) = [e for e in _events(cli, case) if e["type"] == "observation.recorded"]
    payload = observation["payload"]
    assert isinstance(payload, dict) and payload["facts"] == []
    assert any("45 is no fraction from 0 to 1" in p for p in payload.get("problems", []))
    # the same pattern on a fraction written as one is kept, and read
    out.write_text("dataloader wait: 0.45 of step time\n")
    pattern = r"train.data_share=wait: ([0-9.]+) of"
    kept = cli("probe", case, "app-log", "--paste", str(out), "--load", "under-load", "--fact",
               pattern, "--json", "--", "python", "train.py")  # fmt: skip
    assert json.loads(kept.out)["evidence"], kept.out


@pytest.mark.parametrize("probe", ["nsys-stats", "torch-profiler", "app-log"])
def test_each_profiler_takes_the_busy_share_as_stated_and_only_so(cli: CLI, probe: str) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    said = cli("probe", case, probe, "--stated", "gpu.busy_share=0.9", "--json")
    assert said.code == 0, said.err
    assert json.loads(said.out)["evidence"], said.out
    assert cli("probe", case, probe, "--stated", "gpu.busy_share=90 %").code != 0


def test_an_idle_reading_without_the_share_is_not_set_aside_for_it(
    cli: CLI, tmp_path: Path
) -> None:
    """A rule that counts any load but idle sets aside an idle reading only where it holds
    the rule's fact: an app log pasted at idle says nothing of the busy share."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    out = tmp_path / "log.txt"
    out.write_text("Epoch 1 | data_time: 0.5 | time: 1.0\nUsing device: cuda\n")
    ran = cli("probe", case, "app-log", "--paste", str(out), "--load", "idle", "--json",
              "--", "python", "train.py")  # fmt: skip
    assert ran.code == 0, ran.err
    assert "gpu-busy-in-profile" not in json.loads(ran.out)["set_aside"]


def test_a_utilisation_stated_as_a_fraction_is_refused(cli: CLI, tmp_path: Path) -> None:
    """An agent or a person writing 0.9 for a GPU 90 % busy: read as under 1 %, it counted
    for the GPU left unused. Refused when stated, and not kept when pulled out with --fact."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    before = len(_events(cli, case))
    for probe in ("nvidia-smi-q", "nvidia-smi-query", "nvidia-smi-dmon"):
        refused = cli("probe", case, probe, "--stated", "utilization.gpu[gpu0]=0.9")
        assert refused.code != 0 and "a percentage from 0 to 100" in refused.err, refused.err
    share = cli("probe", case, "app-log", "--stated", "model.gpu_share=0.5")
    assert share.code != 0 and "write 90 for 90 %" in share.err
    # a looped query's peak, which the link reading takes for the GPU's load
    peak = cli("probe", case, "nvidia-smi-query", "--stated",
               "utilization.gpu.series.max[gpu0]=0.9")  # fmt: skip
    assert peak.code != 0 and "a percentage from 0 to 100" in peak.err, peak.err
    # with its sign, a fraction of a percent is one: a mean of an idle GPU, 0.33 %
    signed = cli("probe", case, "nvidia-smi-dmon", "--stated", "utilization.gpu[gpu0]=0.33 %")
    assert signed.code == 0, signed.err
    before = len(_events(cli, case))
    assert len(_events(cli, case)) == before
    kept = cli("probe", case, "nvidia-smi-q", "--stated", "utilization.gpu[gpu0]=90 %",
               "--load", "under-load", "--json")  # fmt: skip
    assert kept.code == 0 and json.loads(kept.out)["evidence"], kept.err
    out = tmp_path / "u.txt"
    out.write_text("gpu busy: 0.9\n")
    pulled = cli("probe", case, "nvidia-smi-q", "--paste", str(out), "--fact",
                 r"utilization.gpu=busy: ([0-9.]+)", "--json")  # fmt: skip
    assert pulled.code == 0, pulled.err
    observation = [e for e in _events(cli, case) if e["type"] == "observation.recorded"][-1]
    payload = observation["payload"]
    assert isinstance(payload, dict) and payload["facts"] == []
    assert any("0.9 is no percentage from 0 to 100" in p for p in payload["problems"])


def test_half_of_a_profile_s_copy_split_names_the_other_half(cli: CLI) -> None:
    """copy-share reads the host copies' share of GPU time, derived from two facts: stating
    one names the other, and stating the derived fact names both."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    half = cli("probe", case, "torch-profiler", "--stated", "gpu.memcpy_share=0.6",
               "--load", "under-load")  # fmt: skip
    assert "copy-share also needs memcpy.host_share" in half.out, half.out
    derived = cli("probe", case, "torch-profiler", "--stated", "gpu.host_copy_share=0.5")
    assert derived.code != 0
    assert "(derived: state gpu.memcpy_share and memcpy.host_share)" in derived.err
    both = cli("probe", case, "torch-profiler", "--stated", "gpu.memcpy_share=0.6",
               "--stated", "memcpy.host_share=0.9", "--load", "under-load", "--json")  # fmt: skip
    assert json.loads(both.out)["evidence"]
