"""engine/ops (issue 27): one function per user operation, each returning its payload, the change
record of what it wrote and the words to tell the person; a failing one writes nothing and says
why in words. The CLI calls the same functions (the last tests here read cli.py for it)."""

from __future__ import annotations

import ast
import json
import logging
from datetime import date
from pathlib import Path

import pytest

from conftest import REPO, tree_state
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.core.state import lock_path, workspace_state_dir
from dreamdesk.engine.disk.changes import Changes
from dreamdesk.engine.disk.files import FileLock, LockHeld
from dreamdesk.engine.dream.run import DreamOptions
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.lint.memory_lint import lint
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.llm.resolve import Overrides, resolve_model
from dreamdesk.engine.ops import (archive_delete, archive_restore, compact, dream, dry_run, edit, lint_fix, pin,
                                  restore, settings, watch)
from dreamdesk.engine.ops.result import CLI
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.recovery.restore import UndoChanged
from dreamdesk.engine.versions.snapshots import SnapshotStore
from helpers.llm_server import turn

USER = "# User\n\n## Identity\n- Name: Maya\n- Lives in Porto\n\n## Plans\n- Dentist on 3 Nov 2026\n"
MEMORY = "# Memory\n\n## Projects\n- Blog runs on Hugo\n"
GUI_VIEW = "files"          # an initiator as the window passes it: the view's tab name


@pytest.fixture
def ws(make_workspace) -> Workspace:
    root = make_workspace({
        "SOUL.md": "# Soul\n\n- Be brief.\n", "USER.md": USER, "memory/MEMORY.md": MEMORY,
        "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                            "content": "- [durable] Maya moved to Lisbon", "session_key": "x"}) + "\n",
        "memory/.cursor": "1", "memory/.dream_cursor": "0", "config.json": "{}\n",
    })
    return Workspace.open(root)


def everything(ws: Workspace) -> dict:
    """The workspace and Dreamdesk's state for it: what any write would change."""
    state = workspace_state_dir(ws.root)
    return {"ws": tree_state(ws.root), "state": tree_state(state) if state.is_dir() else {}}


def unchanged_by(ws: Workspace, call, needle: str) -> str:
    """`call` fails saying `needle`, and nothing on disk changed (the job lock's own file aside);
    its words, for the test to read."""
    before = everything(ws)
    with pytest.raises(WorkspaceError, match=needle) as refused:
        call()
    after = everything(ws)
    after["state"] = {k: v for k, v in after["state"].items() if not k.startswith("locks")}
    before["state"] = {k: v for k, v in before["state"].items() if not k.startswith("locks")}
    assert after == before
    return str(refused.value)


# -- the record and the words ---------------------------------------------------------------------
def test_a_pin_is_dreamdesks_own_state_and_says_so_in_the_clis_words(ws):
    before = tree_state(ws.root)
    done = pin.pin(ws, "USER.md", GUI_VIEW, text="Lives in Porto")
    p, new = done.value
    assert new and p.text == "- Lives in Porto" and done.initiator == GUI_VIEW
    assert done.changes == Changes(state=True)          # pins live in the state folder, not the workspace
    assert done.message == "Pinned in USER.md: - Lives in Porto"
    assert tree_state(ws.root) == before
    again = pin.pin(ws, "USER.md", CLI, line=5)
    assert again.message.startswith("Already pinned in USER.md") and not again.changes     # no change, no write
    gone = pin.unpin_id(ws, p.id, GUI_VIEW)
    assert gone.message == "Unpinned in USER.md: - Lives in Porto" and gone.changes == Changes(state=True)


def test_the_log_says_who_asked_and_what_changed_but_never_quotes_an_entry(ws, caplog):
    caplog.set_level(logging.INFO, logger="dreamdesk.engine.ops")
    pin.pin(ws, "USER.md", GUI_VIEW, text="Lives in Porto")
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("dreamdesk.engine.ops")]
    assert lines == ["pin (asked by files): changed state"]
    assert "Porto" not in caplog.text


