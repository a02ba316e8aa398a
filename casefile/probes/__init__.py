"""Probes (what to run and how to parse it) and runners (where it runs)."""
