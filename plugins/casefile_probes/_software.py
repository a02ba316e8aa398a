"""Software a probe's tool cannot look inside, as patterns over what a case states it runs
(``--env software=…``): a Python sampler sees nothing of a C++ inference server, and a PyTorch
profiler nothing of a program that does not run PyTorch. Kept in one place so the probes that
share a limit say it the same way."""

from __future__ import annotations

#: inference servers and runtimes written in C, C++ or Go, however their names are spelled
_NATIVE = r"llama[-_. ]?cpp|\bggml\b|whisper[-_. ]?cpp|koboldcpp|\bollama\b|\bLM ?Studio\b"
#: llama.cpp driven from Python (llama-cpp-python, "Python bindings for llama.cpp"): the
#: process is a Python one, so a Python sampler does see its calls
_PYTHON_BINDINGS = r"python bindings (for|of) llama[-_. ]?cpp|llama[-_. ]?cpp(?:'s)?[-_. ]?python"

#: a case whose software holds no Python to sample: a native runtime named, and no Python
#: bindings anywhere in the statement ("llama-cpp-python 0.2.56 (llama.cpp b2450)" is Python)
NATIVE_RUNTIMES = rf"^(?!.*(?:{_PYTHON_BINDINGS})).*?(?:{_NATIVE})"
#: frameworks that run no PyTorch (each has its own profiler), and every native runtime,
#: its Python bindings included (they run llama.cpp, not PyTorch)
NOT_PYTORCH = rf"{_NATIVE}|tensorflow|\bJAX\b|\bMLX\b"
