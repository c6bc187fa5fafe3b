"""The Files view's list: each file by its path, and an assistant's dated notes (when it lists
them: Assistant.listed_notes) in a group of their own under a heading, newest first, each by its
day, name and size, the ones a new session quotes marked. An item's path is its data, never its
text, so a label may say more than the path."""

from __future__ import annotations

from ..qt import QListWidget, QListWidgetItem, Qt, Signal

PATH = Qt.ItemDataRole.UserRole
NOTES_HEADING = "Daily notes · newest first"
PRELUDE_MARK = "▶ "        # before a note a /new quotes
PRELUDE_TIP = "▶: a new session (/new) quotes this note in its first message"


class FileList(QListWidget):
    pathChosen = Signal(str)          # the person chose the file at this path

    def __init__(self, parent=None):
        super().__init__(parent)
        self.files: list[str] = []    # the paths last given, in their order
        self.currentItemChanged.connect(lambda item, _old: self.pathChosen.emit(path_of(item)))

    def current_path(self) -> str | None:
        item = self.currentItem()
        return path_of(item) or None if item is not None else None

    def item_at(self, path: str) -> QListWidgetItem | None:
        return next((self.item(i) for i in range(self.count()) if path_of(self.item(i)) == path), None)

    def select(self, path: str, quietly: bool = False) -> bool:
        """Make `path` the current file (`quietly`: without saying so); False when it is not listed."""
        item = self.item_at(path)
        if item is None:
            return False
        self.blockSignals(quietly)
        self.setCurrentItem(item)
        self.blockSignals(False)
        return True

    def fill(self, files: list[str]) -> bool:
        """List `files` by path (quietly); False when they are the ones listed already."""
        if files == self.files:
            return False
        self.files = list(files)
        self.blockSignals(True)
        self.clear()
        for path in files:
            self.addItem(_item(path, path, path))
        self.blockSignals(False)
        return True

    def show_notes(self, notes: list) -> None:
        """The dated notes (ListedNote, newest first) moved under their heading, each by its label;
        the current file stays current, quietly."""
        current = self.current_path()
        paths = {n.path for n in notes}
        self.blockSignals(True)
        for i in reversed(range(self.count())):
            if path_of(self.item(i)) in paths or not path_of(self.item(i)):
                self.takeItem(i)
        if notes:
            heading = QListWidgetItem(NOTES_HEADING)
            heading.setFlags(Qt.ItemFlag.NoItemFlags)           # a heading: never chosen
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            heading.setToolTip(PRELUDE_TIP)
            self.addItem(heading)
        for n in notes:
            self.addItem(_item(n.path, (PRELUDE_MARK if n.in_prelude else "") + n.label,
                               n.tip + ("\n" + PRELUDE_TIP if n.in_prelude else "")))
        if current is not None:
            self.select(current, quietly=True)
        self.blockSignals(False)


def path_of(item: QListWidgetItem | None) -> str:
    """The path an item stands for ("" for a heading or none)."""
    return str(item.data(PATH) or "") if item is not None else ""


def _item(path: str, text: str, tip: str) -> QListWidgetItem:
    item = QListWidgetItem(text)
    item.setData(PATH, path)
    item.setToolTip(tip)
    return item
