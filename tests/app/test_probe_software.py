"""A probe whose tool cannot look inside the software the case states it runs is not
suggested: no PyTorch profiler for a llama.cpp server, no py-spy for a C++ or Go one, no
``ollama ps`` for anything but Ollama. A case that states no software is offered them all,
and a run recorded under such a probe is still read."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.ollama_ps import PROBE as OLLAMA_PS
from casefile_probes.py_spy import PROBE as PY_SPY
from casefile_probes.torch_profiler import PROBE as TORCH_PROFILER

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.probes.api import Probe
from casefile.probes.runners.pasted import from_text
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCOPED = ("torch-profiler", "py-spy", "ollama-ps")


@pytest.mark.parametrize(
    ("software", "offered"),
    [
        ("", {"torch-profiler", "py-spy", "ollama-ps"}),
        ("llama.cpp b2450 (CUDA build)", set()),
        ("Ollama 0.5.4", {"ollama-ps"}),
        ("llama-cpp-python 0.2.11 built with cuBLAS", {"py-spy"}),
        ("vLLM 0.4.2, PyTorch 2.3.0", {"torch-profiler", "py-spy"}),
        ("tensorflow-gpu 1.15.0", {"py-spy"}),
        ("mlxcel (MLX CUDA backend)", {"py-spy"}),
        ("gpt-fast generate.py, PyTorch 2.3.1", {"torch-profiler", "py-spy"}),
    ],
)
def test_the_case_is_offered_only_the_probes_its_software_can_be_read_by(
    software: str, offered: set[str]
) -> None:
    environment = {"software": software} if software else {}
    assert {p for p in SCOPED if (probes()[p]).suits(environment)} == offered
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case(
            "slow", environment=environment, playbook="gpu-throughput@3", who=Who("t")
        )
        projection = service.reader.projection(case)
        names = {c.probe for c in service.reader.candidates(projection)}
    assert names & set(SCOPED) == offered
    assert {"app-log", "nsys-stats", "nvidia-smi"} <= names  # the general tools stay


def probes() -> dict[str, Probe]:
    return {p.name: p for p in (TORCH_PROFILER, PY_SPY, OLLAMA_PS)}


def test_the_framework_key_counts_as_the_software_too() -> None:
    assert not TORCH_PROFILER.suits({"framework": "TensorFlow 2.4"})
    assert TORCH_PROFILER.suits({"gpus": "1x RTX 3090 (llama.cpp box)"})  # not a software key


def test_a_run_under_a_probe_not_suggested_is_still_read() -> None:
    """Not suggesting a profiler is no reason to ignore the table someone pasted anyway."""
    table = next(iter(sorted((GOLDEN / "torch-profiler").glob("*.txt"))))
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case(
            "slow",
            environment={"software": "llama.cpp b2450"},
            playbook="gpu-throughput@3",
            who=Who("t"),
        )
        before = len(service.reader.projection(case).evidence)
        run = from_text(
            ("python", "train.py"),
            table.read_text(encoding="utf-8"),
            host="box",
            taken_at="2026-01-01T00:00:00Z",
        )
        service.probing.record_probe(case, TORCH_PROFILER, run, load="under-load")
        assert len(service.reader.projection(case).evidence) > before


def test_a_bad_scope_pattern_fails_when_the_probe_is_made() -> None:
    import re

    with pytest.raises(re.error):
        Probe(name="x", summary="x", parse=TORCH_PROFILER.parse, only_for="(")


@pytest.mark.parametrize(
    "software",
    [
        "llama.cpp python bindings",
        "llama.cpp-python 0.2.56",
        "Llama.cpp Python 0.2 (cuBLAS wheel)",
    ],
)
def test_the_python_bindings_of_llama_cpp_spelled_with_a_dot_run_no_pytorch(software: str) -> None:
    """However the bindings' name is spelled, they run llama.cpp, not PyTorch (a review found
    "llama.cpp-python" offered the profiler)."""
    assert not TORCH_PROFILER.suits({"software": software})


@pytest.mark.parametrize(
    "software",
    [
        "llama-cpp-python 0.2.56 (llama.cpp b2450)",
        "Python bindings for llama.cpp (llama-cpp-python), CUDA 12.1",
        "text-generation-webui, llama.cpp loader (llama-cpp-python 0.2.11)",
    ],
)
def test_a_case_that_runs_llama_cpp_python_is_offered_py_spy_though_it_names_llama_cpp(
    software: str,
) -> None:
    """A Python sampler sees llama-cpp-python's calls, also where the case names the llama.cpp
    build it bundles beside it, as people do (a review found py-spy withheld there)."""
    assert PY_SPY.suits({"software": software})


@pytest.mark.parametrize(
    ("software", "offered"),
    [
        ("llama.cpp for the draft model, vLLM 0.6.3 for serving", {"torch-profiler", "py-spy"}),
        ("Ollama 0.5 beside a PyTorch 2.4 fine-tuning script", set(SCOPED)),
        ("llama.cpp b4500 and TensorFlow 2.15", {"py-spy"}),
        ("llamafile 0.8.13", set()),
        ("candle (Rust), CUDA 12.4", set()),
        ("mistral.rs 0.3", set()),
        ("faster-whisper 1.0 (CTranslate2)", {"py-spy"}),
        ("onnxruntime-gpu 1.18", {"py-spy"}),
        ("HF transformers 4.44 with bitsandbytes", {"torch-profiler", "py-spy"}),
    ],
)
def test_a_mixed_stack_keeps_the_tools_of_every_part_and_more_runtimes_are_scoped(
    software: str, offered: set[str]
) -> None:
    """A tool is left out only where nothing the case states is software it can read: naming
    llama.cpp beside vLLM no longer costs the PyTorch profiler; native runtimes written in
    Rust and runtimes with their own kernels are scoped as llama.cpp is."""
    assert {p for p in SCOPED if probes()[p].suits({"software": software})} == offered
