"""The GPU throughput playbook: what limits a multi-GPU inference or training job.

The question, the hypothesis tree and the rules are data in ``gpu_throughput.toml``, so a
reviewer can read every prior and likelihood beside its rationale. This module only loads it and
registers it (entry point ``casefile.playbooks: gpu-throughput``), as a third party would.
"""

from __future__ import annotations

from importlib.resources import files

from casefile.domain.playbook import Playbook, load_playbook

SOURCE = "gpu_throughput.toml"

PLAYBOOK: Playbook = load_playbook(
    files(__package__).joinpath(SOURCE).read_text(encoding="utf-8"), source=SOURCE
)
