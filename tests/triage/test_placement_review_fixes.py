"""Faults a review by fresh eyes found in changes 63-65 (where a model server placed the model,
CUDA graphs at start-up, nvidia-smi's memory and processes), each fixed in change 67.

Each test states what a user would expect and failed on the code before the fix. Tables
marked synthetic are shaped on public outputs where no verbatim one was at hand."""

from __future__ import annotations

from collections.abc import Sequence

from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.app_log import parse_app_log
from casefile_probes.ollama_ps import looks_like_ollama_ps, parse_ollama_ps
from casefile_probes.smi_table import parse_smi_table

from casefile.domain.facts import Fact
from casefile.domain.rules import Applied, Rule, evaluate


def rule(rule_id: str) -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == rule_id)


def outcome(rule_id: str, facts: Sequence[Fact], load: str = "under-load") -> str | None:
    verdict = evaluate(rule(rule_id), facts, load)
    return verdict.outcome if isinstance(verdict, Applied) else None


def applied(rule_id: str, facts: Sequence[Fact], load: str = "under-load") -> bool:
    return isinstance(evaluate(rule(rule_id), facts, load), Applied)


# --- 1. one failed CUDA start read twice (runs-on-cpu AND model-on-gpu-share) -------------
# janhq/cortex.cpp#1470 (2024-10): CUDA failed to initialise, llama.cpp still prints its
# "offloaded 13/33 layers to GPU", and every buffer is a CPU buffer. Lines copied verbatim.
CORTEX = (
    "2024-10-11T12:45:53.660Z [CORTEX]::Error: ggml_cuda_init: failed to initialize CUDA: "
    "no CUDA-capable device is detected\n"
    "llm_load_tensors: ggml ctx size =    0.14 MiB\n"
    "\n"
    "2024-10-11T12:45:54.042Z [CORTEX]::Error: llm_load_tensors: offloading 13 repeating "
    "layers to GPU\n"
    "llm_load_tensors: offloaded 13/33 layers to GPU\n"
    "llm_load_tensors:        CPU buffer size =  8137.64 MiB\n"
)


def test_failed_cuda_start_is_not_also_read_as_a_partial_offload() -> None:
    facts = parse_app_log(CORTEX).facts
    # before the change this log gave one reading (app.device_cpu); now both rules apply, and
    # the second says 39 % of the model is on a GPU that CUDA never reached
    both = applied("runs-on-cpu", facts) and applied("model-on-gpu-share", facts)
    assert not both, [(f.name, f.value) for f in facts]


def test_offloaded_zero_beside_a_cpu_statement_counts_once() -> None:
    text = (
        "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\n"
        "llm_load_tensors: offloaded 0/33 layers to GPU\n"
    )
    facts = parse_app_log(text).facts
    assert not (applied("runs-on-cpu", facts) and applied("model-on-gpu-share", facts))


# --- 2. min over models: one model on the CPU makes "none" ---------------------------------
def test_a_second_model_on_the_cpu_is_not_the_model_left_off_the_gpu() -> None:
    # a chat model wholly on the GPU beside an embedding model kept on the CPU (num_gpu 0)
    paste = (
        "NAME                       ID              SIZE      PROCESSOR    UNTIL\n"
        "llama3.1:8b                46e0c10c039e    6.9 GB    100% GPU     4 minutes from now\n"
        "nomic-embed-text:latest    0a109f422b47    849 MB    100% CPU     4 minutes from now\n"
    )
    facts = parse_ollama_ps(paste).facts
    # "none" is the strongest reading for gpu-unused (0.45 vs 0.01): here a model IS on the GPU
    assert outcome("model-on-gpu-share", facts) != "none"


# --- 3. two runs pasted (before / after the fix): the older row decides --------------------
def test_the_latest_run_of_the_same_model_decides() -> None:
    paste = (
        "NAME          ID              SIZE     PROCESSOR          UNTIL\n"
        "gemma3:27b    a418f5838eaf    21 GB    17%/83% CPU/GPU    4 minutes from now\n"
        "$ OLLAMA_CONTEXT_LENGTH=2048 ollama serve &   # then, after a reload:\n"
        "NAME          ID              SIZE     PROCESSOR          UNTIL\n"
        "gemma3:27b    a418f5838eaf    18 GB    100% GPU           4 minutes from now\n"
    )
    facts = parse_ollama_ps(paste).facts
    assert outcome("model-on-gpu-share", facts) == "whole", [(f.subject, f.value) for f in facts]


def test_a_reload_in_the_server_log_is_read_at_its_last_load() -> None:
    log = (
        "llm_load_tensors: offloaded 29/41 layers to GPU\n"
        "... model unloaded, num_ctx lowered, reloaded ...\n"
        "llm_load_tensors: offloaded 41/41 layers to GPU\n"
    )
    assert outcome("model-on-gpu-share", parse_app_log(log).facts) == "whole"


