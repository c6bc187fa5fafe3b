"""What the Dashboard's buttons ask for (re-apply or forget lost settings, restore or unpin a
pinned entry, restore what changed since the last look, "Got it"), each through its wrapper in
gui/operations/, its failure said in the Dashboard's own box."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dreamdesk.engine.disk import changes as changes_mod

if TYPE_CHECKING:
    from .main_window import MainWindow


class DashboardActions:
    def __init__(self, window: "MainWindow"):
        self.w = window

    def reapply_settings(self) -> None:
        """The Dashboard's Re-apply: write back what config.json lost, only because it was asked."""
        ws = self.w.ws
        if ws is None:
            return
        from ..operations.run import Initiator
        from ..operations.settings import reapply
        self.w.dashboard.show_lost_error("")

        def failed(message: str) -> None:
            self.w.dashboard.show_lost_error(f"Not re-applied: {message}")
            self.w.apply(changes_mod.Changes(config=True))

        reapply(Initiator(self.w.engine, "dashboard", self.w.show_message), ws, done=lambda _r: self.w._settings_changed(),
                failed=failed)

    def forget_lost_settings(self) -> None:
        ws = self.w.ws
        if ws is None:
            return
        from ..operations.run import Initiator
        from ..operations.settings import forget
        self.w.dashboard.show_lost_error("")
        lost = [x.path for x in (self.w.state.status.lost_settings if self.w.state else [])]
        forget(Initiator(self.w.engine, "dashboard", self.w.show_message), ws, lost,
               failed=lambda message: self.w.dashboard.show_lost_error(f"Not forgotten: {message}"))

    def restore_pin(self, pin_id: str) -> None:
        """The pin alert's Restore: the one way a pinned entry comes back (never on its own)."""
        from ..operations.pin import restore_pinned
        self._pin_job("restore pinned entry", lambda by, ws, **on: restore_pinned(by, ws, pin_id, **on))

    def unpin(self, pin_id: str) -> None:
        from ..operations.pin import unpin_id
        self._pin_job("unpin", lambda by, ws, **on: unpin_id(by, ws, pin_id, **on))

    def _pin_job(self, what: str, start) -> None:
        """`start(by, ws, **on)`: the pin operation, from gui/operations/pin.py."""
        ws = self.w.ws
        if ws is None:
            return
        from ..operations.run import Initiator
        boxes = (self.w.dashboard.pin_alerts, self.w.dashboard.pin_list)
        for box in boxes:
            box.show_error("")
            box.set_busy(True)

        def failed(message: str) -> None:
            self.w.dashboard.pin_alerts.show_error(f"Not done ({what}): {message}")
            self.w.dashboard.pin_alerts.show()
            self.w.apply(changes_mod.Changes(state=True))
        # (the boxes' busy state ends with the next read)
        start(Initiator(self.w.engine, "dashboard", self.w.show_message), ws,
              done=lambda _r: self.w.apply(changes_mod.Changes(state=True)), failed=failed)

    def restore_since(self, file: str, removal) -> None:
        ws = self.w.ws
        if ws is None:
            return
        from ..operations.archive_restore import restore_removed
        from ..operations.run import Initiator
        restore_removed(Initiator(self.w.engine, "dashboard", self.w.show_message), ws, file, removal)

    def got_it(self) -> None:
        ws, shown = self.w.ws, self.w.state.since if self.w.state else None
        if ws is None or shown is None:
            return
        from ..operations.run import Initiator
        from ..operations.watch import got_it
        got_it(Initiator(self.w.engine, "dashboard", self.w.show_message), ws, shown)   # its change record reads the box again
