"""casefile: an event-sourced investigation log and hypothesis tracker."""

__version__ = "0.1.0"
