"""What a user operation returns (issue 27), modelled on a record of what changed that each screen
reads only its part of: the operation's own payload, the change record of every path it wrote
(engine/disk/changes.py, built as the GUI's lanes build it for any job, so both say the same) and
the words to tell the person. A failing operation raises the engine's error, in words; it
returns nothing."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

from ..core.state import workspace_state_dir
from ..disk.changes import Changes, recording, relative_changes
from ..home.workspace import Workspace

log = logging.getLogger(__name__)

T = TypeVar("T")

# Who asked: the command line, the window, or (from the window) the view that started it, by its
# tab name ("snapshots", "archive", "files", …): said in the log, and kept in the result
CLI, GUI = "cli", "gui"


@dataclass(frozen=True)
class OpResult(Generic[T]):
    value: T                 # the engine's own result (RestoreResult, Pin, Config, DreamResult …)
    changes: Changes         # what the operation wrote, as the parts of the workspace it touched
    message: str             # what to tell the person now (the status bar's line; may hold newlines)
    initiator: str


def perform(ws: Workspace, name: str, initiator: str, work: Callable[[], T],
            say: Callable[[T], str]) -> OpResult[T]:
    """Run `work`, recording every path it writes, and say what it did."""
    with recording() as written:
        value = work()
    changes = relative_changes(written, ws.root, ws.config_path, workspace_state_dir(ws.root), ws.layout.changes)
    # the log names what changed, never the message: it may quote an entry (a log is attached to bug reports)
    log.info("%s (asked by %s): changed %s", name, initiator, changes.describe())
    return OpResult(value, changes, say(value), initiator)


def one_line(text: str) -> str:
    """A message on one line (a status bar's): its lines joined, their indents dropped."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
