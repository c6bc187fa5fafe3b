"""The structured edits the home's assistant defines for the file in the editor (OpenClaw's USER.md
directives: add one, supersede the one at the cursor, retire it), as items of the editor's menu.
Which actions exist and what they write is the engine's (Assistant.edit_actions, ops.edit.apply_action);
this module only asks for the text and dispatches."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QMenu, QWidget

ADD, SUPERSEDE, RETIRE = "add directive", "supersede directive", "retire directive"
LABELS = {ADD: "Add a directive…", SUPERSEDE: "Supersede this directive…", RETIRE: "Retire this directive"}
ASKS = {ADD: ("Add a directive", "The directive (observed today, active):"),
        SUPERSEDE: ("Supersede this directive", "What replaces it (observed today; the old one stays, superseded):")}


class TextAsks:
    """The one question these actions ask; tests replace it."""

    def text(self, parent: QWidget, title: str, label: str) -> str | None:
        value, ok = QInputDialog.getText(parent, title, label)
        return value if ok and value.strip() else None


def directive_at(notes: tuple, line: int) -> int | None:
    """The number (from 1, in file order) of the directive whose lines hold `line` (1-based):
    USER.md's notes are its directives, one each, in file order."""
    return next((i for i, n in enumerate(notes, 1) if n.start_line <= line <= n.end_line), None)


def add_actions(menu: QMenu, actions: tuple[str, ...], at: int | None, dirty: bool, run) -> None:
    """Items for the actions the file offers; `run(action, n)` is called when one is chosen."""
    offered = [a for a in (ADD, SUPERSEDE, RETIRE) if a in actions]
    if not offered:
        return
    menu.addSeparator()
    for a in offered:
        item = menu.addAction(LABELS[a])
        item.setObjectName(a.replace(" ", "_"))
        needs_one = a != ADD
        item.setEnabled(not dirty and (at is not None or not needs_one))
        item.setToolTip("Save your edit first" if dirty else
                        "Place the cursor on a directive" if needs_one and at is None else "Undoable (Ctrl+Alt+Z)")
        item.triggered.connect(lambda _=False, a=a: run(a, at))
