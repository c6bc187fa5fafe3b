"""Settings → Memory on an OpenClaw home (issue 29 item 7): OpenClaw's own settings in place of
config.json's Dream settings; a typed cap previews what the prompt would cut before anything is
written; a value OpenClaw would refuse keeps Apply off and says why; Apply writes openclaw.json in
place and the window reads it again."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from conftest import open_window
from helpers.gui_waits import jobs_done
from helpers.openclaw_homes import copy_home, grab_sizes
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

SHOTS = Path(os.environ.get("DREAMDESK_OPENCLAW_SHOTS") or Path(tempfile.gettempdir()) / "shots-i29-oc-settings")


def test_settings_show_openclaws_caps_and_dreaming_preview_the_cut_and_apply_in_place(gui_env, qtbot, tmp_path):
    home = copy_home("over-cap", tmp_path)
    cfg = home / "openclaw.json"
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text("// tuned by hand\n" + text, encoding="utf-8")
    win = open_window(qtbot, home)
    win.tabs.setCurrentWidget(win.settings)
    s = win.settings
    box = s.own_box
    qtbot.waitUntil(lambda: box.isVisible() and box.own is not None, timeout=5000)
    assert not s.memory_box.isVisible() and box.title() == "OpenClaw's memory settings (openclaw.json)"
    cap, total, dreaming, schedule = (box.fields[k] for k in ("bootstrapMaxChars", "bootstrapTotalMaxChars",
                                                                "dreaming.enabled", "dreaming.frequency"))
    assert (cap.value(), total.value(), dreaming.isChecked(), schedule.text()) == (6000, 60000, True, "0 3 * * *")
    assert not box.apply_button.isEnabled() and box.what_if.text().startswith("<b>Now:</b>")
    assert "MEMORY.md (8,040 chars), cap 6,000: 17 entries in the cut" in box.what_if.text()
    # typed, not applied: the cut it would make, before anything is written
    cap.setValue(9000)
    assert box.labels["bootstrapMaxChars"].text() == "Per-file cap *" and box.pending_line.text() == "1 unapplied change"
    assert "If applied:" in box.what_if.text()
    assert "MEMORY.md (8,040 chars), cap 6,000 → 9,000: would fit whole (now: 17 entries in the cut)" in box.what_if.text()
    cap.setValue(5000)
    assert "MEMORY.md (8,040 chars), cap 6,000 → 5,000: 24 entries would fall into the cut" in box.what_if.text()
    assert "(new): - Fact 29" in box.what_if.toolTip()
    grab_sizes(win, SHOTS, "settings-openclaw-what-if")
    # a schedule OpenClaw's scheduler would not run: said, Apply off
    schedule.setText("0 25 * * *")
    assert not box.apply_button.isEnabled() and "Cannot be applied" in box.error.text() and "outside 0-23" in box.error.text()
    schedule.setText("30 4 * * *")
    dreaming.setChecked(False)
    assert box.apply_button.isEnabled() and box.pending_line.text() == "3 unapplied changes"
    assert s.unapplied() == 3
    assert cfg.read_text(encoding="utf-8") == "// tuned by hand\n" + text       # nothing written until Apply
    box.apply_button.click()
    jobs_done(qtbot, win.engine)
    written = cfg.read_text(encoding="utf-8")
    codex = '"codex": {\n        "config": {\n          "sessionCatalog": {\n            "enabled": false\n          }\n        }\n      }'
    assert written == "// tuned by hand\n" + text.replace('"bootstrapMaxChars": 6000', '"bootstrapMaxChars": 5000').replace(
        codex, codex + ',\n      "memory-core": {\n        "config": {\n          "dreaming": {\n            "enabled": false,\n'
        '            "frequency": "30 4 * * *"\n          }\n        }\n      }')
    # the window read it again: the form shows the file, nothing left to apply; the Dashboard follows
    qtbot.waitUntil(lambda: box.own.find("bootstrapMaxChars").value == 5000, timeout=5000)
    assert box.pending_line.text() == "" and not box.apply_button.isEnabled() and not box.error.isVisible()
    assert (cap.value(), dreaming.isChecked(), schedule.text()) == (5000, False, "30 4 * * *")
    assert box.findChild(type(box.labels["dreaming.enabled"]), "note:dreaming.enabled").text() == \
        "plugins.entries.memory-core.config.dreaming.enabled"
    qtbot.waitUntil(lambda: win.dashboard.gauges["MEMORY.md"].budget == 5000, timeout=5000)
    grab_sizes(win, SHOTS, "settings-openclaw-applied")
    win.close()


def test_another_home_drops_the_unapplied_openclaw_edit_and_shows_config_jsons_form(gui_env, qtbot, tmp_path,
                                                                                  demo_home):
    home = copy_home("over-cap", tmp_path)
    before = (home / "openclaw.json").read_bytes()
    win = open_window(qtbot, home)
    win.tabs.setCurrentWidget(win.settings)
    s = win.settings
    qtbot.waitUntil(lambda: s.own_box.own is not None, timeout=5000)
    s.own_box.fields["bootstrapTotalMaxChars"].setValue(12000)
    assert s.unapplied() == 1
    assert win.open_workspace(str(demo_home))
    qtbot.waitUntil(lambda: s.memory_box.isVisible(), timeout=5000)
    assert not s.own_box.isVisible() and s.unapplied() == 0 and s.own_box.own is None
    assert "1 unapplied setting change dropped" in win.statusBar().currentMessage()
    jobs_done(qtbot, win.engine)
    assert (home / "openclaw.json").read_bytes() == before
    win.close()


def test_a_config_with_include_shows_its_settings_read_only_with_the_reason(gui_env, qtbot, tmp_path):
    home = copy_home("over-cap", tmp_path)
    cfg = home / "openclaw.json"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('{\n  "agents"', '{\n  "$include": "./extra.json5",\n  "agents"', 1),
                   encoding="utf-8")
    win = open_window(qtbot, home)
    win.tabs.setCurrentWidget(win.settings)
    box = win.settings.own_box
    qtbot.waitUntil(lambda: box.own is not None, timeout=5000)
    assert not any(f.isEnabled() for f in box.fields.values()) and not box.apply_button.isEnabled()
    note = box.findChild(type(box.labels["bootstrapMaxChars"]), "note:bootstrapMaxChars").text()
    assert note.startswith("agents.defaults.bootstrapMaxChars: openclaw.json has $include directives: OpenClaw merges")
    win.close()