# --- 4. compute-process-on-gpu counts graphics processes -----------------------------------
SMI_DESKTOP = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3090        Off |   00000000:01:00.0  On |                  N/A |
|  0%   45C    P8             30W /  350W |     512MiB /  24576MiB |      2%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A      1523      G   /usr/lib/xorg/Xorg                            250MiB |
|    0   N/A  N/A      1789      G   /usr/bin/gnome-shell                          120MiB |
|    0   N/A  N/A      2950      G   ...irefox/4451/usr/lib/firefox/firefox        130MiB |
+-----------------------------------------------------------------------------------------+
"""  # synthetic: a desktop whose job runs on the CPU; only display (type G) processes listed


def test_display_processes_are_not_a_compute_process() -> None:
    facts = parse_smi_table(SMI_DESKTOP).facts
    assert outcome("compute-process-on-gpu", facts) == "none"


# --- 5. gpu-memory-held: 2 % of a large GPU is a whole small model --------------------------
def test_a_small_model_on_an_80gb_gpu_is_not_an_empty_gpu() -> None:
    # a BERT-base / whisper-small server at batch 1 (the launch-bound case): context + weights
    facts = [Fact("memory.used", 1400, "gpu0", "MiB"), Fact("memory.total", 81559, "gpu0", "MiB")]
    verdict = evaluate(rule("gpu-memory-held"), facts, "under-load")
    assert isinstance(verdict, Applied)
    ratio = verdict.likelihoods.get("gpu-unused", verdict.otherwise) / verdict.otherwise
    # today: outcome 'empty', gpu-unused favoured 15x over compute-launch for a job on the GPU
    assert verdict.outcome != "empty" or ratio < 3, (verdict.outcome, ratio)


# --- 6. WSL2: nvidia-smi never lists processes ----------------------------------------------
SMI_WSL = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.103                Driver Version: 537.13       CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 3090        On  | 00000000:01:00.0  On |                  N/A |
| 30%   60C    P2             280W / 350W |  20480MiB / 24576MiB |     95%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|  No running processes found                                                           |
+---------------------------------------------------------------------------------------+
"""  # synthetic, WSL2 shape (nvidia-smi 535.103 under Windows driver 537.13): busy, 20 GB held


def test_wsl_empty_process_list_is_not_read_as_no_process() -> None:
    facts = parse_smi_table(SMI_WSL).facts
    # WSL2's nvidia-smi does not list processes at all: "none" here weighs 3x for gpu-unused
    assert outcome("compute-process-on-gpu", facts) != "none"


# --- 7. cuda graphs: help text and cudagraph_mode ------------------------------------------
def _graphs(text: str) -> object:
    return {f.name: f.value for f in parse_app_log(text).facts}.get("app.cuda_graphs_off")


def test_vllm_help_text_is_not_the_setting() -> None:
    # `vllm serve --help` lists the flag; nothing was set
    line = (
        "  --enforce-eager, --no-enforce-eager\n"
        "                        Whether to always use eager-mode PyTorch. If True, we will\n"
        "                        disable CUDA graph and always execute the model in eager\n"
    )
    assert _graphs(line) is None


def test_cudagraph_mode_none_is_graphs_off() -> None:
    line = (
        "INFO 09-01 10:00:00 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: "
        "model='m', enforce_eager=False, compilation_config={\"level\":3,"
        '"cudagraph_mode":0}\n'
    )
    # enforce_eager=False is not proof that graphs are captured: cudagraph_mode 0 is NONE
    assert _graphs(line) is True


# --- 8. ollama-ps odds and ends -------------------------------------------------------------
def test_a_label_with_a_space_does_not_become_the_model_name() -> None:
    row = "Before upgrade: gemma3:27b    29eb0b9aeda3    22 GB    100% GPU     4 minutes from now\n"
    subjects = [f.subject for f in parse_ollama_ps(row).facts]
    assert subjects and subjects[0].startswith("gemma3:27b"), subjects


def test_a_memory_line_is_not_an_ollama_ps_row() -> None:
    assert not looks_like_ollama_ps("Memory: 24 GB  100% GPU\n")


def test_an_unknown_placement_is_not_reported_as_no_loaded_model() -> None:
    table = (
        "NAME        ID              SIZE      PROCESSOR    UNTIL\n"
        "qwen3:8b    500a1f067a9f    5.9 GB    Unknown      4 minutes from now\n"
    )
    result = parse_ollama_ps(table)
    assert "lists no loaded model" not in " ".join(result.problems), result.problems
