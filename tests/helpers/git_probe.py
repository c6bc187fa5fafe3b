"""What a call opens and which programs it starts, from Python's own audit events."""

from __future__ import annotations

import os
import sys


_SEEN: list | None = None       # what the audit hook records while a list is set


def _audit(event: str, args: tuple) -> None:
    if _SEEN is not None and event in ("open", "subprocess.Popen"):
        _SEEN.append((event, args[0] if event == "open" else args[1]))


sys.addaudithook(_audit)        # every file opened, every process started (once: a module is imported once)


def watched(fn):
    """fn's result, the files it opened and the programs it started."""
    global _SEEN
    _SEEN = []
    try:
        result = fn()
        seen = _SEEN
    finally:
        _SEEN = None
    # (a number: a pipe to a process opened as a file; os.devnull: a process's stdin)
    opened = [str(a) for e, a in seen if e == "open" and not isinstance(a, int) and str(a) != os.devnull]
    return result, opened, [_git_command(a) for e, a in seen if e == "subprocess.Popen"]


def _git_command(argv) -> str:
    """The git subcommand a process ran (after the -c/--git-dir options)."""
    args = [str(a) for a in argv]
    i = 1
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "-c" else 1
    return args[i] if i < len(args) else args[-1]
