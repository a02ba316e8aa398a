"""casefile for AI agents: a Model Context Protocol server over the application service.

Its tools come from the action table (:mod:`casefile.actions`), its answers from the service's
typed views; it reaches the core through nothing else (an import contract holds that). Needs
the optional ``mcp`` extra: ``pip install 'casefile[mcp]'``.
"""
