"""The application service: the one place that uses domain, storage, probes and plugins."""