def test_an_edit_names_the_file_its_archive_and_its_snapshot(ws):
    state, _ = ws.read_file("USER.md")
    done = edit.save(ws, "USER.md", USER.replace("- Lives in Porto\n", ""), state.hash, GUI_VIEW)
    assert done.value.edit is not None and done.value.conflict is None
    assert done.changes.files == frozenset({"USER.md"}) and done.changes.archive and done.changes.snapshots
    assert done.message == "Saved USER.md; 1 removed entry archived"


def test_an_edit_that_changes_nothing_writes_nothing(ws):
    state, _ = ws.read_file("USER.md")
    before = everything(ws)
    done = edit.save(ws, "USER.md", USER, state.hash, GUI_VIEW)
    assert not done.changes and done.message == "Nothing to save: USER.md already holds this text"
    assert everything(ws)["ws"] == before["ws"]


def test_an_edit_over_a_file_changed_on_disk_is_a_question_and_writes_nothing(ws):
    state, _ = ws.read_file("USER.md")
    theirs = USER + "- Written by the assistant\n"
    (ws.root / "USER.md").write_text(theirs, encoding="utf-8")
    before = tree_state(ws.root)
    done = edit.save(ws, "USER.md", USER + "- Mine\n", state.hash, GUI_VIEW)
    assert done.value.edit is None and done.value.conflict.text == theirs
    assert done.changes == Changes(snapshots=True)      # the snapshot before the edit (their version), no file
    assert done.message == "USER.md changed on disk before your edit was saved; nothing was written"
    assert {k: v for k, v in tree_state(ws.root).items() if not k.startswith(".git")} == before


@pytest.fixture
def snapshotted(ws):
    """v1 snapshotted, then USER.md and MEMORY.md changed since (two hunks in USER.md)."""
    store = SnapshotStore(ws)
    v1 = store.snapshot("init: test")
    (ws.root / "USER.md").write_text(USER.replace("- Name: Maya", "- Name: Maya L.") + "- Runs marathons\n")
    (ws.root / "memory/MEMORY.md").write_text(MEMORY + "- Homelab on Proxmox\n")
    store.snapshot("dream: since", with_summary=True)
    return ws, store, v1


def test_a_restore_and_its_undo_say_what_they_wrote(snapshotted):
    ws, store, v1 = snapshotted
    done = restore.restore(ws, v1, GUI_VIEW)
    assert set(done.value.files) == {"USER.md", "memory/MEMORY.md"}
    assert done.changes.files == frozenset({"USER.md", "memory/MEMORY.md"}) and done.changes.snapshots
    assert done.changes.archive                        # what left USER.md and MEMORY.md
    assert done.message == (f"Restored snapshot {v1[:8]}: USER.md, memory/MEMORY.md; "
                            "3 removed entries archived")
    again = restore.restore(ws, v1, CLI, path="USER.md")
    assert again.message == f"Nothing to restore for USER.md from {v1[:8]}: the files already matched"
    undone = restore.undo(ws, GUI_VIEW)
    assert undone.message == "Undid the last restore: USER.md, memory/MEMORY.md"
    assert undone.changes.files == frozenset({"USER.md", "memory/MEMORY.md"})
    assert "Runs marathons" in (ws.root / "USER.md").read_text()


def test_an_older_restore_is_undone_by_its_id_and_said_so(snapshotted):
    ws, store, v1 = snapshotted
    first = restore.restore(ws, v1, CLI, path="memory/MEMORY.md").value
    restore.restore(ws, v1, CLI, path="USER.md")
    done = restore.undo(ws, GUI_VIEW, first.id)
    assert done.message == f"Undid restore {first.id}: memory/MEMORY.md"


