"""Where the window goes at its first start: the size it is designed for, shrunk to fit the
screen it opens on (a 1280×720 laptop included) and centred there. A saved geometry wins later."""

from __future__ import annotations

from ..qt import QRect, QSize

PREFERRED = QSize(1280, 820)    # room for the dashboard's gauges and the engine dock side by side
MINIMUM = QSize(760, 520)       # below this the tabs and the dock crowd each other out
# room for what the window system adds around the client area: the title bar and frame, and a
# gap so the status bar never sits flush against the screen's edge or a taskbar
MARGIN = QSize(40, 72)
LAPTOP = QRect(0, 0, 1280, 720)  # the smallest screen the window is laid out for (issue 17.7)


def first_size(available: QRect) -> QSize:
    """The preferred size, at most the available area minus the margin, at least MINIMUM unless
    the screen itself is smaller (then the screen wins: a window must not start off-screen)."""
    room = QSize(max(available.width() - MARGIN.width(), 1), max(available.height() - MARGIN.height(), 1))
    want = PREFERRED.boundedTo(room).expandedTo(MINIMUM)
    return want.boundedTo(room)


def first_geometry(available: QRect) -> QRect:
    """The first start's client rectangle: first_size, centred on the available area."""
    size = first_size(available)
    rect = QRect(0, 0, size.width(), size.height())
    rect.moveCenter(available.center())
    return rect
