"""PyTorch's environment report (``python -m torch.utils.collect_env``) and the one-liner checks
people run before it: which torch build the job has, whether it can use a GPU at all, and the
GPUs the machine shows.

Nearly every PyTorch-related bug report carries the report (``PyTorch version: 2.4.0+cpu``,
``CUDA used to build PyTorch: None``, ``Is CUDA available: False``, ``GPU models and
configuration: GPU 0: NVIDIA …``, ``Nvidia driver version: …``, the CPU section and the
library versions), in every layout it has had since 2018 (``Yes``/``No`` before 1.7, the GPU
list on lines of its own where there are several GPUs, a ROCm build's one device name). The
one-liners (``python -c "import torch; print(torch.__version__); …"``) are read by
:mod:`casefile_probes.torch_env_printed`, only where the text shows what printed each value.

Facts, each only where the text says it:

- ``app.device_cpu`` (True): the job cannot run on a GPU: the build has none (a ``+cpu``
  version, or ``CUDA used to build PyTorch: None`` with no ROCm or XPU build), or torch says
  CUDA is not available. The fact the ``runs-on-cpu`` rule reads. On macOS neither says so
  (Apple's GPU is reached through MPS, which the report does not show), nor where an Intel XPU
  is available. A report that CUDA *is* available gives no fact: the job may still put its
  tensors on the CPU;
- ``app.gpu_name`` (on ``gpu0``, ``gpu1`` …): each GPU listed (``nvidia-smi -L``'s names, a
  ROCm build's device 0, ``get_device_name(0)``), which answers the gpu-class intake question;
- ``app.gpu_devices``: how many GPUs the report lists (``GPU 0: …`` lines), or
  ``torch.cuda.device_count()``; one answers gpu-count = one. Several on the machine need not
  mean the job uses them, so they answer nothing. A ROCm report names device 0 only: no count;
- for the record, on ``host``: ``torch.version``, ``torch.cuda_build`` (the CUDA it was built
  with), ``torch.rocm_build``, ``torch.cpu_only`` (whether the build has no GPU backend),
  ``torch.cuda_available``, ``torch.driver_version`` (NVIDIA's).

Run locally or over SSH as ``python3 -m torch.utils.collect_env``, which reads the Python the
shell finds first; give another after ``--`` (``casefile probe C torch-env -- ~/venv/bin/python
-m torch.utils.collect_env``) where the job runs in its own environment.
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._software import PYTORCH
from casefile_probes.torch_env_printed import read_printed, shows_printed

__all__ = ["PROBE", "looks_like_torch_env", "parse_torch_env"]

#: the report's lines read, by their label; a label may follow a banner on its line
_FIELDS = (
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "ROCM used to build PyTorch",
    "OS",
    "Python platform",
    "Is CUDA available",
    "GPU models and configuration",
    "Nvidia driver version",
    "cuDNN version",
    "Is XPU available",
)
_FIELD = re.compile(
    r"(?:^\s{0,8}|\s{2})(?P<key>" + "|".join(re.escape(k) for k in _FIELDS) + r"):"
    r"[ \t]{0,8}(?P<value>[^\r\n]{0,300}?)[ \t]*$"
)
#: labels only collect_env prints, at a line's start (an issue template's checklist has
#: "- PyTorch Version (e.g., 1.0):", not these)
_REPORT_LINE = re.compile(
    r"(?m)^[ \t]{0,8}(?:Is debug build|CUDA used to build PyTorch|ROCM used to build PyTorch"
    r"|Is CUDA available|GPU models and configuration|Nvidia driver version|cuDNN version"
    r"|PyTorch version|CUDA runtime version|HIP runtime version|Is XNNPACK available):"
)
_GPU_LINE = re.compile(r"^\s{0,8}GPU (?P<index>\d{1,3}): (?P<name>\S[^\r\n]{0,120}?)\s*$")
_UUID = re.compile(r"\s*\(UUID: [^)]{0,80}\)")
_NOT_SAID = {"", "n/a", "none", "no cuda", "could not collect", "not available", "unknown"}
_YES = {"true": True, "yes": True, "false": False, "no": False}
_VERSION = re.compile(r"^\d{1,3}\.\d{1,3}[\w.+-]{0,60}$")
_MAC = re.compile(r"(?i)\bmac ?os|\bosx\b|^macOS-|darwin")
#: a value line a one-liner prints bare (``2.4.0+cpu``, ``None``, ``False``, ``1``)
_BARE = re.compile(r"^\s{0,8}(?:\d{1,3}\.\d{1,3}[\w.+-]{0,60}|None|True|False|\d{1,3})\s*$")


def _said(value: str | None) -> str | None:
    """The value where the report states one (not ``N/A``, ``Could not collect`` …)."""
    if value is None or value.strip().lower() in _NOT_SAID:
        return None
    return value.strip()


def _fields(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """The report's labelled values (the first of each label) and the GPUs it lists."""
    found: dict[str, str] = {}
    gpus: list[str] = []
    for index, line in enumerate(lines):
        match = _FIELD.search(line)
        if match is None or match.group("key") in found:
            continue
        key, value = match.group("key"), match.group("value")
        found[key] = value
        if key == "GPU models and configuration" and not value.strip():
            for following in lines[index + 1 : index + 1 + 64]:
                gpu = _GPU_LINE.match(following)
                if gpu is None:
                    break
                gpus.append(following)
        elif key == "GPU models and configuration":
            gpus.append(value)
    return found, gpus


