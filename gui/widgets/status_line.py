"""The status bar's right end: the counters of the last read ("25 pending · 5 problem(s) · read
14:02:11", the same count as the Dashboard's Problems box) and the one clock every view shows
times on. Built with the window's frame, before the engine loads (the clock module is imported
at the first read)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..qt import QLabel

if TYPE_CHECKING:
    from ..context.workspace_state import WorkspaceState


class Counters(QLabel):
    def __init__(self):
        super().__init__()
        self.setContentsMargins(16, 0, 0, 0)   # a gap after a message, before the counters

    def reading(self) -> None:
        self.setText("Reading…")

    def show_state(self, state: WorkspaceState) -> None:
        from dreamdesk.engine.core import clock
        st = state.status
        pending = f"{st.pending} pending · " if st.keeps_history else ""    # (no history.jsonl: nothing pends)
        self.setText(f"{pending}{len(st.problems)} problem(s) · "
                     f"read {clock.show(state.read_at, seconds=True)[11:]}")
        # its room grows with its text even while a message is shown (else "25 pendin")
        self.setMinimumWidth(self.sizeHint().width())


class Clock(QLabel):
    def __init__(self):
        super().__init__()
        self.setObjectName("clock")

    def show_zone(self, state: WorkspaceState | None = None) -> None:
        """This machine's zone; with a read, what history.jsonl is stamped in."""
        from dreamdesk.engine.core import clock
        self.setText(clock.zone_label())
        if state is None:
            return
        self.setToolTip(
            "Every time Dreamdesk shows is on this clock. history.jsonl is "
            + (f"stamped in {state.home_zone} (agents.defaults.timezone in config.json)."
               if state.home_zone is not None else "taken as stamped on this machine (config.json names no timezone)."))
