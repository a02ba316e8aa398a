"""The command line: one thin function per command over :class:`CaseService`."""
