"""What each tab view is handed, and by which of its methods: the open workspace, the state read,
a fresh look when its data changed. The application context (gui/context/app_context.py) decides when; this
module knows each view's calls, so the context and the window never spell them out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dreamdesk.engine.disk.changes import EVERYTHING

# What each view that reads for itself reads again on (the fields of engine.changes.Changes; the
# other views are handed the workspace state when it is read). A run record, or the assistant's
# Dream at work (its commit follows its files), for the runs; lint's findings read the memory
# files, skills, config and Dream's provenance.
READS_ON = {"archive": ("archive", "snapshots"),
            "runs": ("runs", "snapshots", "files"),
            "snapshots": ("snapshots", "files", "cursors"),
            "lint": ("files", "skills", "config", "runs")}

if TYPE_CHECKING:
    from dreamdesk.engine.disk.changes import Changes
    from dreamdesk.engine.home.workspace import Workspace

    from .workspace_state import WorkspaceState

# the views that read for themselves, handed the workspace when it opens (and when built)
READ_THEMSELVES = ("archive", "runs", "snapshots", "lint")
# the views handed the state read, part by part
HANDED_STATE = ("history", "files", "settings", "prompt")
# the views whose search or filter belongs to one workspace: cleared when another one opens
# (what was typed to search one would hide the next one's rows: "0 of 40 match")
FILTERED = ("archive", "history")
# handed its data from the state read (the budgets), never read by itself: loaded again after a
# read that touched the files, or when only the snapshots changed
CHARTS = "charts"
# loaded again each time they are shown: the assistant may have committed since (no file event
# for that), and the charts are handed their data
RELOAD_WHEN_SHOWN = ("runs", CHARTS)


def hand_workspace(name: str, view, ws: Workspace) -> None:
    """A view just built, or a workspace just opened: the views that read for themselves get it."""
    if name in READ_THEMSELVES:
        view.set_workspace(ws)


def hand_state(name: str, view, state: WorkspaceState, ws: Workspace, changed: Changes | None = None) -> None:
    """What a read gives a view: only what `changed` touches of what it shows (a view just built,
    with no `changed`, gets everything)."""
    changed = EVERYTHING if changed is None else changed
    st = state.status
    if name == "history" and (changed.history or changed.cursors or changed.config):
        view.set_data(st.history, st.cursor, st.dream_cursor, state.in_prompt, state.home_zone)
    elif name == "files":
        if changed.touches_files() or changed.runs:
            view.set_workspace(ws, [f.path for f in st.files], {f.path: f.budget for f in st.files},
                               state.provenance)
        if changed.touches_files() or changed.state:
            view.set_pins(state.pins)
    elif name == "settings" and (changed.touches_files() or changed.runs or changed.state):
        view.set_state(ws, state)            # config, sizes, recent writes, the per-workspace boxes
    elif name == "prompt" and (changed.touches_files() or changed.history or changed.cursors):
        view.set_preview(state.prompt)


def load(name: str, view, ws: Workspace, state: WorkspaceState | None) -> None:
    """A view whose data changed, shown now: it reads again (another workspace: from scratch)."""
    if name == CHARTS:
        if state is not None:                # (else its budgets come with the first read, which loads it)
            view.set_workspace(ws, {f.path: f.budget for f in state.status.files})
    elif view.ws is not ws:
        view.set_workspace(ws)
    else:
        view.refresh()


def another_workspace(name: str, view) -> None:
    """Another workspace opens: what was typed to filter this one goes."""
    if name in FILTERED:
        view.clear_filters()
