"""The window's layout as the person left it, kept in QSettings: its geometry, its docks and
toolbars ("window/…") and the tabs' splitters ("splitters/<tab>"). Only splitter sizes a person
could have chosen are saved or restored (a splitter never laid out holds -1 sizes, which squeeze
its panes at the next start: issue 17.2); a splitter whose table is fitted to its rows (RowsFit)
only when the person did choose them ("splitters_chosen/<tab>"): sizes fitted to the three runs
of one home squeezed the table of the next home's thirty to two rows and a half."""

from __future__ import annotations

import struct

from ..app import settings_store

# the tab views whose splitter is remembered
SPLITTERS = ("files", "history", "prompt", "snapshots", "archive", "runs", "lint")


def restore_window(win) -> None:
    s = settings_store.settings()
    geo = s.value("window/geometry")
    if geo is not None:
        win.restoreGeometry(geo)
    st = s.value("window/state")
    if st is not None:
        win.restoreState(st)


def save_window(win, views) -> None:
    """The window's geometry and state, and the splitters of (name, view) pairs (see save)."""
    s = settings_store.settings()
    s.setValue("window/geometry", win.saveGeometry())
    s.setValue("window/state", win.saveState())
    save(views)


def restore(name: str, view) -> None:
    """The view's splitter as last saved; the user's sizes then win over fitting its table to its rows."""
    s = settings_store.settings()
    v = s.value(f"splitters/{name}")
    # an earlier version saved splitters never laid out: those are not restored
    if v is None or not laid_out(saved_sizes(v)):
        return
    fit = getattr(view, "rows", None)
    if fit is not None and not chosen(s, name):
        return                       # fitted sizes (or an earlier version's, unmarked): fitted again
    if view.splitter.restoreState(v) and fit is not None:
        fit.keep()


def save(views) -> None:
    """The splitters of (name, view) pairs, each that has been laid out. A tab never built keeps
    its saved value; one built but never shown keeps the last real one."""
    s = settings_store.settings()
    for name, view in views:
        fit = getattr(view, "rows", None)
        if fit is not None and not fit.kept:
            s.remove(f"splitters/{name}")            # sizes fitted to this home's rows, not chosen
            s.remove(f"splitters_chosen/{name}")
        elif laid_out(saved_sizes(state := view.splitter.saveState())):
            s.setValue(f"splitters/{name}", state)
            if fit is not None:
                s.setValue(f"splitters_chosen/{name}", True)


def chosen(s, name: str) -> bool:
    """Were the saved sizes of `name`'s fitted splitter the person's (QSettings' ini gives "true")?"""
    return str(s.value(f"splitters_chosen/{name}", "")).lower() in ("true", "1")


def laid_out(sizes: list[int]) -> bool:
    """Splitter sizes a person could have chosen (the panes never collapse to nothing)."""
    return bool(sizes) and all(size > 0 for size in sizes)


def saved_sizes(state) -> list[int]:
    """The pane sizes a saved QSplitter state holds: Qt writes a 0xff marker, a version, then the
    sizes as a count and big-endian int32s; a splitter saved before it was laid out holds -1s."""
    data = bytes(state) if state is not None else b""
    try:
        marker, _version, count = struct.unpack_from(">iii", data)
        if marker != 0xFF or not 0 < count <= 64:
            return []
        return list(struct.unpack_from(f">{count}i", data, 12))
    except struct.error:
        return []
