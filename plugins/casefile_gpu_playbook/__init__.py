"""The GPU throughput playbook: what limits a GPU inference or training job, on one GPU or many.

The question, the hypothesis tree, the rules, the intake questions and the experiment rules
are data in TOML, so a reviewer can read every prior and likelihood beside its rationale. This
module only loads the versions and registers them (entry points ``casefile.playbooks``:
``gpu-throughput`` is the newest, ``gpu-throughput@1`` and ``@2`` the earlier ones), as a
third party would.
Every version stays installed: a case opened from version 1 keeps version 1's rules.
"""

from __future__ import annotations

from importlib.resources import files

from casefile.domain.playbook import Playbook, load_playbook


def _load(source: str) -> Playbook:
    return load_playbook(files(__package__).joinpath(source).read_text(encoding="utf-8"), source)


#: version 1: the seed story's tree (the reference case was opened from it)
PLAYBOOK_V1: Playbook = _load("gpu_throughput.toml")
#: version 2: the failure classes of public investigations, intake, experiments, expected rates
PLAYBOOK_V2: Playbook = _load("gpu_throughput_v2.toml")
#: version 3: one GPU or many — requirements, single-GPU and host-side classes and their rules
PLAYBOOK_V3: Playbook = _load("gpu_throughput_v3.toml")
#: the newest version, what ``--playbook gpu-throughput`` opens
PLAYBOOK: Playbook = PLAYBOOK_V3
