"""Software a probe's tool cannot look inside, as patterns over what a case states it runs
(``--env software=…``): a Python sampler sees nothing of a C++ inference server, and a PyTorch
profiler nothing of a program that does not run PyTorch. Kept in one place so the probes that
share a limit say it the same way."""

from __future__ import annotations

#: inference servers and runtimes written in C, C++ or Go, whose process holds no Python
#: (llama-cpp-python is Python around llama.cpp, so a Python sampler does see its calls)
NATIVE_RUNTIMES = (
    r"llama[-_. ]?cpp(?![-_ ]?python)|\bggml\b|whisper[-_. ]?cpp|koboldcpp|\bollama\b"
    r"|\bLM ?Studio\b"
)
#: frameworks that run no PyTorch (each has its own profiler), and the runtimes above; the
#: Python bindings of llama.cpp run none either
NOT_PYTORCH = NATIVE_RUNTIMES + r"|llama[-_ ]?cpp[-_ ]?python|tensorflow|\bJAX\b|\bMLX\b"
