"""What the main window asks before it closes or opens another workspace: an unsaved edit, settings
not applied, a job still writing. Each answer is a word (the window's methods of the same name
call these; tests replace those methods)."""

from __future__ import annotations

from ..qt import QMessageBox, QWidget

Button = QMessageBox.StandardButton


def unsaved_choice(parent: QWidget, path: str) -> str:
    """save | discard | cancel."""
    answer = QMessageBox.question(parent, "Unsaved edit", f"Save your edit of {path} first?",
                                  Button.Save | Button.Discard | Button.Cancel)
    return {Button.Save: "save", Button.Discard: "discard"}.get(answer, "cancel")


def confirm_quit_while_busy(parent: QWidget, jobs: list[str]) -> bool:
    """No is the default."""
    answer = QMessageBox.question(
        parent, "A job is still running",
        f"{', '.join(jobs)} is still running. Quit anyway? It is cancelled: Dream holds its cursor, "
        "and nothing half-written is left behind.", Button.Yes | Button.No, Button.No)
    return answer == Button.Yes


def unapplied_choice(parent: QWidget, count: int) -> str:
    """discard | cancel, for settings changed in the form but not applied. Cancel is the default:
    the person goes back to Apply them."""
    box = QMessageBox(QMessageBox.Icon.Question, "Settings not applied",
                      f"{count} setting change(s) in Settings → Memory are not applied to config.json. "
                      "Quit and drop them?", Button.Discard | Button.Cancel, parent)
    box.setDefaultButton(Button.Cancel)
    return "discard" if box.exec() == Button.Discard else "cancel"
