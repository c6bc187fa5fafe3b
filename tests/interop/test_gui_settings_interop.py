"""A Settings save through the real window on a home nanobot made: nanobot still loads the
config, a value it would reject is never written (issue 10, item 3), and keys nanobot's own
save dropped are named on the Dashboard (item 4)."""

import json

from conftest import open_window   # tests/conftest.py (this folder's conftest is interop.conftest)
from helpers.gui_waits import jobs_done

from .nanobot_checks import assert_nanobot_fine


def _dream(home) -> dict:
    return json.loads((home.path / "config.json").read_text(encoding="utf-8"))["agents"]["defaults"]["dream"]


def visible_texts(widget) -> list[str]:
    from PySide6.QtWidgets import QAbstractButton, QLabel, QListWidget, QTreeWidget
    out = []
    for w in [widget, *widget.findChildren(object)]:
        if not hasattr(w, "isVisible") or not w.isVisible():
            continue
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append(w.text())
        elif isinstance(w, QListWidget):
            out += [w.item(i).text() + " " + (w.item(i).toolTip() or "") for i in range(w.count())]
        elif isinstance(w, QTreeWidget):
            it = w.invisibleRootItem()
            stack = [it.child(i) for i in range(it.childCount())]
            while stack:
                x = stack.pop()
                out.append(" ".join(x.text(c) for c in range(x.columnCount())))
                stack += [x.child(i) for i in range(x.childCount())]
    return out


def _settings_tab(qtbot, home):
    """The real window on a home nanobot made, at Settings → Memory."""
    win = open_window(qtbot, home.path)
    win.tabs.setCurrentWidget(win.settings)
    return win, win.settings


def test_settings_save_is_read_by_nanobot(nanobot, nanobot_home, gui_env, qtbot):
    home = nanobot_home
    win, view = _settings_tab(qtbot, home)
    view.budget_spins["memoryBudgetChars"].setValue(2500)
    view.interval.setValue(3)
    view.apply_button.click()                  # both in one write
    qtbot.waitUntil(lambda: _dream(home).get("intervalH") == 3 and _dream(home).get("memoryBudgetChars") == 2500,
                    timeout=5000)
    after = assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    assert after["config"]["dream"]["intervalH"] == 3
    assert isinstance(_dream(home)["intervalH"], int), "nanobot's schema wants a whole number of hours"
    win.close()


def test_settings_never_write_an_interval_nanobot_rejects(nanobot, nanobot_home, gui_env, qtbot):
    home = nanobot_home
    win, view = _settings_tab(qtbot, home)
    view.interval.setValue(1.5)
    view.interval.editingFinished.emit()
    view.apply()                               # as Alt+A would, even with the button off
    jobs_done(qtbot, win.engine)               # a write it queued has run
    value = _dream(home)["intervalH"]
    assert isinstance(value, int) and not isinstance(value, bool) and value >= 1, (
        f"Settings wrote intervalH = {value!r}, which nanobot 0.3.5 refuses to start with")
    assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    # the box keeps what was typed, and Settings says in place why 1.5 cannot be applied
    texts = " | ".join(visible_texts(view))
    assert "Cannot be applied: intervalH must be a whole number" in texts and not view.apply_button.isEnabled(), (
        f"config.json keeps {value}, and no inline message says why 1.5 cannot be written: {texts}")
    win.close()


def test_dashboard_names_what_nanobot_s_own_save_dropped(nanobot, nanobot_home, gui_env, qtbot):
    home = nanobot_home
    win, view = _settings_tab(qtbot, home)
    spin = view.budget_spins["userBudgetChars"]
    spin.setValue(2800)
    view.apply_button.click()
    qtbot.waitUntil(lambda: _dream(home).get("userBudgetChars") == 2800, timeout=5000)
    # the save job ends by remembering what it wrote (after config.json): nanobot's save comes
    # after the whole job, as it would for a person (seen: the record landing after nanobot's
    # save, and no refresh after it, on a slower machine)
    qtbot.waitUntil(lambda: not win.engine.busy, timeout=5000)
    assert nanobot.save_config(home)["ok"]
    assert "userBudgetChars" not in _dream(home)
    win.tabs.setCurrentWidget(win.dashboard)

    def named():
        return any("userBudgetChars" in t and "2800" in t.replace(",", "") for t in visible_texts(win.dashboard))
    try:
        qtbot.waitUntil(named, timeout=5000)
    except qtbot.TimeoutError:
        raise AssertionError("the Dashboard never says userBudgetChars = 2800 was lost from config.json; it shows: "
                             + " | ".join(t for t in visible_texts(win.dashboard) if t.strip())) from None
    win.close()
