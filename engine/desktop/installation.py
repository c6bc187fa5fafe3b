"""This installation of Dreamdesk: its version, the Python it runs on, and the places on this
machine where it keeps its own things (the log, its state, its caches, the demo copy). Help →
About and `dreamdesk --version` show these; the window adds what only Qt knows (Qt's version,
the settings file)."""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import __version__

NAME = "dreamdesk"       # the distribution's name, and the app name of its platform folders


@dataclass(frozen=True)
class Place:
    what: str            # "Log file", "State folder", …
    path: Path

    @property
    def note(self) -> str:
        """What a person should know beside the path: that it is not there yet."""
        return "" if self.path.exists() else "not created yet"


def installed_version() -> str | None:
    """The version pip installed (None: Dreamdesk runs from a source folder nobody installed)."""
    from importlib import metadata     # only when asked: the CLI's other commands never need it
    try:
        return metadata.version(NAME)
    except metadata.PackageNotFoundError:
        return None


def version_text() -> str:
    v = installed_version()
    if v:
        return v
    if getattr(sys, "frozen", False):       # a PyInstaller build carries no package metadata
        return f"{__version__} (a bundled build)"
    source = Path(__file__).resolve().parents[2]      # engine/desktop/ -> the checkout
    return f"{__version__}, not installed as a package (running from {source})"


def python_text() -> str:
    return f"{platform.python_version()} ({platform.python_implementation()}, {sys.executable})"


def data_dir() -> Path:
    """The user data folder: the demo copy and rescued edits live there."""
    from platformdirs import user_data_dir
    return Path(user_data_dir(NAME, NAME))


def places(demo: str | None = None) -> list[Place]:
    """Where Dreamdesk keeps its things; `demo`: the demo copy the app remembers, if any."""
    from ..core import logs, state
    from ..versions.commit_cache import cache_root
    return [Place("Log file", logs.current_path() or logs.log_path()),
            Place("State folder", state.state_root()),
            Place("Cache folder", cache_root()),
            Place("Demo copy", Path(demo) if demo else data_dir() / "demo")]
