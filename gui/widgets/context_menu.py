"""Show a context menu Qt built (createStandardContextMenu) and free it when it closes."""

from shiboken6 import delete

from ..qt import QMenu, QPoint


def show_and_free(menu: QMenu, global_pos: QPoint) -> None:
    """exec() the menu, then delete it through shiboken: Qt made it, so deleteLater() would free it
    behind PySide's back and a later wrapper at the same address could read as "already deleted"."""
    try:
        menu.exec(global_pos)
    finally:
        delete(menu)
