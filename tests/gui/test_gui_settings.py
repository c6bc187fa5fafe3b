"""Settings → Memory as a person uses it (issue 17.1): an edit only changes the form, Apply writes
every changed key in one config.json write, Revert puts the form back, and each budget has a
label that always says where its file stands against the value in the field."""

import json
import shutil

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from dreamdesk.gui.widgets.gauge import STATE_COLOURS

MEMORY_LABEL = "memory/MEMORY.md"


def _type_into(spin, text):
    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, text)


def test_typing_then_clicking_elsewhere_or_switching_tabs_writes_nothing(main_window, demo_home, qtbot):
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    spin = view.budget_spins["memoryBudgetChars"]
    _type_into(spin, "3100")                                  # the accident of the issue
    QTest.mouseClick(view.review, Qt.MouseButton.LeftButton)  # clicking elsewhere
    assert not spin.hasFocus()
    main_window.tabs.setCurrentWidget(main_window.dashboard)
    main_window.tabs.setCurrentWidget(view)
    # a write would be queued by the click or the tab switch itself (busy at once): nothing to wait for
    assert cfg.read_bytes() == before and not main_window.engine.busy
    label = view.row_labels["memoryBudgetChars"]
    assert label.text() == "memory/MEMORY.md budget *" and "bold" in label.styleSheet()
    assert view.row_labels["userBudgetChars"].text() == "USER.md budget"          # only the changed field
    assert view.pending_line.text() == "1 unapplied change"
    assert view.apply_button.isEnabled() and view.revert_button.isEnabled()
    assert view.budget_now[MEMORY_LABEL].text() == "now 2,866 of 3,100 — near"   # previews the field


def test_apply_writes_exactly_the_changed_keys_in_one_write(main_window, demo_home, qtbot, monkeypatch):
    from dreamdesk.engine.home import config as config_mod
    writes = []
    real = config_mod.write_settings

    def counted(ws, updates, **kw):
        writes.append(dict(updates))
        return real(ws, updates, **kw)
    monkeypatch.setattr(config_mod, "write_settings", counted)
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    view.budget_spins["memoryBudgetChars"].setValue(2500)
    view.interval.setValue(4)
    assert view.pending_line.text() == "2 unapplied changes"
    with qtbot.waitSignal(view.changed, timeout=5000):
        view.apply_button.click()
    assert writes == [{"memoryBudgetChars": 2500, "intervalH": 4}]
    expected = (before.replace(b'"memoryBudgetChars": 3000', b'"memoryBudgetChars": 2500')
                .replace(b'"intervalH": 2,', b'"intervalH": 4,'))
    assert cfg.read_bytes() == expected                        # every other byte as it was
    assert "intervalH = 4, memoryBudgetChars = 2500 written to" in main_window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: main_window.dashboard.gauges[MEMORY_LABEL].state == "over", timeout=5000)
    assert view.pending_line.text() == "" and not view.apply_button.isEnabled()
    assert view.row_labels["intervalH"].text() == "Every" and view.changes() == {}


def test_revert_puts_the_form_back_to_config_json(main_window, demo_home, qtbot):
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    view.budget_spins["userBudgetChars"].setValue(1000)
    view.passes["deduction"].setChecked(False)
    view.enabled.setChecked(False)
    assert view.passes["deduction"].text() == "deduction *" and view.pending_line.text() == "3 unapplied changes"
    view.revert_button.click()
    assert (view.budget_spins["userBudgetChars"].value(), view.passes["deduction"].isChecked(),
            view.enabled.isChecked()) == (3000, True, True)
    assert view.passes["deduction"].text() == "deduction" and view.row_labels["enabled"].text() == "Periodic consolidation"
    assert view.pending_line.text() == "" and not view.apply_button.isEnabled() and not view.revert_button.isEnabled()
    assert view.budget_now["USER.md"].text() == "now 2,687 of 3,000 — under"
    assert cfg.read_bytes() == before and not main_window.engine.busy   # (a write is queued at once, or never)


def test_the_budget_label_follows_the_field_in_the_gauge_colours(main_window):
    view = main_window.settings
    spin, label = view.budget_spins["memoryBudgetChars"], view.budget_now[MEMORY_LABEL]
    for value, text, state in ((3000, "now 2,866 of 3,000 — near", "near"),
                               (2866, "now 2,866 of 2,866 — near", "near"),       # at the budget: still near
                               (2865, "now 2,866 of 2,865 — over by 1", "over"),
                               (3200, "now 2,866 of 3,200 — under", "ok"),
                               (0, "now 2,866 — measured only, never refused", "unbudgeted")):
        spin.setValue(value)
        assert (label.text(), STATE_COLOURS[state] in label.styleSheet()) == (text, True), value