def test_the_stale_hunk_rule_holds_through_the_op(snapshotted):
    """Hunk 1 as the person saw it, then the file moved on: hunk 1 is another change now."""
    ws, store, v1 = snapshotted
    shown = store.diff(v1, paths=["USER.md"])[0].hunks[0]
    (ws.root / "USER.md").write_text((ws.root / "USER.md").read_text().replace("- Name: Maya L.", "- Name: M."))
    unchanged_by(ws, lambda: restore.restore(ws, v1, GUI_VIEW, path="USER.md", hunk=1, hunk_id=shown.id),
                 "changed since this diff was shown")
    now = store.diff(v1, paths=["USER.md"])[0].hunks[0]
    done = restore.restore(ws, v1, GUI_VIEW, path="USER.md", hunk=1, hunk_id=now.id)
    assert done.message.startswith(f"Restored USER.md hunk 1 from {v1[:8]}: USER.md")
    assert "- Name: Maya\n" in (ws.root / "USER.md").read_text()


def test_a_hunk_id_without_its_hunk_is_refused_in_words(snapshotted):
    ws, store, v1 = snapshotted
    said = unchanged_by(ws, lambda: restore.restore(ws, v1, CLI, path="USER.md", hunk_id="0123abcd"),
                        "name the hunk")
    assert said == "a hunk id names the change of one hunk: name the hunk (FILE:N) too"


def test_an_undo_over_a_later_change_writes_nothing_and_says_why(snapshotted):
    ws, store, v1 = snapshotted
    restore.restore(ws, v1, CLI, path="USER.md")
    (ws.root / "USER.md").write_text((ws.root / "USER.md").read_text() + "- Added after the restore\n")
    before = everything(ws)
    with pytest.raises(UndoChanged, match="USER.md changed since that restore"):
        restore.undo(ws, GUI_VIEW)
    assert everything(ws)["ws"] == before["ws"]


def test_undos_made_together_are_one_result(snapshotted):
    ws, store, v1 = snapshotted
    ids = [restore.restore(ws, v1, CLI, path=p).value.id for p in ("memory/MEMORY.md", "USER.md")]
    done = restore.undo_together(ws, ids, "archive")
    assert done.value.files == ["USER.md", "memory/MEMORY.md"]
    assert done.message == "Undid the 2 restores made together: USER.md, memory/MEMORY.md"


# -- archive ---------------------------------------------------------------------------------------
@pytest.fixture
def archived(ws):
    """Two entries archived by an edit that removed them."""
    state, _ = ws.read_file("USER.md")
    edit.save(ws, "USER.md", "# User\n\n## Identity\n- Name: Maya\n", state.hash, CLI)
    return ws, {r.text: r.id for r in read_archive(ws).records}


def test_archived_entries_come_back_and_one_bad_id_hides_no_other(archived):
    ws, ids = archived
    done = archive_restore.restore_entries(ws, [ids["- Lives in Porto"], "a-nope"], "archive",
                                           pin=[ids["- Lives in Porto"]])
    assert [rid for rid, _r in done.value.restored] == [ids["- Lives in Porto"]]
    assert done.value.pinned == [ids["- Lives in Porto"]] and len(done.value.undoable) == 1
    assert done.message == ("Restored 1 entry to USER.md. not restored: a-nope: no archive entry with id a-nope. "
                            "pinned 1 entry")
    assert done.changes.files == frozenset({"USER.md"}) and done.changes.state and done.changes.snapshots
    assert "- Lives in Porto" in (ws.root / "USER.md").read_text()


def test_more_entries_than_a_restore_takes_are_refused_before_any_write(archived):
    ws, ids = archived
    said = unchanged_by(ws, lambda: archive_restore.restore_entries(ws, [ids["- Lives in Porto"]] * 101, "archive"),
                        "restore at most 100 at a time")
    assert said == "101 entries are selected; restore at most 100 at a time (each one takes a snapshot first)"


def test_one_archived_entry_back_in_the_clis_words(archived):
    ws, ids = archived
    rid = ids["- Dentist on 3 Nov 2026"]
    done = archive_restore.restore_entry(ws, rid, CLI)
    assert done.message == f"Restored {rid} into USER.md." and done.changes.files == frozenset({"USER.md"})
    again = archive_restore.restore_entry(ws, rid, CLI)
    assert again.message == "USER.md already holds this entry; nothing to restore" and not again.changes


