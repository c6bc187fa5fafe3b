"""Where Dreamdesk's data files are: the package dreamdesk.resources, found by importlib.resources
wherever Dreamdesk runs from (a wheel, an editable install, a checkout, the PyInstaller bundle)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resources_dir() -> Path:
    """The folder of dreamdesk.resources. The demo is copied from it as a tree, so it must be a
    real folder: a zipped install (never made by pip or the bundle) is refused in words."""
    where = files("dreamdesk.resources")
    if not isinstance(where, Path):
        raise FileNotFoundError(f"Dreamdesk's resources are not a folder on disk ({where}); "
                                "install Dreamdesk unzipped (pip install dreamdesk)")
    return where


def resource(*parts: str) -> Path:
    """A file or folder under the resources, e.g. resource("icons", "dreamdesk.png")."""
    return resources_dir().joinpath(*parts)