def test_a_refresh_keeps_an_unapplied_edit_and_shows_the_new_file(main_window, demo_home, qtbot):
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    view.budget_spins["memoryBudgetChars"].setValue(2500)
    cfg = demo_home / "config.json"
    raw = json.loads(cfg.read_text())
    raw["agents"]["defaults"]["dream"]["intervalH"] = 5       # another writer (the assistant) meanwhile
    cfg.write_text(json.dumps(raw, indent=2) + "\n")
    qtbot.waitUntil(lambda: view.interval.value() == 5, timeout=5000)
    assert view.budget_spins["memoryBudgetChars"].value() == 2500 and view.changes() == {"memoryBudgetChars": 2500}


def test_unapplied_changes_are_dropped_and_said_when_another_workspace_opens(main_window, demo_home, qtbot,
                                                                             tmp_path):
    other = tmp_path / "other"
    shutil.copytree(demo_home, other, symlinks=True)
    view = main_window.settings
    main_window.tabs.setCurrentWidget(view)
    before = (demo_home / "config.json").read_bytes()
    view.budget_spins["memoryBudgetChars"].setValue(2500)
    assert main_window.open_workspace(str(other))
    qtbot.waitUntil(lambda: "dropped" in main_window.statusBar().currentMessage(), timeout=5000)
    assert "1 unapplied setting change dropped: another workspace was opened" in \
        main_window.statusBar().currentMessage()
    assert view.budget_spins["memoryBudgetChars"].value() == 3000 and view.pending_line.text() == ""
    assert (demo_home / "config.json").read_bytes() == before


def test_quitting_with_unapplied_settings_asks_first(gui_env, qtbot, demo_home):
    """Closing the window with a changed, unapplied budget asks; Cancel (the default) keeps the
    window on Settings with the edit; Discard quits and config.json is as it was."""
    from conftest import open_window
    win = open_window(qtbot, demo_home)
    cfg = demo_home / "config.json"
    before = cfg.read_bytes()
    win.tabs.setCurrentWidget(win.settings)
    spin = next(iter(win.settings.budget_spins.values()))
    spin.setValue(spin.value() + 100)
    asked = []
    win.unapplied_choice = lambda n: asked.append(n) or "cancel"
    assert not win.close()
    assert asked == [1] and win.isVisible() and win.tabs.currentWidget() is win.settings
    assert win.settings.changes()
    win.unapplied_choice = lambda n: asked.append(n) or "discard"
    assert win.close()
    assert asked == [1, 1] and cfg.read_bytes() == before


def test_the_memory_form_is_built_from_the_engines_key_table(gui_env, gui_engine, qtbot, monkeypatch):
    """Issue 27: each field's range, unit, step, label and tooltip come from engine/home/config.py's
    SETTINGS (the doc is the tooltip); change the table and the form follows."""
    import dataclasses

    from dreamdesk.engine.home import config as config_mod
    from dreamdesk.gui.views.settings_view import SettingsView
    key = "agents.defaults.dream.reviewEveryRuns"
    changed = dataclasses.replace(config_mod.BY_PATH[key], form_max=777, unit="passes", label="Review each",
                                  doc="A doc the table says.")
    monkeypatch.setitem(config_mod.BY_PATH, key, changed)
    view = SettingsView(gui_engine)
    qtbot.addWidget(view)
    spin = view.fields["reviewEveryRuns"]
    assert (spin.minimum(), spin.maximum(), spin.suffix()) == (1, 777, " passes")
    assert spin.toolTip().startswith("A doc the table says. (a whole number ≥ 1; config.json: " + key)
    assert view.row_labels["reviewEveryRuns"].text() == "Review each"
    budget = view.budget_spins["memoryBudgetChars"]
    rule = config_mod.BY_PATH["agents.defaults.dream.memoryBudgetChars"]
    assert (budget.maximum(), budget.singleStep(), budget.specialValueText()) == (
        rule.form_max, rule.step, "0 — " + rule.zero_means)
    assert view.passes["induction"].toolTip().startswith(config_mod.BY_PATH["agents.defaults.dream.passes.induction"].doc)
