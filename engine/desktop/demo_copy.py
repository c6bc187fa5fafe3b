"""The user's private copy of the demo home (the shipped one is never modified), with its
recorded past: copied and built with git, without Qt, so the GUI runs it off its thread."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path


def demo_source() -> Path:
    from dreamdesk.engine.core.resources import resource
    return resource("demo")


def build_demo_copy(data_dir: Path | None = None) -> Path:
    """The copying and git work of ensure_demo_copy, without Qt (so it can run off the GUI thread)."""
    if data_dir is None:
        from dreamdesk.engine.desktop.installation import data_dir as user_data_dir
        data_dir = user_data_dir()
    dest = data_dir / "demo"
    if not dest.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = data_dir / ".demo-copy"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(demo_source(), tmp)
        # give the copy its recorded past (snapshots, Dream runs, archive) so every view has
        # something true to show; without git it stays a plain copy
        from dreamdesk.engine.desktop.demo_history import build_demo_history
        from dreamdesk.engine.core.resources import resource
        from dreamdesk.engine.core.problems import WorkspaceError
        try:
            build_demo_history(tmp, resource("demo-history"))
        except (WorkspaceError, OSError) as exc:
            logging.getLogger(__name__).warning("the demo copy has no recorded history (%s)", exc)
        tmp.rename(dest)
    return dest
