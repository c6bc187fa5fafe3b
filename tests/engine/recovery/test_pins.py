"""Pins: kept outside the workspace, named by text or line, alerts derived from the files now,
one-click restore, the CLI, and Dreamdesk's own Dream refusing to remove or reword a pinned
entry (a real run against the scripted loopback model)."""

import json

import pytest

from conftest import tree_state
from dreamdesk.engine.recovery import pins
from dreamdesk.engine.cli import main
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import DreamOptions, load_state, run_dream
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.recovery.restore import undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn

USER = ("# User\r\n\r\n## Identity\r\n- Name: Maya Lindqvist\r\n- Lives in Porto\r\n\r\n"
        "## Medical\r\n- Allergic to penicillin\r\n- Asthma since 2009\r\n")
MEMORY = "# Memory\n\n## Projects\n- Blog runs on Hugo\n- Homelab on Proxmox\n"


@pytest.fixture
def ws(make_workspace):
    root = make_workspace({
        "SOUL.md": "# Soul\n\n- Be brief.\n\n- Never guess a dose.\n", "USER.md": USER.encode(),
        "memory/MEMORY.md": MEMORY,
        "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                            "content": "- [durable] Maya is no longer allergic", "session_key": "x"}) + "\n",
        "memory/.cursor": "1", "memory/.dream_cursor": "0",
    })
    return Workspace.open(root)


def write(ws, rel, text):
    (ws.root / rel).write_bytes(text.encode())


# -- pinning -------------------------------------------------------------------------------------
def test_a_pin_lives_outside_the_workspace_and_names_the_entry_as_split(ws, private_state):
    before = tree_state(ws.root)
    p, new = pins.pin(ws, "USER.md", "Allergic to penicillin")          # list marker left off
    assert new and (p.file, p.text, p.heading) == ("USER.md", "- Allergic to penicillin", "## Medical")
    by_line, new2 = pins.pin(ws, "MEMORY.md", line=5)
    assert new2 and (by_line.file, by_line.text) == ("memory/MEMORY.md", "- Homelab on Proxmox")
    assert pins.pin(ws, "USER.md", "- Allergic to penicillin")[1] is False      # already pinned: no change
    assert tree_state(ws.root) == before                                        # nothing inside the workspace
    stored = json.loads((workspace_state_dir(ws.root) / "pins.json").read_text())
    assert [x["text"] for x in stored["pins"]] == ["- Allergic to penicillin", "- Homelab on Proxmox"]
    # a new process reads the same pins
    assert [x.text for x in pins.list_pins(Workspace.open(ws.root))] == [p.text, by_line.text]


@pytest.mark.parametrize("file,text,line,needle", [
    ("USER.md", "Allergic to cats", None, "no entry of USER.md reads 'Allergic to cats'"),
    ("USER.md", None, 3, "line 3 of USER.md is a heading, a blank line or a rule, not an entry"),
    ("USER.md", None, 99, "line 99 of USER.md is past the end of USER.md"),
    ("config.json", "x", None, "config.json is not a memory file"),
    ("skills/none/SKILL.md", "x", None, "skills/none/SKILL.md does not exist"),
])
def test_a_name_that_fits_no_entry_is_said_in_words(ws, file, text, line, needle):
    with pytest.raises(WorkspaceError, match="^" + needle.replace("(", r"\(")):
        pins.pin(ws, file, text, line)
    assert pins.list_pins(ws) == []


def test_unpin_by_text_even_when_the_entry_is_gone_and_by_line(ws):
    pins.pin(ws, "USER.md", "- Lives in Porto")
    pins.pin(ws, "USER.md", "- Asthma since 2009")
    write(ws, "USER.md", USER.replace("- Lives in Porto\r\n", ""))
    assert pins.unpin(ws, "USER.md", "Lives in Porto").text == "- Lives in Porto"
    assert pins.unpin(ws, "USER.md", line=8).text == "- Asthma since 2009"
    assert pins.list_pins(ws) == []
    with pytest.raises(WorkspaceError, match="no pinned entry of USER.md reads"):
        pins.unpin(ws, "USER.md", "- Asthma since 2009")


def test_an_unreadable_pins_file_is_said_and_never_written_over(ws):
    path = workspace_state_dir(ws.root, create=True) / "pins.json"
    path.write_text("{not json")
    with pytest.raises(WorkspaceError, match="pins file .* cannot be read"):
        pins.pin(ws, "USER.md", "- Lives in Porto")
    assert path.read_text() == "{not json"


