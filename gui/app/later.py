"""Imports deferred to first use. The main window needs most of the engine (the scheduler, the
watch, pins, the workspace reader, and what they import: markdown-it, the Consolidator, …) only
once a workspace is open, and importing it all costs more than painting the window: so the
window paints first. Python's import locks make a first use on a worker thread safe."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable


class LaterModule:
    """Stands for the module `name`, imported at the first attribute looked up on it."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(import_module(self._name), attr)


def later(module: str, name: str) -> Callable[..., Any]:
    """Stands for the callable `module.name` (a class or a function), imported at its first call."""

    def call(*args, **kwargs):
        return getattr(import_module(module), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call
