"""A change of how many GPUs a job runs on, read from the change's words: "8 GPUs -> 2 GPUs",
"8x A100 80GB -> 4x A100 80GB", "from 8 GPUs to 4", "on 2 GPUs of the DGX-1 instead of all
8", "using 4 of the 8 GPUs", "--nproc_per_node 8 -> 4", "8卡 -> 4卡".

The commonest A/B of a multi-GPU slowdown is the same job on fewer GPUs, or on more: whether
it scales. A rule's pattern can say that a change names a GPU count on both sides, not which
side holds more, and the two ways say opposite things: fewer GPUs faster says the traffic
between them was the cost; more GPUs faster, the work inside each. So the counts are read
here, and a rule that reads such changes (``gpu_counts = true`` in TOML: fewer-gpus) takes a
rise as its own A/B run backwards (``ExperimentRule.undoes``).

Only counts of GPUs are read: a number before "GPUs", "cards" or a GPU's name ("8x A100",
"2 RTX 3090", "8 A100s"), or after one ("H100 x8"), on one side at least and a bare number
on the other, a part of the GPUs where it is the run itself ("using 4 of the 8 GPUs", "4 of the
DGX A100's GPUs instead of all 8"; not "power capped 4 of the 8 GPUs"), or a launcher's GPU
count. Not read: a batch, a power limit, a thread count or
a version beside a GPU count ("4 GPUs at batch 16 instead of 32", "2 GPUs at 300 W instead of
350"); a link's width ("A100 x16 -> x8", any change that names PCIe, lanes or a slot); GPUs
per node (the job's total may not change); "cards" in a change about network cards; a GPU's
index ("GPU 2 of 8"). A tensor-parallel size is a count where an inference server's flag
names it ("--tensor-parallel-size 2 -> 1", "-tp 4 -> 2", SGLang's "--tp-size"), since a
server's tensor-parallel size is its GPU count; a training launcher's ("tp 4 -> 2",
"--tensor-model-parallel-size") is not, nor any beside a data- or pipeline-parallel size or a
world size: there the GPUs stay and the layout changes.

:func:`only_gpu_count` says whether the count is all a change changes, so that it is read as
a change of count before a rule that merely meets a name in it ("the same UCX-Py benchmark on
2 GPUs instead of all 8" changes no transport); a change that also sets something else ("4
GPUs -> 8 GPUs with NCCL_P2P_DISABLE=1") goes to the rules in their order.
"""

from __future__ import annotations

import re

__all__ = ["gpu_count_change", "only_gpu_count"]

