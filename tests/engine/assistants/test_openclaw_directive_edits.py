"""USER.md's directives changed as OpenClaw's user model changes them (issue 29 item 1): add,
supersede in place (the old one kept, marked superseded with its own day, its replacement right
after it observed today) and retire; each read back by openclaw_directives as meant, written
through the edit path (undoable), refused in words when it does not fit."""

from __future__ import annotations

import datetime as dt

import pytest

from dreamdesk.engine.assistants import assistant_of, open_home
from dreamdesk.engine.assistants.openclaw_directive_edits import add, retire, supersede
from dreamdesk.engine.assistants.openclaw_directives import parse_directives
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.ops.edit import apply_action
from dreamdesk.engine.recovery.restore import restore_snapshot
from helpers.openclaw_homes import copy_home
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

DAY = dt.date(2026, 12, 7)
USER = """# USER.md - User Model

## Directives

<!-- observed: 2026-12-04 | status: active -->

- Prefer green tea; never suggest coffee after noon.

<!-- observed: 2026-12-03 | status: active -->

- Always give the command first.
"""


def states(text: str) -> list[tuple[str, str, str, int | None]]:
    return [(d.observed, d.status, d.text, d.replaced_by) for d in parse_directives(text).directives]


def test_supersede_keeps_the_old_one_marked_beside_its_replacement_observed_today():
    out = supersede(USER, 1, "Prefer rooibos after noon.", DAY)
    assert states(out) == [("2026-12-04", "superseded", "- Prefer green tea; never suggest coffee after noon.", 1),
                           ("2026-12-07", "active", "- Prefer rooibos after noon.", None),
                           ("2026-12-03", "active", "- Always give the command first.", None)]
    assert parse_directives(out).problems == ()
    assert out.replace("status: superseded", "status: active").replace(
        "\n<!-- observed: 2026-12-07 | status: active -->\n\n- Prefer rooibos after noon.\n", "") == USER


def test_add_and_retire_and_what_is_refused():
    added = add(USER, "Answer in English.", DAY)
    assert added == USER + "\n<!-- observed: 2026-12-07 | status: active -->\n\n- Answer in English.\n"
    assert states(retire(USER, 2))[1] == ("2026-12-03", "superseded", "- Always give the command first.", None)
    with pytest.raises(WorkspaceError, match="there is no directive 3"):
        retire(USER, 3)
    with pytest.raises(WorkspaceError, match="directive 1 is superseded, not active"):
        supersede(retire(USER, 1), 1, "x", DAY)
    with pytest.raises(WorkspaceError, match="a directive is one entry"):
        add(USER, "one\n\ntwo", DAY)


def test_a_supersede_on_an_openclaw_home_is_an_undoable_edit(tmp_path):
    home = copy_home("dreamed", tmp_path)
    ws = open_home(home)
    user = home / "workspace" / "USER.md"
    raw = user.read_bytes()
    assert assistant_of(ws).edit_actions("USER.md") == ("add directive", "supersede directive", "retire directive")
    before = len(parse_directives(user.read_text(encoding="utf-8")).directives)
    done = apply_action(ws, "USER.md", "supersede directive", {"n": 2, "text": "Prefer rooibos.", "day": DAY}, "test")
    assert done.value.edit.written and done.message.startswith("Saved USER.md")
    found = parse_directives(user.read_text(encoding="utf-8")).directives
    assert len(found) == before + 1 and (found[1].status, found[2].observed, found[2].text) == (
        "superseded", "2026-12-07", "- Prefer rooibos.")
    restore_snapshot(ws, done.value.edit.before, "USER.md")
    assert user.read_bytes() == raw
    with pytest.raises(WorkspaceError, match="MEMORY.md has no action 'retire directive' on this home"):
        apply_action(ws, "MEMORY.md", "retire directive", {"n": 1}, "test")


def test_the_contracts_homes_offer_no_directive_actions(demo_home):
    ws = open_home(demo_home)
    with pytest.raises(WorkspaceError, match="its actions: none"):
        apply_action(ws, "USER.md", "add directive", {"text": "x"}, "test")
