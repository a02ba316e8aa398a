"""Software a probe's tool cannot look inside, as patterns over what a case states it runs
(``--env software=…``): a Python sampler sees nothing of a C++ inference server, and a PyTorch
profiler nothing of a program that does not run PyTorch. Kept in one place so the probes that
share a limit say it the same way.

A case may state a mixed stack ("llama.cpp for the draft model, vLLM for serving"): a tool is
left out only where nothing stated is software it can read, so a PyTorch framework named
anywhere keeps the PyTorch profiler, and a Python framework named anywhere keeps py-spy.
"""

from __future__ import annotations

#: inference servers and runtimes written in C, C++, Go or Rust, however their names are spelled
_NATIVE = (
    r"llama[-_. ]?cpp|\bggml\b|whisper[-_. ]?cpp|koboldcpp|\bollama\b|\bLM ?Studio\b"
    r"|\bllamafile\b|\bcandle\b|mistral[-_. ]?rs\b"
)
#: runtimes with a Python API over their own (not PyTorch's) kernels
_OWN_KERNELS = (
    r"tensorflow|\bJAX\b|\bMLX\b|ctranslate2|faster[-_. ]?whisper|onnx ?runtime|\bOpenVINO\b"
)
#: llama.cpp driven from Python (llama-cpp-python, "Python bindings for llama.cpp"): the
#: process is a Python one, so a Python sampler does see its calls
_PYTHON_BINDINGS = r"python bindings (for|of) llama[-_. ]?cpp|llama[-_. ]?cpp(?:'s)?[-_. ]?python"
#: software that runs on PyTorch, however it is spelled ("PyTorch 2.3", "torch.compile",
#: "vLLM 0.6", "HF transformers"); llama-cpp-python is not one
PYTORCH = (
    r"\b(?:py)?torch(?:vision|audio)?\b|\bvllm\b|\bsglang\b|\btransformers\b|\bdiffusers\b"
    r"|deepspeed|megatron|lightning|\baccelerate\b|\btimm\b|fairseq|\bNeMo\b|comfyui"
    r"|xformers|\bunsloth\b|\bpeft\b|axolotl|litgpt|gpt[-_. ]?fast|torchtitan|\bFSDP\b"
)

#: a case whose software holds no Python to sample: a native runtime named, and no Python
#: bindings or Python framework anywhere in the statement ("llama-cpp-python 0.2.56
#: (llama.cpp b2450)" is Python; so is "llama.cpp and vLLM")
NATIVE_RUNTIMES = rf"^(?!.*(?:{_PYTHON_BINDINGS}|{PYTORCH}|{_OWN_KERNELS})).*?(?:{_NATIVE})"
#: software that runs no PyTorch (each has its own profiler), every native runtime (its Python
#: bindings included: they run llama.cpp, not PyTorch), where no PyTorch software is named too
NOT_PYTORCH = rf"^(?!.*(?:{PYTORCH})).*?(?:{_NATIVE}|{_OWN_KERNELS})"
