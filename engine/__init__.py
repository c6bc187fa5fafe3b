"""Dreamdesk engine: the Qt-free model of an assistant's memory workspace.

Everything that reads or writes the workspace lives here; the GUI is one client of it and
the `dreamdesk` CLI is another. Never import Qt from this package.
"""

__version__ = "0.1.0"

import logging as _logging

# The engine logs for the app's log file (engine/core/logs.py). Where nobody set logging up (the CLI,
# a script) its records go nowhere: the CLI says what went wrong in its own one line.
_logging.getLogger(__name__).addHandler(_logging.NullHandler())
