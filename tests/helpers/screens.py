"""Screenshots of real widgets: to docs/screenshots when DREAMDESK_SCREENSHOTS=1 (to refresh the
committed images), else to a folder under the system temp directory, so a normal run never
changes tracked files."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHOTS = (REPO / "docs" / "screenshots" if os.environ.get("DREAMDESK_SCREENSHOTS") == "1"
         else Path(tempfile.gettempdir()) / "dreamdesk-screenshots")


def grab(widget, name: str) -> Path:
    """Save what the widget shows now (its pending layouts first) as SHOTS/name."""
    from PySide6.QtWidgets import QApplication
    SHOTS.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()        # pending layouts first (the status bar's counters after a read)
    path = SHOTS / name
    assert widget.grab().save(str(path))
    return path