def test_an_archive_delete_waits_for_no_other_job_and_writes_nothing_while_one_runs(archived, brief_job_lock_wait):
    """The CLI took the job lock around a delete, the window did not: the op takes it for both."""
    ws, ids = archived
    rid = ids["- Lives in Porto"]
    held = FileLock(lock_path(ws.root, "job"), timeout=1, what="another Dreamdesk job on this workspace").acquire()
    try:
        before = tree_state(ws.root)
        with pytest.raises(LockHeld):
            archive_delete.delete_entries(ws, [rid], "archive")
        assert tree_state(ws.root) == before
    finally:
        held.release()
    done = archive_delete.delete_entries(ws, [rid], "archive")
    assert done.message == "Deleted 1 archived entry; scrubbed 0 run record(s)" and done.changes.archive


# -- settings --------------------------------------------------------------------------------------
def test_settings_say_what_was_written_where(ws):
    done = settings.set_settings(ws, {"intervalH": "4"}, "settings")
    assert done.message == f"intervalH = 4 written to {ws.root / 'config.json'}" and done.changes.config
    nothing = settings.reapply(ws, "dashboard")
    assert not nothing.changes and nothing.message.startswith("Nothing to re-apply")
    assert settings.forget(ws, None, CLI).message == "Forgot 1 setting(s); config.json untouched"
    assert settings.forget(ws, None, CLI).message == "Nothing to forget."


def test_a_config_json_that_cannot_be_read_is_never_rewritten_in_the_clis_words(ws):
    """The CLI's rule, the window's too now (the funnel alone said it otherwise)."""
    (ws.root / "config.json").write_text("{oops")
    said = unchanged_by(ws, lambda: settings.set_settings(ws, {"intervalH": 4}, "settings"),
                        "Dreamdesk will not rewrite a config.json it cannot read")
    assert said.startswith("config.json:1: not valid JSON (") and said.endswith(
        "; using the defaults and refusing to rewrite it; Dreamdesk will not rewrite a config.json it cannot read")


def test_setting_the_ceiling_it_already_has_writes_nothing(ws):
    first = settings.set_ceiling(ws, 50_000, "settings")
    assert first.message == "Each of Dreamdesk's Dream runs here now stops after 50,000 tokens"
    assert first.changes == Changes(state=True)
    before = everything(ws)
    again = settings.set_ceiling(ws, 50_000, CLI)
    assert not again.changes and everything(ws) == before
    off = settings.set_ceiling(ws, None, CLI)
    assert off.message == "Dreamdesk's Dream runs here have no token ceiling now"
    unchanged_by(ws, lambda: settings.set_ceiling(ws, 5, CLI), "a token ceiling is a whole number")


def test_scope_and_pass_prompts_say_the_change(ws):
    closed = settings.change_scope(ws, "settings", close=["USER.md"])
    assert closed.message == "Dreamdesk's Dream may no longer write USER.md in this workspace"
    assert closed.changes == Changes(state=True)
    saved = settings.set_pass_prompt(ws, "deduction", "Find what follows.", "prompts")
    assert saved.message == "Saved: the deduction pass now uses edited here."
    assert settings.reset_pass_prompt(ws, "deduction", CLI).message == \
        "The deduction pass now uses Dreamdesk's default."
    unchanged_by(ws, lambda: settings.set_pass_prompt(ws, "deduction", "  ", "prompts"), "needs instructions")


# -- lint, watch, compact, dream -------------------------------------------------------------------
def test_a_lint_fix_says_what_it_fixed(ws):
    finding = next(f for f in lint(ws, date(2026, 12, 2)) if f.kind == "past-date")
    done = lint_fix.fix(ws, finding, "lint")
    assert done.message == f"Fixed: {finding.fix_label}; 1 archived."
    assert done.changes.files == frozenset({"USER.md"}) and done.changes.archive