# -- alerts ------------------------------------------------------------------------------------------
def test_an_alert_stays_until_the_entry_is_back_or_unpinned(ws):
    p, _ = pins.pin(ws, "USER.md", "- Allergic to penicillin")
    assert pins.pin_alerts(ws) == []
    write(ws, "USER.md", USER.replace("- Allergic to penicillin\r\n", ""))      # another writer
    alerts = pins.pin_alerts(Workspace.open(ws.root))                           # e.g. after a restart
    assert [a.pin.id for a in alerts] == [p.id] and alerts[0].message == "A pinned entry is gone from USER.md"
    assert pins.pin_alerts(ws)                                                   # still there: nothing restored it
    write(ws, "USER.md", USER)                                                   # put back by hand
    assert pins.pin_alerts(ws) == []
    write(ws, "USER.md", USER.replace("- Allergic to penicillin\r\n", ""))
    pins.unpin_id(ws, p.id)
    assert pins.pin_alerts(ws) == []


def test_what_replaced_a_pinned_entry_is_told_from_the_snapshots(ws):
    store = SnapshotStore(ws)
    store.snapshot("snapshot: start")
    pins.pin(ws, "USER.md", "- Allergic to penicillin")
    changed = USER.replace("- Allergic to penicillin", "- Was allergic to penicillin as a child")
    write(ws, "USER.md", changed)                         # not committed yet: HEAD still holds it
    [alert] = pins.pin_alerts(ws)
    assert alert.replaced_by == "- Was allergic to penicillin as a child"
    assert "now reads '- Was allergic to penicillin as a child'" in alert.message
    store.snapshot("dream: the assistant's own run")      # committed: an older snapshot still holds it
    write(ws, "USER.md", changed + "- Likes tea\r\n")
    store.snapshot("snapshot: later")
    assert pins.pin_alerts(ws)[0].replaced_by == "- Was allergic to penicillin as a child"


def test_restore_puts_a_pinned_entry_back_in_the_file_s_own_form_and_can_be_undone(ws):
    p, _ = pins.pin(ws, "USER.md", "- Allergic to penicillin")
    gone = USER.replace("- Allergic to penicillin\r\n", "")
    write(ws, "USER.md", gone)
    result = pins.restore_pin(ws, p.id)
    data = (ws.root / "USER.md").read_bytes()
    assert b"## Medical\r\n- Asthma since 2009\r\n- Allergic to penicillin\r\n" in data and b"\n" not in \
        data.replace(b"\r\n", b"")
    assert pins.pin_alerts(ws) == [] and result.undo and result.commit
    assert "pinned entry" in SnapshotStore(ws).list(1)[0].subject
    undo_restore(ws, result.id)
    assert (ws.root / "USER.md").read_bytes() == gone.encode()
    assert [a.pin.id for a in pins.pin_alerts(ws)] == [p.id]


def test_a_pinned_soul_entry_restores_too(ws):
    p, _ = pins.pin(ws, "SOUL.md", "- Never guess a dose.")
    write(ws, "SOUL.md", "# Soul\n\n- Be brief.\n")
    pins.restore_pin(ws, p.id)
    assert (ws.root / "SOUL.md").read_text() == "# Soul\n\n- Be brief.\n- Never guess a dose.\n"   # joins the list


def test_states_of_present_pins_never_run_git(ws, monkeypatch):
    pins.pin(ws, "USER.md", "- Lives in Porto")
    SnapshotStore(ws).snapshot("snapshot: start")
    calls = []
    real = SnapshotStore._git
    monkeypatch.setattr(SnapshotStore, "_git", lambda self, *a, **k: calls.append(a) or real(self, *a, **k))
    assert [s.present for s in pins.pin_states(ws)] == [True] and calls == []
    write(ws, "USER.md", USER.replace("- Lives in Porto\r\n", ""))
    assert [s.present for s in pins.pin_states(ws)] == [False] and len(calls) <= 4


