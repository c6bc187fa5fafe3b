"""Dreamdesk: see, audit and repair what an AI assistant remembers.

The installed distribution has this one import namespace: dreamdesk.engine (Qt-free),
dreamdesk.gui (PySide6) and dreamdesk.resources (the demo, icons, desktop files). The repository
keeps engine/, gui/ and resources/ at its top (pyproject.toml maps them in here); in a source
checkout, run without installing, this package finds them beside its own folder."""

from pathlib import Path

_checkout = Path(__file__).resolve().parent.parent
if not (Path(__file__).parent / "engine").is_dir() and (_checkout / "engine" / "__init__.py").is_file() \
        and (_checkout / "gui" / "app" / "launcher.py").is_file():
    __path__.append(str(_checkout))   # noqa: F821 (a package's __path__): dreamdesk.engine -> engine/