#: a GPU by name: a brand and model ("RTX 3090 Ti", "TITAN"), a datacenter part ("A100", "T4",
#: "L40S", "MI300X", "GB200"), or a GeForce model number alone ("4090"); a plural "s" allowed
_NAME = (
    r"(?:NVIDIA\s+|GeForce\s+|AMD\s+)?"
    r"(?:(?:RTX|GTX|TITAN|Tesla|Quadro)(?:\s+(?:PRO\s+)?[A-Z]?[0-9]{2,4}(?:\s*(?:Ti|SUPER))?)?"
    r"|[A-Z]{1,3}[0-9]{1,4}[A-Z]?|[1-5]0[5-9]0(?:\s*Ti)?)s?"
)
#: what a GPU count counts: GPUs, cards (卡 in Chinese), or GPUs by name
_GPU = rf"(?:x\s*)?(?:GPUs?\b|cards?\b|(?:张|块)?卡|{_NAME}\b)"
_N = r"([0-9]{1,3})"
_COUNT = rf"(?<![\w.]){_N}\s*{_GPU}"
#: what may stand between a count and the arrow: no other number, except inside a name, a
#: memory size or an aside ("DGX-1", "SXM4", "80GB", "(2 nodes)")
_BETWEEN = r"(?:[^>→,;=\d()]|(?<=[A-Za-z-])\d|\d+\s?[GT]B\b|\([^()]{0,30}\)){0,40}?"
#: the same, with no size: before "instead of" a size's figure would be read as the old count
_BEFORE_INSTEAD = r"(?:[^>→,;=\d]|(?<=[A-Za-z-])\d){0,40}?"
#: words that may stand between an arrow and the count after it ("-> on 2 GPUs")
_LEAD = r"(?:(?:on|to|with|using|only|all|just)\s+){0,2}"
_ARROW = r"(?:->|→)"
#: a launcher's count of GPUs or processes a GPU each
_FLAG = (
    r"(?:--?gpus|--num[-_]gpus|num_gpus|n_?gpus?|ngpus?|--nproc[-_]per[-_]node|nproc_per_node"
    r"|--nproc|CUDA_DEVICE_COUNT|GPUs?)"
)
#: (before, after) in each form's groups
_FORWARD = tuple(
    re.compile(form, re.IGNORECASE)
    for form in (
        # 8 GPUs -> 2 GPUs; 8x A100 80GB (NVLink) -> 4x A100 80GB; 8卡 -> 4卡
        rf"{_COUNT}{_BETWEEN}{_ARROW}\s*{_LEAD}{_N}\s*{_GPU}",
        # the whole change: "8 GPUs -> 2"
        rf"^\W*(?:(?:on|with|using)\s+)?{_COUNT}\s*{_ARROW}\s*{_N}\s*\W*$",
        # 8 -> 2 GPUs, at the start or after "on", "with" …
        rf"(?:^\W*|\b(?:all|on|with|using)\s+){_N}\s*{_ARROW}\s*{_LEAD}{_N}\s*{_GPU}",
        # from 8 GPUs to 4; from 8 to 4 GPUs
        rf"\bfrom\s+{_COUNT}\s+to\s+{_LEAD}{_N}\b(?!\s*(?!GPUs?\b|cards?\b)[A-Za-z])",
        rf"\bfrom\s+{_N}\s+to\s+{_LEAD}{_N}\s*{_GPU}",
        # H100 x8 -> H100 x4 (a count after a name; x16 is a link's width, not read)
        rf"\b{_NAME}\s*[x×]\s*([1-9]|1[0-5]|[2-9][0-9])\b{_BETWEEN}{_ARROW}\s*(?:{_NAME}\s*)?"
        r"[x×]\s*([1-9]|1[0-5]|[2-9][0-9])\b",
        # --nproc_per_node 8 -> 4; num_gpus=8 -> num_gpus=2; GPUs: 8 -> 4
        rf"(?<![\w-]){_FLAG}\s*[:= ]\s*{_N}\s*{_ARROW}\s*(?:{_FLAG}\s*[:= ]\s*)?{_N}\b",
    )
)
#: an inference server's tensor-parallel size, which is its GPU count (vLLM's
#: --tensor-parallel-size and -tp, SGLang's --tp-size and --tp, tensor_parallel_size=, a
#: tp_size key): "--tensor-parallel-size 2 -> 1"; training launchers' "tp", "tensor parallel"
#: and --tensor-model-parallel-size are not read, since there the world size stays and the
#: layout changes
_TP_FLAG = r"(?:--tensor[-_]parallel[-_]size|tensor_parallel_size|--tp[-_]size|tp_size|--tp|-tp)"
_PARALLEL = (
    # --tensor-parallel-size 2 -> 1; tensor_parallel_size=4 -> tensor_parallel_size=2
    re.compile(
        rf"(?<![\w-]){_TP_FLAG}\s*[:= ]\s*{_N}\s*{_ARROW}\s*(?:{_TP_FLAG}\s*[:= ]\s*)?{_N}\b",
        re.IGNORECASE,
    ),
    # LLM(model=m, tensor_parallel_size=2) -> LLM(model=m, tensor_parallel_size=1)
    re.compile(
        rf"(?<![\w-]){_TP_FLAG}\s*[:= ]\s*{_N}\b[^>→]{{0,60}}?{_ARROW}[^>→]{{0,60}}?"
        rf"(?<![\w-]){_TP_FLAG}\s*[:= ]\s*{_N}\b",
        re.IGNORECASE,
    ),
)
#: another parallel size or the world size beside it: the GPUs may stay, the layout changes
#: (vLLM's -pp and -dp, Accelerate's dp_shard_size among them)
_OTHER_PARALLEL = re.compile(
    r"data[-_ ]?parallel|pipeline[-_ ]?parallel|context[-_ ]?parallel|expert[-_ ]?parallel"
    r"|\b[dpce]p[-_]?size|\bdp[-_](?:shard|replicate)|(?<![\w-])--?[dpce]p\b|world[-_ ]?size",
    re.IGNORECASE,
)
#: (after, before): "on 2 GPUs of the DGX-1 instead of all 8", the new count first; the old
#: one a number standing alone, not the first of a setting's or a size's ("8 lanes", "350 W")
_INSTEAD = re.compile(
    rf"{_COUNT}{_BEFORE_INSTEAD}\binstead\s+of\s+(?:all\s+|the\s+)?{_N}\b"
    r"(?!\s*(?!GPUs?\b|cards?\b|卡)[A-Za-z%])(?![.,][0-9])",
    re.IGNORECASE,
)
#: where a part of the GPUs is the run itself, not where a setting was made: at the change's
#: start, after "on", "using", "with" … alone or after "the same" and a name of up to three
#: words ("the same UCX-Py benchmark on 2 of the 8 GPUs"); "power capped 4 of the 8 GPUs",
#: "disabled NVLink on 2 of the 8 GPUs" and "card 3 of 4 GPUs" say which GPUs a setting or a
#: fault touched, not how many the job ran on
_PART_LEAD = (
    r"^\W*(?:the\s+same\s+[\w.-]+(?:\s+[\w.-]+){0,2}\s+)?"
    r"(?:(?:ran|run|runs|running|trained|served)\s+)?(?:(?:on|using|with|across|over)\s+)?"
    r"(?:only\s+|just\s+)?"
)
#: (whole, part): "4 of the 8 GPUs", "using 2 out of 8 A100s"; the part must be the smaller
_PART = re.compile(
    rf"{_PART_LEAD}{_N}\s+(?:out\s+)?of\s+(?:the\s+|all\s+|its\s+)?{_N}\s*{_GPU}",
    re.IGNORECASE,
)
#: (part, whole): "4 of the DGX A100's GPUs used instead of all 8", the whole named after
#: "instead of"; between them a machine's name ("DGX A100's"), no other number
_PART_INSTEAD = re.compile(
    rf"{_PART_LEAD}{_N}\s+(?:out\s+)?of\s+(?:the\s+|its\s+)?"
    r"(?:[^>→,;=\d]|(?<=[A-Za-z-])\d+){0,30}?\b(?:GPUs|cards)\b"
    rf"{_BEFORE_INSTEAD}\binstead\s+of\s+(?:all\s+|the\s+)?{_N}\b"
    r"(?!\s*(?!GPUs?\b|cards?\b|卡)[A-Za-z%])(?![.,][0-9])",
    re.IGNORECASE,
)
#: a change about a link, a slot or GPUs per node: its numbers are no job's GPU count
_NOT_A_COUNT = re.compile(
    r"\bPCIe\b|\blanes?\b|\bGen\s?[1-6]\b|\bslots?\b|\briser|bifurcat|\blink\b|\bwidth\b"
    r"|\bper[- ]node\b|/node\b|\bper host\b",
    re.IGNORECASE,
)
#: network cards: "cards" there are NICs
_NETWORK = re.compile(r"\bNICs?\b|\bnetwork\b|\bethernet\b|\bHCAs?\b|ConnectX|\bbond", re.I)