def _gpu_names(gpus: list[str]) -> tuple[dict[str, str], int | None]:
    """Each GPU's name by subject, and the count where the list is ``GPU N:`` lines."""
    names: dict[str, str] = {}
    numbered = 0
    for entry in gpus:
        gpu = _GPU_LINE.match(entry)
        if gpu is not None:
            numbered += 1
            names.setdefault(f"gpu{int(gpu.group('index'))}", _UUID.sub("", gpu.group("name")))
        elif _said(entry) is not None and len(gpus) == 1:
            names["gpu0"] = _UUID.sub("", entry.strip())  # a ROCm build's device 0
    return names, numbered or None


def _available(value: str | None) -> bool | None:
    return None if value is None else _YES.get(value.strip().lower())


def parse_torch_env(text: str) -> ParseResult:
    """The facts of a collect_env report, or of a one-liner check that shows what it printed
    (see the module's docstring)."""
    if not isinstance(text, str):
        return ParseResult.unparsed("no text to read")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    fields, gpus = _fields(lines)
    printed = read_printed(text) if "torch" in text else None
    values = printed.values if printed is not None else {}
    result = ParseResult(problems=list(printed.problems) if printed is not None else [])

    version = _said(fields.get("PyTorch version")) or values.get("version")
    if version is not None and _VERSION.match(version) is None:
        result.problems.append(f"PyTorch version {version[:60]!r} is not a version; not read")
        version = None
    cuda_line = fields.get("CUDA used to build PyTorch")
    cuda_build = _said(cuda_line) or _said(values.get("cuda"))
    rocm_build = _said(fields.get("ROCM used to build PyTorch")) or _said(values.get("hip"))
    available = _available(fields.get("Is CUDA available"))
    if available is None:
        available = _available(values.get("available"))
    xpu = _available(fields.get("Is XPU available")) is True or "+xpu" in (version or "")
    mac = any(_MAC.search(fields.get(key, "")) for key in ("OS", "Python platform"))

    cpu_only: bool | None = None
    if cuda_build is not None or rocm_build is not None or xpu:
        cpu_only = False
    elif version is not None and re.search(r"\+cpu\b", version):
        cpu_only = True
    elif cuda_line is not None and cuda_line.strip() == "None" and not mac:
        cpu_only = True  # collect_env's own word for a build without CUDA
    elif "cuda" in values and values["cuda"] == "None" and version and "+" in version:
        cpu_only = not re.search(r"\+(?:cu|rocm|xpu)", version)

    result.add("torch.version", version)
    result.add("torch.cuda_build", cuda_build)
    result.add("torch.rocm_build", rocm_build)
    result.add("torch.cpu_only", cpu_only)
    result.add("torch.cuda_available", available)
    result.add("torch.driver_version", _said(fields.get("Nvidia driver version")))
    if cpu_only or (available is False and not mac and not xpu):
        result.add("app.device_cpu", True)
    names, count = _gpu_names(gpus)
    if "name" in values and not names:
        names["gpu0"] = values["name"]
    for subject, name in names.items():
        result.add("app.gpu_name", name, subject)
    if count is None and "count" in values and values["count"] != "0":
        count = int(values["count"])
    result.add("app.gpu_devices", count)

    if not result.facts:
        if result.problems:
            return ParseResult.unparsed(result.problems[0])
        if _bare(lines):
            return ParseResult.unparsed(
                "bare values with no command line to say what printed them; give the command "
                "after -- (python -c '…') to have them read"
            )
        return ParseResult.unparsed(
            "no collect_env report lines (PyTorch version:, Is CUDA available: …) and no "
            "torch check that shows what it printed"
        )
    return result


def _bare(lines: list[str]) -> bool:
    """A one-liner's output alone: a few value lines, the first a version."""
    values = [line for line in lines if line.strip()]
    return (
        0 < len(values) <= 8
        and _VERSION.match(values[0].strip()) is not None
        and all(_BARE.match(line) for line in values)
    )


def looks_like_torch_env(text: str) -> bool:
    """Whether a text holds a collect_env report (three of its own labels at line starts), a
    torch check that shows what it printed, or a one-liner's bare values (read only with the
    command line the run was recorded with)."""
    try:
        if not isinstance(text, str):
            return False
        labels = {match.group(0).strip() for match in _REPORT_LINE.finditer(text)}
        if len(labels) >= 3:
            return True
        if _bare(text.splitlines()):
            return True
        return shows_printed(text)
    except Exception:  # a guess must never break the caller
        return False


PROBE = Probe(
    name="torch-env",
    summary=(
        "PyTorch's environment report (collect_env) or a torch one-liner: a CPU-only build or "
        "CUDA unavailable, the GPUs listed, torch/CUDA/driver versions"
    ),
    parse=parse_torch_env,
    argv=("python3", "-m", "torch.utils.collect_env"),
    cost="instant",
    # it says a build cannot use the GPU, never that the job does: ranked as a next step it
    # would be credited with clearing the GPU left unused, which it cannot do
    offered=False,
    timeout_s=120.0,
    facts=(
        "app.device_cpu",
        "app.gpu_name",
        "app.gpu_devices",
        "torch.version",
        "torch.cuda_build",
        "torch.rocm_build",
        "torch.cpu_only",
        "torch.cuda_available",
        "torch.driver_version",
    ),
    needs_load=False,
    recognises=looks_like_torch_env,
    only_for=PYTORCH,
    extra={"argv_note": "the Python the job runs: -- /path/to/python -m torch.utils.collect_env"},
)
