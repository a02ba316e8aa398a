"""Past terminal sessions read into proposed case events (``casefile ingest``), and live ones
recorded in a pty (``casefile record``).

A layer beside :mod:`casefile.probes`, below the application: nothing here imports the
application, the store or a front end. :mod:`.formats` reads a typescript, an asciinema cast
(:mod:`.asciicast`), a shell log or a Markdown/chat transcript into commands and prose, the
steps and the terminal-stream splitting they share in :mod:`.stream`; :mod:`.screen_text`
renders what the terminal showed; :mod:`.commands` tells which probe a command line ran;
:mod:`.secrets` scrubs what must not be sealed; :mod:`.proposal` builds the runs and notes a
front end shows for review; :mod:`.live` runs a shell in a pty with the prompt marks
``casefile record`` trusts. Turning an accepted proposal into events is the application's job
(:mod:`casefile.app.ingest`).
"""

#: The transcript formats :mod:`.formats` reads (``auto`` detects one of them): here, where
#: the command line and the TUI's dialog can name them without importing the readers.
FORMATS = ("typescript", "asciicast", "shell-log", "markdown")
