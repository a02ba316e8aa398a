"""Each probe's ``recognises`` against every real sample: its own, and everybody else's.

Output pasted under ``command`` (or under a probe that cannot read it) is offered to every probe
that recognises it, so a recogniser must accept its own tool's output and nothing else. Checked
over every installed probe that has one, and every sample of every folder, so that a probe
added later (with its samples in ``tests/golden/<its name>/``) is held to the same at once.
"""

from __future__ import annotations

import pytest

from casefile.plugins import Registry
from casefile.probes.api import unwrap_paste

from .samples import Sample, all_samples

PROBES = Registry.discover().all_probes()
RECOGNISING = {name: probe for name, probe in sorted(PROBES.items()) if probe.recognises}
SAMPLES = all_samples()

#: The built-in probes whose output is distinctive enough to recognise cheaply.
BUILT_IN = (
    "cuda-bandwidth",
    "cuda-p2p-bandwidth",
    "lspci",
    "nccl-debug",
    "nccl-tests",
    "nvbandwidth",
    "nvidia-smi",
    "nvidia-smi-dmon",
    "nvidia-smi-q",
    "nvidia-smi-topo",
)


def _covered_by_owner(name: str, sample: Sample) -> bool:
    """Whether an owner of the sample reads ``name``'s output in full from the same command
    (nccl-tests run with NCCL_DEBUG=INFO prints NCCL's log too): then both may see it."""
    return any(name in PROBES[owner].covers for owner in sample.owners if owner in PROBES)


CASES = [
    pytest.param(name, sample, id=f"{name}:{sample.key}")
    for name in RECOGNISING
    for sample in SAMPLES
]


@pytest.mark.parametrize(("name", "sample"), CASES)
def test_a_probe_recognises_its_own_samples_and_no_others(name: str, sample: Sample) -> None:
    probe = RECOGNISING[name]
    assert probe.recognises is not None
    text = sample.text()
    seen = probe.recognises(text)
    assert isinstance(seen, bool)
    if name in sample.owners:
        read = probe.safe_parse(text)
        # an error message in place of the output (nvidia-smi's "No devices were found")
        # teaches its parser nothing, and need not be recognised; whatever it reads must be
        if read.parsed and read.facts:
            assert seen, f"{name} does not recognise its own sample {sample.key}"
    elif not _covered_by_owner(name, sample):
        assert not seen, f"{name} takes {sample.key} ({', '.join(sample.owners)}) for its own"


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_distinctive_built_in_probes_recognise(name: str) -> None:
    assert PROBES[name].recognises is not None


@pytest.mark.parametrize("name", sorted(RECOGNISING))
def test_a_recogniser_takes_any_text(name: str) -> None:
    recognises = RECOGNISING[name].recognises
    assert recognises is not None
    for text in ("", "\n", "\x00\ufffd" * 50, "> " * 1000, "# gpu pid\n", "GPU0\n", "x" * 100_000):
        assert recognises(text) in (True, False)


@pytest.mark.parametrize("name", sorted(RECOGNISING))
def test_a_wrapped_sample_is_recognised_once_unwrapped(name: str) -> None:
    """The recorder hands a recogniser the paste without its Markdown; a quoted or indented
    sample of its own is then recognised as the plain one is."""
    probe = RECOGNISING[name]
    assert probe.recognises is not None
    own = [s for s in SAMPLES if name in s.owners]
    for sample in own:
        text = sample.text()
        for wrapped in ("".join("> " + line for line in text.splitlines(True)),
                        "".join("    " + line for line in text.splitlines(True))):  # fmt: skip
            assert probe.recognises(unwrap_paste(wrapped)) == probe.recognises(text), sample.key
