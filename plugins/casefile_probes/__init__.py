"""casefile's built-in probes, registered through entry points like any third party's."""
