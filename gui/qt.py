"""The one place Qt is imported from (so a binding change touches one file).

`from .qt import QLabel` finds the name in QtCore, QtGui or QtWidgets when a module first asks
for it: PySide6 builds a class (and its enums) at its first lookup, a few ms each and ~0.2 s
for all the app uses, so the start pays only for what the first window needs."""

import sys

import PySide6

# A half-uninstalled PySide6 (its __init__.py is shared by several wheels) imports as a bare
# namespace package: Qt's plugin paths are never set up and failures come later and stranger.
if not hasattr(PySide6, "__version__"):
    raise ImportError("PySide6 is installed incompletely (PySide6/__init__.py is missing); "
                      "reinstall it: pip install --force-reinstall 'pyside6>=6.8,<6.12'")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402

_MODULES = (QtCore, QtGui, QtWidgets)


def __getattr__(name: str):
    for module in _MODULES:
        value = getattr(module, name, None)
        if value is not None:
            globals()[name] = value          # looked up once
            return value
    if name == "isValid":                    # a late reader-thread answer for a closed dialog
        from shiboken6 import isValid
        globals()[name] = isValid
        return isValid
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _no_source_scan() -> None:
    """PySide6 reads the whole source of every module imported after it (kept in linecache for
    the life of the process) only to learn whether it mentions "PySide6", for `from __feature__
    import …`, which Dreamdesk never uses: about 13 MiB and 50 ms at start. Answered by name
    instead; a PySide6 without this hook is left as it is."""
    feature = sys.modules.get("PySide6.support.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = lambda module: getattr(module, "__name__", "").startswith(("PySide6", "dreamdesk.gui"))


_no_source_scan()