def gpu_count_change(change: str) -> tuple[int, int] | None:
    """The GPU counts before and after ``change``, where it changes how many GPUs the job runs
    on; None where it names no such change (or the same count on both sides)."""
    found = _found(change)
    return None if found is None else found[0]


def only_gpu_count(change: str) -> bool:
    """Whether a change of GPU count is all ``change`` changes: outside the counts, no other
    arrow or "instead of", no setting assigned and no other number standing alone. A flag
    without a value is not counted as a second change: it is as often the command's own
    ("--standalone", "--enable-nvlink") as one added beside the count."""
    found = _found(change)
    if found is None:
        return False
    _, (start, end), text = found
    rest = re.sub(r"\d+\s?[GT]B\b", "", f"{text[:start]} {text[end:]}")  # a size is no setting
    return not re.search(rf"{_ARROW}|\binstead\s+of\b|=|(?<![\w.-])\d", rest, re.IGNORECASE)


def _found(change: str) -> tuple[tuple[int, int], tuple[int, int], str] | None:
    """The counts (before, after), where they stand in the change, and the change as read."""
    text = " ".join(change.split())
    if _NOT_A_COUNT.search(text):
        return None
    for form in _FORWARD:
        found = form.search(text)
        if found is not None and _counts_gpus(found.group(0), text):
            counts = _changed(int(found.group(1)), int(found.group(2)))
            return None if counts is None else (counts, found.span(), text)
    for form in _PARALLEL:
        found = form.search(text)
        if found is not None and not _OTHER_PARALLEL.search(text):
            counts = _changed(int(found.group(1)), int(found.group(2)))
            return None if counts is None else (counts, found.span(), text)
    for form in (_PART_INSTEAD, _INSTEAD):
        found = form.search(text)
        if found is not None and _counts_gpus(found.group(0), text):
            counts = _changed(int(found.group(2)), int(found.group(1)))
            return None if counts is None else (counts, found.span(), text)
    found = _PART.search(text)
    # beside an arrow a part may stand on either side ("4 of 8 GPUs -> 8 of 8"): not read
    if found is not None and _counts_gpus(found.group(0), text) and not re.search(_ARROW, text):
        whole, part = int(found.group(2)), int(found.group(1))
        counts = _changed(whole, part) if part < whole else None
        return None if counts is None else (counts, found.span(), text)
    return None


def _counts_gpus(matched: str, text: str) -> bool:
    """Whether a match counts GPUs: "cards" in a change about network cards count NICs."""
    if not _NETWORK.search(text):
        return True
    return re.search(r"\bcards?\b", matched, re.IGNORECASE) is None


def _changed(before: int, after: int) -> tuple[int, int] | None:
    return None if before == after or 0 in (before, after) else (before, after)
