"""What answering intake recorded, as data the front ends word (the command line, the TUI's
intake dialog and the agent interface each say it their own way)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from casefile.app.experiment_rereading import Reread
from casefile.app.rescoping import Rescoped

__all__ = ["IntakeOutcome"]


@dataclass(frozen=True)
class IntakeOutcome:
    """What answering recorded: (question, answer, where it came from) per evidence, and the
    questions whose answer was already in force or already counted by a probe's rule."""

    recorded: tuple[tuple[str, str, str, str], ...]  # question, answer, evidence id, source
    unchanged: tuple[str, ...]
    counted_elsewhere: tuple[tuple[str, str], ...]  # question, evidence id
    #: answers in force that a recorded one replaced: question → (old answer, its seq)
    replaced: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    #: answers recorded because another answer settles them: question → what it rests on
    implied: Mapping[str, str] = field(default_factory=dict)
    #: implied answers withdrawn because what they rested on changed: question → (the answer
    #: withdrawn, what it rested on, the evidence that withdrew it)
    withdrawn: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    #: answers given to questions that do not apply, not recorded: question → the answer in
    #: force that makes it moot (``gpu-count = one (seq 27)``: scaling means nothing on one GPU)
    moot: Mapping[str, str] = field(default_factory=dict)
    #: answers in force withdrawn because an answer given now makes their question moot:
    #: question → (the answer withdrawn, the answer that makes it moot, the withdrawing evidence)
    mooted: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    #: a person's answers withdrawn as moot, recorded again because their question applies
    #: again: question → which answer it was and what had made it moot
    restored: Mapping[str, str] = field(default_factory=dict)
    #: rule readings withdrawn or restored because the answers changed what their rules apply
    #: to (:mod:`casefile.domain.reading_scope`)
    readings: tuple[Rescoped, ...] = ()
    #: A/Bs read again because the answers changed which rule reads them, or how
    #: (:mod:`casefile.app.experiment_rereading`)
    experiments: tuple[Reread, ...] = ()

    @property
    def brought_in_step(self) -> tuple[Rescoped | Reread, ...]:
        return (*self.readings, *self.experiments)
