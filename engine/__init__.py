"""Dreamdesk engine: the Qt-free model of an assistant's memory workspace.

Everything that reads or writes the workspace lives here; the GUI is one client of it and
the `dreamdesk` CLI is another. Never import Qt from this package.
"""

__version__ = "0.1.0"