def test_the_watch_on_off_and_got_it_are_dreamdesks_state_only(ws):
    from dreamdesk.engine.recovery.watch import since_last_looked, watching
    before = tree_state(ws.root)
    on = watch.watch_on(ws, "settings")
    assert on.value == [] and on.message.startswith("The watch is on") and watching(ws)
    assert not on.changes                 # what the watch saw is its bookkeeping: nothing on screen changes
    off = watch.watch_off(ws, "settings")
    assert off.message.startswith("The watch is off") and not watching(ws)
    assert not watch.looked(ws, None, "dashboard").changes       # the first look: the files as they are
    got = watch.looked(ws, since_last_looked(ws), "dashboard")
    assert got.changes == Changes(state=True)      # the Dashboard's "since you last looked" box reads again
    assert tree_state(ws.root) == before


def test_compacting_without_a_home_says_so_and_writes_nothing(ws):
    said = unchanged_by(ws, lambda: compact.compact(ws, None, "engine"), "no home folder with sessions/")
    assert said == f"{ws.root}: no home folder with sessions/ around this workspace; nothing to compact"


def test_compacting_the_demo_without_a_model_keeps_raw_entries(demo_home):
    session = demo_home / "sessions" / "cli_direct.jsonl"
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = lines[0].replace('"last_consolidated": 20', '"last_consolidated": 0')      # 28 live messages
    session.write_text("".join(lines), encoding="utf-8")
    ws = Workspace.open(demo_home)
    done = compact.compact(ws, None, "engine")
    n = sum(r.messages for r in done.value.results)
    assert n and done.message == (f"Compacted {n} message(s) into "
                                  f"{sum(len(r.entries) for r in done.value.results)} history entr(ies).")
    assert done.changes.history and done.changes.sessions


def test_a_dream_says_its_outcome_and_its_dry_run_applies_as_it_said(ws, llm_server):
    srv = llm_server(default=turn(content="nothing to add"))
    choice, key = resolve_model(ws.config(), Overrides(provider="custom", base_url=srv.url, model="m"), ws.root)
    client = OpenAIClient(srv.url, "m", "sk-test", backoff=0.01, max_retries=1)
    before = tree_state(ws.root)
    preview = dream.dream(ws, client, choice, "engine", options=DreamOptions(dry_run=True))
    assert preview.message == preview.value.outcome and preview.value.preview is not None
    assert tree_state(ws.root) == before
    applied = dry_run.apply(ws, preview.value.preview, "engine")
    assert applied.message.startswith("Applied a previewed dry run") and applied.changes.runs


def test_applying_a_dry_run_that_did_not_complete_writes_nothing(ws):
    said = unchanged_by(ws, lambda: dry_run.apply(ws, {"status": "failed"}, "engine"), "did not complete")
    assert said == "this dry run did not complete (failed); there is nothing safe to apply"


# -- the CLI calls them ----------------------------------------------------------------------------
# What only an op may call in cli.py: the engine's write functions the ops sequence
WRITERS = {"restore_snapshot", "undo_restore", "restore_prune", "restore_record", "delete_archive_entry",
           "write_settings", "reapply", "forget", "save", "change", "set_pass", "reset_pass", "compact_now",
           "run_dream", "apply_preview", "fix_finding", "save_edit", "observe", "forget_watch"}


def _called(path: Path) -> set[str]:
    """The functions `path` calls, but those it imports from engine/ops."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ops = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
           and (node.module or "").split(".")[0] == "ops" for a in node.names}
    calls = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            calls.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return calls - ops


def test_the_cli_writes_only_through_the_ops():
    assert _called(REPO / "engine" / "cli.py") & WRITERS == set()


def test_the_check_above_sees_a_writer_called_directly(tmp_path):
    """(it could not fail if it could not see one)"""
    (tmp_path / "x.py").write_text("from .ops.settings import forget\nfrom m import pins\n"
                                   "pins.pin(ws)\nrestore_snapshot(ws, rev)\nforget(ws)\nconfig.reapply(ws)\n")
    assert _called(tmp_path / "x.py") & WRITERS == {"restore_snapshot", "reapply"}
