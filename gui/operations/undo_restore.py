"""Undo a restore, from wherever it was made (issue 25 item 9): Edit → Undo Last Restore and
Ctrl+Alt+Z from any tab, the Snapshots tab's button and its menu of recent restores, and the
Undo button of the Archive tab. Plan on the reader lane, ask (which files go back, what changed
since that the undo would drop), then undo on the writer lane."""

from __future__ import annotations

from typing import Any, Callable, Protocol

from dreamdesk.engine.core import clock
from dreamdesk.engine.core.rules import ARCHIVED_FILES
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.ops import restore as restore_op
from dreamdesk.engine.recovery.restore import RestoreResult, UndoPlan, plan_undo, recent_restores

from ..context.worker import JobLanes, Job
from .run import Initiator, run_op


class Asks(Protocol):
    def confirm(self, parent, title: str, text: str) -> bool: ...
    def error(self, parent, title: str, text: str) -> None: ...


class UndoAsks:
    """The questions an undo asks, as message boxes; tests replace them."""

    def confirm(self, parent, title: str, text: str) -> bool:
        from ..qt import QMessageBox
        box = QMessageBox(QMessageBox.Icon.Question, title, text, parent=parent)
        yes = box.addButton(title.rstrip("?…"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is yes

    def error(self, parent, title: str, text: str) -> None:
        from ..qt import QMessageBox
        QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent).exec()


def when(iso: str) -> str:
    return clock.show_iso(iso)


def preview(lines: list[str], limit: int = 4) -> str:
    """The first `limit` lines of a change, indented, long lines cut."""
    out = []
    for t in lines[:limit]:
        t = t.rstrip("\n")
        out.append("    " + (t if len(t) <= 90 else t[:89] + "…"))
    if len(lines) > limit:
        out.append(f"    … and {len(lines) - limit} more")
    return "\n".join(out)


def undo_question(plan: UndoPlan, last: bool) -> tuple[str, str]:
    """The title and text the person answers before an undo writes anything."""
    e = plan.entry
    text = f"Undo {'the last restore' if last else 'the restore'} ({e.what}, {when(e.at)})?\n\n"
    back = [f.path for f in plan.files]
    if back:
        text += (f"These files it wrote go back to how they were just before it: {', '.join(back)}. "
                 "No other file changes.\n")
    else:
        text += "Its files already are as they were before it.\n"
    if plan.cursor is not None:
        text += f"memory/.dream_cursor goes back from {plan.cursor[0]} to {plan.cursor[1]}.\n"
    for w in plan.warnings:
        text += w[0].upper() + w[1:] + ".\n"
    title = "Undo last restore?" if last else "Undo restore?"
    if plan.changed:
        title = "Undo anyway?"
        text += "\nChanged since that restore — undoing it drops these changes:\n"
        for f in plan.changed:
            text += f"  {f.path}:\n" + preview(f.since, 8) + "\n"
        if any(f.path in ARCHIVED_FILES for f in plan.changed):
            text += "Entries dropped from USER.md or MEMORY.md go to the archive.\n"
    text += "\nThe undo is itself a restore: the current files are snapshotted first, so it can be undone too."
    return title, text


def undo_last_restore(engine: JobLanes, ws: Workspace, parent, asks: Asks, status: Callable[[str], None],
                      done: Callable[[RestoreResult], None] | None = None) -> None:
    """The newest restore that can still be undone (a no-op saying so when there is none)."""

    def plan(ctx) -> UndoPlan | None:
        recent = recent_restores(ws)
        return plan_undo(ws, recent[0].id) if recent else None

    def ask(p: UndoPlan | None) -> None:
        if p is None:
            status("No restore to undo in this workspace")
        else:
            run_undo(engine, ws, p, parent, asks, status, done, last=True)

    engine.read("plan undo", plan, ask,
                lambda msg, tb: asks.error(parent, "Cannot undo", f"That restore cannot be undone.\n\n{msg}"))


def run_undo(engine: JobLanes, ws: Workspace, plan: UndoPlan, parent, asks: Asks, status: Callable[[str], None],
             done: Callable[[RestoreResult], None] | None = None, last: bool = True,
             together: list[str] | None = None, initiator: str = "gui") -> bool:
    """Ask, then undo on the writer lane. `together`: the ids of restores made by one action
    (an Archive restore of several entries), undone newest first after this one question (the
    plan is the newest's). False when the person said no (nothing was written)."""
    title, text = undo_question(plan, last)
    ids = together or [plan.entry.id]
    if len(ids) > 1:
        text = (f"This undoes the {len(ids)} restores made together, newest first; each puts back only the "
                f"files it wrote.\n\n{text}")
    if not asks.confirm(parent, title, text):
        status("Undo cancelled; nothing was written")
        return False
    by = Initiator(engine, initiator, status, lambda title, text: asks.error(parent, title, text))
    undo(by, ws, plan, ids, done=None if done is None else (lambda result: done(result.value)))
    return True


def undo(by: Initiator, ws: Workspace, plan: UndoPlan, ids: list[str] | None = None, **on: Any) -> Job:
    """Undo the restore `plan` was made for (or `ids`, oldest first, ending with it) on the writer
    lane, writing over a file changed since only as the person saw it (nothing newer)."""
    accept = {f.path: f.current_hash for f in plan.changed}
    if ids and len(ids) > 1:
        def op(ctx, who):
            return restore_op.undo_together(ws, ids, who, accept)
    else:
        def op(ctx, who):
            return restore_op.undo(ws, who, plan.entry.id, accept=accept)
    return run_op(by, f"undo of {plan.entry.what}", op, failure="Undo failed", title="Undo failed", **on)


def undo_together(engine: JobLanes, ws: Workspace, ids: list[str], parent, asks: Asks,
                  status: Callable[[str], None], done: Callable[[RestoreResult], None] | None = None,
                  initiator: str = "gui") -> None:
    """Undo the restores one action made (ids oldest first), after one question."""
    engine.read("plan undo", lambda ctx: plan_undo(ws, ids[-1]),
                lambda p: run_undo(engine, ws, p, parent, asks, status, done, together=ids, initiator=initiator),
                lambda msg, tb: asks.error(parent, "Cannot undo", f"That restore cannot be undone.\n\n{msg}"))
