"""A case's ``--env`` entries as the domain reads them: by what a key names, not how it is typed.

People write the same key many ways: ``--env gpus=…``, ``GPUs=…``, ``gpu=…``,
``Software=…``, ``after_upgrade=…``. Read by exact spelling, every spelling but one answered
nothing, silently: a capitalised ``Software`` lost the probe scopes, a singular ``gpu`` lost the
GPU count and class. So every reader looks a key up by its form (:func:`key_form`): case,
separators (``-``, ``_``, spaces, dots) and a plural ``s`` aside. The entries themselves are
kept as typed; only the reading is forgiving.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_SEPARATORS = re.compile(r"[-_.\s]+")
#: ``--env`` keys under which a case names its GPUs ("GPU", "gpu" and "GPUs" too, by form)
GPU_ENVIRONMENT = ("gpus", "gpu_model")
#: ``--env`` keys under which a case names the machine its GPUs sit in, GPUs included
#: (``platform=Jetson AGX Orin devkit``, ``board=…``): what a probe bound to hardware reads
MACHINE_ENVIRONMENT = (
    *GPU_ENVIRONMENT,
    "platform",
    "hardware",
    "machine",
    "board",
    "module",
    "device",
    "system",
)
#: keys this short keep a final "s" (``os`` is not the plural of ``o``)
_SHORTEST_PLURAL = 4


def key_form(key: str) -> str:
    """What a key names, however it is written: lower case, words joined by ``-``, a plural
    ``s`` dropped (``GPUs`` → ``gpu``, ``after_upgrade`` → ``after-upgrade``)."""
    form = _SEPARATORS.sub("-", key.strip().lower()).strip("-")
    if len(form) >= _SHORTEST_PLURAL and form.endswith("s") and not form.endswith("ss"):
        form = form[:-1]
    return form


def entry(environment: Mapping[str, str], key: str) -> tuple[str, str] | None:
    """The entry (key as typed, value) that ``key`` names: the exact spelling first, else the
    first entry, in the case's order, whose key has the same form."""
    if key in environment:
        return key, environment[key]
    form = key_form(key)
    for typed, value in environment.items():
        if key_form(typed) == form:
            return typed, value
    return None


def value(environment: Mapping[str, str], key: str) -> str | None:
    """The value of the entry ``key`` names (see :func:`entry`), or ``None``."""
    found = entry(environment, key)
    return None if found is None else found[1]


def values(environment: Mapping[str, str], keys: Iterable[str]) -> tuple[str, ...]:
    """The values of every entry any of ``keys`` names, each entry once, in the case's order."""
    forms = {key_form(key) for key in keys}
    return tuple(v for k, v in environment.items() if key_form(k) in forms)
