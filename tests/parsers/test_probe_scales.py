"""Every built-in probe says the scale of the facts a statement could get wrong: shares from 0
to 1 (``fractions``) and percentages (``percentages``). A probe that gives a utilisation or a
model's share on the GPU and does not list it would take "0.9" for 90 % as a GPU idle below
1 %; one that gives a share and does not list it would take 32 for a third as thirty-two times
the whole. Checked over what each probe declares, so a new probe that gives one is held too."""

from __future__ import annotations

import pytest

from casefile.domain.beliefs.ranking import can_produce
from casefile.domain.facts import ParseResult
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.probes.patterns import fact_pattern

PROBES = sorted(Registry.discover().all_probes().values(), key=lambda p: p.name)
PERCENT = ("utilization.gpu", "utilization.memory", "model.gpu_share")


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.name)
def test_a_probe_that_gives_a_percentage_lists_it(probe: Probe) -> None:
    if not probe.facts:
        return  # declares nothing: any fact, and no scale
    for name in PERCENT:
        if can_produce(probe.facts, name):
            assert name in probe.percentages, (probe.name, name)
    if can_produce(probe.facts, "utilization.gpu.series.max"):
        assert "utilization.gpu.series.max" in probe.percentages, probe.name
    # app.dispatch_share is dispatch over GPU time: a ratio that passes 1
    shares = [
        n for n in (*probe.facts, *probe.stated_facts) if n.rsplit(".", 1)[-1].endswith("share")
    ]
    for name in shares:
        if name not in (*PERCENT, "app.dispatch_share"):
            assert name in probe.fractions, (probe.name, name)


def test_a_probe_s_scales_are_tuples_and_one_fact_has_one() -> None:
    def parse(text: str) -> ParseResult:
        return ParseResult()

    listed = Probe(name="x", summary="x", parse=parse, facts=["a"], percentages=["a"])  # type: ignore[arg-type]
    assert listed.facts == ("a",) and listed.percentages == ("a",)
    with pytest.raises(TypeError, match="a tuple of names, not one"):
        Probe(name="x", summary="x", parse=parse, fractions="gpu.busy_share")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is a fraction and a percentage"):
        Probe(name="x", summary="x", parse=parse, fractions=("a",), percentages=("a",))


def test_what_may_be_stated_is_what_a_run_gives_and_what_only_a_person_states() -> None:
    """The CLI, the TUI's dialog and the agent interface check a statement against this one
    list; a probe that declares no facts takes any."""

    def parse(text: str) -> ParseResult:
        return ParseResult()

    declared = Probe(name="x", summary="x", parse=parse, facts=("a",), stated_facts=("b",))
    assert declared.statable == ("a", "b")
    assert Probe(name="y", summary="y", parse=parse).statable == ()


@pytest.mark.parametrize(
    ("captured", "kept"),
    [("90", 90), ("90%", 90), ("0.5 %", 0.5), ("0", 0), ("0.9", None), ("140%", None)],
)
def test_a_percentage_pulled_out_keeps_its_sign_as_its_scale(
    captured: str, kept: float | None
) -> None:
    """--fact 'utilization.gpu=Util: (\\S+)' on "Util: 90%" was dropped as text; the figure
    with its sign is the percentage, and a bare 0.9 is the fraction it looks like."""
    smi = next(p for p in PROBES if p.name == "nvidia-smi-query")
    probe = smi.with_facts([fact_pattern("utilization.gpu", r"Util: (.+)$")])
    result = probe.parse(f"Util: {captured}\n")
    values = [f.value for f in result.facts if f.name == "utilization.gpu"]
    if kept is None:
        assert values == [] and any("no percentage" in p for p in result.problems)
    else:
        assert values == [kept]


@pytest.mark.parametrize("captured", ["0.45%", "1%", "0 %"])
def test_a_fraction_pulled_out_with_its_sign_is_named_with_it(captured: str) -> None:
    """A fraction's capture refused for its sign quotes the sign: "0.45 is no fraction from 0
    to 1" would contradict itself."""
    nsys = next(p for p in PROBES if p.name == "nsys-stats")
    probe = nsys.with_facts([fact_pattern("gpu.busy_share", r"busy: (.+)$")])
    result = probe.parse(f"busy: {captured}\n")
    assert not [f for f in result.facts if f.name == "gpu.busy_share"]
    assert any(f"{captured!r} is no fraction from 0 to 1" in p for p in result.problems)