# -- CLI ---------------------------------------------------------------------------------------------
def test_cli_pin_pins_unpin(ws, capsys):
    root = str(ws.root)
    assert main(["pin", root, "USER.md", "Lives in Porto"]) == 0
    assert "Pinned in USER.md: - Lives in Porto" in capsys.readouterr().out
    assert main(["pin", root, "memory/MEMORY.md", "--line", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == "- Blog runs on Hugo"
    write(ws, "USER.md", USER.replace("- Lives in Porto\r\n", ""))
    assert main(["pins", root, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["file"], p["state"]) for p in out["pins"]] == [("USER.md", "missing"), ("memory/MEMORY.md", "present")]
    assert out["missing"] == 1 and set(out["pins"][0]) >= {"id", "text", "heading", "pinned_at", "replaced_by"}
    assert main(["pins", root]) == 0
    assert "MISSING  USER.md  ## Identity" in capsys.readouterr().out
    assert main(["unpin", root, "USER.md", "- Lives in Porto"]) == 0
    assert capsys.readouterr().out == "Unpinned in USER.md: - Lives in Porto\n"
    assert main(["pins", root, "--json"]) == 0
    assert [p["file"] for p in json.loads(capsys.readouterr().out)["pins"]] == ["memory/MEMORY.md"]


@pytest.mark.parametrize("argv,needle", [
    (["pin", "{ws}", "USER.md"], "name the entry by its TEXT or by --line N"),
    (["pin", "{ws}", "USER.md", "x", "--line", "2"], "name the entry by its TEXT or by --line N"),
    (["pin", "{ws}", "USER.md", "--line", "0"], "--line counts from 1"),
    (["pin", "{ws}", "USER.md", "--line", "two"], "invalid int value"),
    (["pin", "{ws}", "USER.md", "Allergic to cats"], "no entry of USER.md reads"),
    (["pin", "{ws}", "history.jsonl", "x"], "history.jsonl is not a memory file"),
    (["unpin", "{ws}", "USER.md", "- Lives in Porto"], "no pinned entry of USER.md reads"),
    (["pins", "/nonexistent/dd"], "dreamdesk:"),
])
def test_cli_bad_input_is_one_line_exit_2(ws, capsys, argv, needle):
    before = tree_state(ws.root)
    assert main([a.replace("{ws}", str(ws.root)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err
    assert tree_state(ws.root) == before


# -- Dreamdesk's own Dream keeps pinned entries ----------------------------------------------------------
def client(srv):
    return OpenAIClient(srv.url, "test-model", "sk-test", backoff=0.01, max_retries=1)


def consolidation_only(**kw):
    return DreamOptions(passes={"deduction": False, "induction": False}, **kw)


def test_dream_may_not_remove_or_reword_a_pinned_entry(ws, llm_server, capsys):
    pins.pin(ws, "USER.md", "- Allergic to penicillin")
    srv = llm_server([
        turn(("remove_fact", {"path": "USER.md", "text": "- Allergic to penicillin", "sources": [1]})),
        turn(("edit_file", {"path": "USER.md", "old_text": "- Allergic to penicillin",
                            "new_text": "- No longer allergic to penicillin"})),
        turn(("write_file", {"path": "USER.md", "content": "# User\n\n## Identity\n- Name: Maya Lindqvist\n"})),
        turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})),          # not pinned: lands
        turn(content="done"),
    ])
    res = run_dream(ws, client(srv), consolidation_only())
    text = (ws.root / "USER.md").read_text()
    assert "- Allergic to penicillin" in text and "- Lives in Porto" not in text
    tool_msgs = [m["content"] for m in srv.requests[3]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 3 and all(m.startswith("Error: refused: the entry '- Allergic to penicillin' in "
                                                    "USER.md is pinned by the user; leave it as it is")
                                       for m in tool_msgs)
    rec = records.load_run(ws, res.run_id)
    assert [r["kind"] for r in rec.refused] == ["pin"] * 3
    assert len(records.pin_refusals(rec.refused)) == 3 and records.size_refusals(rec.refused) == []
    assert "3 write(s) refused because they would have removed or changed an entry the user pinned (USER.md)" \
        in res.outcome
    assert res.status == "completed" and res.cursor_after == 1                  # never holds the batch
    assert load_state(ws)["refusal_streak"].get("USER.md", 0) == 0               # not a size matter
    assert main(["runs", str(ws.root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["refused_count"] == 3
    assert main(["runs", str(ws.root), "show", res.run_id]) == 0
    assert "! refused USER.md: would be" in capsys.readouterr().out


def test_the_review_pass_keeps_pinned_entries_too(ws, llm_server):
    pins.pin(ws, "memory/MEMORY.md", "- Blog runs on Hugo")
    srv = llm_server([
        turn(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Projects\n- Blog runs on Hugo\n",
                            "new_text": "## Projects\n"})),
        turn(content="nothing else"),
    ], default=turn(content="nothing"))
    res = run_dream(ws, client(srv), consolidation_only(force_review=True))
    assert "- Blog runs on Hugo" in (ws.root / "memory/MEMORY.md").read_text()
    rec = records.load_run(ws, res.run_id)
    assert rec.review.refused_pinned == 1 and rec.refused[0]["pass"] == "review"
    assert "(1 more refused because they would have removed or changed a pinned entry)" in res.outcome


def test_an_entry_another_writer_already_removed_does_not_block_dream(ws, llm_server):
    pins.pin(ws, "USER.md", "- Allergic to penicillin")
    write(ws, "USER.md", USER.replace("- Allergic to penicillin\r\n", ""))
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Lives in Porto"})), turn(content="ok")])
    res = run_dream(ws, client(srv), consolidation_only())
    assert records.load_run(ws, res.run_id).refused == [] and "- Lives in Porto" not in \
        (ws.root / "USER.md").read_text()
    assert len(pins.pin_alerts(ws)) == 1                                        # and nothing restored it


def test_without_snapshots_the_replacement_is_told_from_the_section_as_pinned(ws):
    pins.pin(ws, "USER.md", "- Allergic to penicillin")
    write(ws, "USER.md", USER.replace("- Allergic to penicillin", "- Allergic to penicillin and amoxicillin")
          .replace("- Lives in Porto", "- Lives in Porto, near the river"))
    assert not (ws.root / ".git").exists()
    assert pins.pin_alerts(ws)[0].replaced_by == "- Allergic to penicillin and amoxicillin"


# -- the rules' edges (issue 26 item 1) -------------------------------------------------------------
def test_dream_may_extend_a_pinned_entry_under_it_but_not_reword_it(ws, llm_server):
    """The guard compares whole entries, not substrings: '- Allergic to penicillin and amoxicillin'
    does not keep '- Allergic to penicillin' (refused). An entry added beside it, or a nested line
    added under it (the pinned lines still stand, consecutive, as contains_entry reads them), lands."""
    pins.pin(ws, "USER.md", "- Allergic to penicillin")
    srv = llm_server([
        turn(("edit_file", {"path": "USER.md", "old_text": "- Allergic to penicillin",
                            "new_text": "- Allergic to penicillin and amoxicillin"})),
        turn(("edit_file", {"path": "USER.md", "old_text": "- Allergic to penicillin",
                            "new_text": "- Allergic to penicillin\n- Allergic to amoxicillin"})),  # beside it
        turn(("edit_file", {"path": "USER.md", "old_text": "- Allergic to penicillin\n",
                            "new_text": "- Allergic to penicillin\n  Carries an epipen.\n"})),    # under it
        turn(content="done"),
    ])
    res = run_dream(ws, client(srv), consolidation_only())
    text = (ws.root / "USER.md").read_text()
    assert "- Allergic to penicillin\n  Carries an epipen.\n- Allergic to amoxicillin\n" in text
    assert "and amoxicillin" not in text
    assert [r["kind"] for r in records.load_run(ws, res.run_id).refused] == ["pin"]
    assert pins.pin_alerts(ws) == []


def test_a_pinned_entry_put_back_at_another_indentation_raises_no_alert(ws):
    """A pinned entry indented in its list comes back from Restore at its section's own level
    (insert_entry dedents it): still present, so no alert and nothing more to restore."""
    indented = USER.replace("- Allergic", "  - Allergic").replace("- Asthma", "  - Asthma")
    write(ws, "USER.md", indented)
    p, _ = pins.pin(ws, "USER.md", "Allergic to penicillin")
    assert p.text == "  - Allergic to penicillin"
    write(ws, "USER.md", indented.replace("  - Allergic to penicillin\r\n", ""))
    assert [a.pin.id for a in pins.pin_alerts(ws)] == [p.id]
    pins.restore_pin(ws, p.id)
    assert b"\r\n- Allergic to penicillin\r\n" in (ws.root / "USER.md").read_bytes()        # dedented
    assert pins.pin_alerts(ws) == []


def test_a_deleted_memory_file_alerts_for_every_pin_it_held(ws):
    m, _ = pins.pin(ws, "memory/MEMORY.md", "- Blog runs on Hugo")
    a, _ = pins.pin(ws, "USER.md", "- Allergic to penicillin")
    b, _ = pins.pin(ws, "USER.md", "- Lives in Porto")
    SnapshotStore(ws).snapshot("snapshot: start")                    # the file's last version: nothing replaced it
    assert pins.pin_alerts(ws) == []
    (ws.root / "USER.md").unlink()
    alerts = pins.pin_alerts(ws)
    assert [s.pin.id for s in alerts] == [a.id, b.id]                  # MEMORY.md's pin is still there
    assert all(not s.file_exists and s.replaced_by is None and
               s.message == "A pinned entry is gone from USER.md, which no longer exists" for s in alerts)
    assert [s.present for s in pins.pin_states(ws)] == [True, False, False]
