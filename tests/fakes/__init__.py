"""Stand-ins for hardware and services, for tests that must run anywhere."""
