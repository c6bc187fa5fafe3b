"""Pins (issue 13 §4) against nanobot-ai 0.3.5's own Dream: entries pinned with `dreamdesk pin`
before nanobot's Dream removes one and rewrites another show as pin alerts (`dreamdesk pins
--json` missing, with what replaced the rewritten one); restoring each (the Dashboard's one
click, engine.pins.restore_pin) brings it back byte for byte and nanobot reads the home."""

from __future__ import annotations

import pytest

from dreamdesk.engine.recovery.pins import pin_alerts, restore_pin
from dreamdesk.engine.home.workspace import Workspace

from .nanobot_checks import assert_nanobot_fine, dreamdesk_json
from .nanobot_dream_runs import RUNS

PINNED = {"- Prefers dark mode": None,                               # run 1 removes it
          "- Short replies": "- Short replies, in Portuguese"}      # run 2 rewrites it


def pin_them(home):
    for text in PINNED:
        assert dreamdesk_json("pin", home, "USER.md", text)["new"] is True


@pytest.mark.parametrize("form", ["lf", "crlf-bom"])
@pytest.mark.own_dreamed_home(runs=RUNS[:2], before=pin_them)       # pinned, then nanobot's Dream ran twice
def test_a_pinned_entry_nanobots_dream_removes_is_an_alert_until_restored(nanobot, own_dreamed_home, form):
    home = own_dreamed_home
    assert home.form == form
    out = dreamdesk_json("pins", home)
    assert out["missing"] == 2
    assert {p["text"]: (p["state"], p["replaced_by"]) for p in out["pins"]} == {
        t: ("missing", r) for t, r in PINNED.items()}
    ws = Workspace.open(home.path)
    alerts = {a.pin.text: a for a in pin_alerts(ws)}
    assert alerts["- Short replies"].message == (
        "A pinned entry was changed in USER.md: it now reads '- Short replies, in Portuguese'")
    assert alerts["- Prefers dark mode"].message == "A pinned entry is gone from USER.md"
    eol = "\r\n" if form == "crlf-bom" else "\n"
    before_all = nanobot.check(home)
    for text, alert in alerts.items():
        before = (home.ws / "USER.md").read_bytes()
        res = restore_pin(ws, alert.pin.id)
        assert res.files == ["USER.md"]
        after = (home.ws / "USER.md").read_bytes()
        line = (text + eol).encode()
        at = after.find(line)     # the entry's line inserted, every other byte as it was
        assert at > 0 and after[:at] + after[at + len(line):] == before, (before, after)
        assert after.startswith(b"\xef\xbb\xbf") == (form == "crlf-bom")
    assert pin_alerts(ws) == [] and dreamdesk_json("pins", home)["missing"] == 0
    user = (home.ws / "USER.md").read_bytes().decode("utf-8-sig")
    assert {"- Short replies", "- Short replies, in Portuguese", "- Prefers dark mode"} <= set(user.split(eol))
    check = assert_nanobot_fine(nanobot, home, before_all)
    assert check["git"]["unstaged"] == [], check["git"]["unstaged"]
