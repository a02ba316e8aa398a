"""The reasoning engine: hypothesis trees, evidence, confidences and the views derived from them.

``project(events)`` folds a case's events into a :class:`Projection`: the state of every
question, hypothesis and piece of evidence, a networkx graph linking them to the observations
and probe runs they came from, and the trajectory of confidences after every event.
"""

from casefile.domain.beliefs.projection import Projection, Step, project

__all__ = ["Projection", "Step", "project"]
