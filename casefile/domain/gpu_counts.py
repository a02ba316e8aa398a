"""A change of how many GPUs a job runs on, read from the change's words: "8 GPUs -> 2 GPUs",
"8x A100 -> 4x A100", "from 8 GPUs to 4", "on 2 GPUs of the DGX-1 instead of all 8".

The commonest A/B of a multi-GPU slowdown is the same job on fewer GPUs, or on more: whether
it scales. A rule's pattern can say that a change names a GPU count on both sides, not which
side holds more, and the two ways say opposite things: fewer GPUs faster says the traffic
between them was the cost; more GPUs faster, the work inside each. So the counts are read
here, and a rule that reads such changes (``gpu_counts = true`` in TOML: fewer-gpus) takes a
rise as its own A/B run backwards (``ExperimentRule.undoes``).

Only counts of GPUs are read: a number before "GPUs", "cards" or a GPU's name ("8x A100",
"2 RTX 3090"), on one side at least and a bare number on the other. A batch, a version or a
parallel size beside a GPU count ("batch 8 -> 16 on 4 GPUs") is no change of count.
"""

from __future__ import annotations

import re

__all__ = ["gpu_count_change"]

#: what a GPU count counts: GPUs, cards, or GPUs by name ("8x A100", "2 RTX 3090")
_GPU = (
    r"(?:x\s*)?(?:GPUs?\b|cards?\b|(?:NVIDIA\s+|GeForce\s+)?"
    r"(?:(?:RTX|GTX|TITAN|Tesla|Quadro)(?:\s+(?:PRO\s+)?[A-Z]?[0-9]{2,4}(?:\s*(?:Ti|SUPER))?)?"
    r"|[A-Z]{1,3}[0-9]{2,4})\b)"
)
#: a GPU named before its count ("H100 x8", "RTX 3090 ×2")
_NAMED = r"(?:GPUs?|[A-Z]{1,3}[0-9]{2,4}|(?:RTX|GTX)\s*[0-9]{4}(?:\s*Ti)?)"
_N = r"([0-9]{1,3})"
_COUNT = rf"\b{_N}\s*{_GPU}"
#: words that may stand between an arrow and the count after it ("-> on 2 GPUs")
_LEAD = r"(?:(?:on|to|with|using|only|all|just)\s+){0,2}"
#: (before, after) in each form's groups
_FORWARD = tuple(
    re.compile(form, re.IGNORECASE)
    for form in (
        # 8 GPUs -> 2 GPUs; 8x A100 (NVLink) -> 4x A100
        rf"{_COUNT}[^>→,;=0-9]{{0,40}}?(?:->|→)\s*{_LEAD}{_N}\s*{_GPU}",
        # the whole change: "8 GPUs -> 2"
        rf"^\W*(?:(?:on|with|using)\s+)?{_COUNT}\s*(?:->|→)\s*{_N}\s*\W*$",
        # 8 -> 2 GPUs, at the start or after "on", "with" …
        rf"(?:^\W*|\b(?:all|on|with|using)\s+){_N}\s*(?:->|→)\s*{_LEAD}{_N}\s*{_GPU}",
        # from 8 GPUs to 4; from 8 to 4 GPUs
        rf"\bfrom\s+{_COUNT}\s+to\s+{_LEAD}{_N}\b",
        rf"\bfrom\s+{_N}\s+to\s+{_LEAD}{_N}\s*{_GPU}",
        # H100 x8 -> H100 x4; GPU x8 -> x2
        rf"\b{_NAMED}\s*[x×]\s*{_N}\b[^>→,;=]{{0,20}}?(?:->|→)\s*(?:{_NAMED}\s*)?[x×]\s*{_N}\b",
    )
)
#: (after, before): "on 2 GPUs of the DGX-1 instead of all 8", the new count first
_INSTEAD = re.compile(
    rf"{_COUNT}[^,;>→]{{0,40}}?\binstead\s+of\s+(?:all\s+|the\s+)?{_N}\b(?!\s*(?:GB|MB|%))",
    re.IGNORECASE,
)


def gpu_count_change(change: str) -> tuple[int, int] | None:
    """The GPU counts before and after ``change``, where it changes how many GPUs the job runs
    on; None where it names no such change (or the same count on both sides)."""
    text = " ".join(change.split())
    for form in _FORWARD:
        found = form.search(text)
        if found is not None:
            return _changed(int(found.group(1)), int(found.group(2)))
    found = _INSTEAD.search(text)
    if found is not None:
        return _changed(int(found.group(2)), int(found.group(1)))
    return None


def _changed(before: int, after: int) -> tuple[int, int] | None:
    return None if before == after or 0 in (before, after) else (before, after)
