"""The pure domain layer: events, facts, hypotheses and the Bayesian arithmetic.

Nothing in this package imports a UI, database, SSH or NVML library; ``tests/test_layers.py``
checks that in a fresh interpreter.
"""
