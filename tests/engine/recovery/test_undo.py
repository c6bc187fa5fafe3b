"""Undo of a restore: exactly the files it wrote, asked first when they changed since, and
available after a restart (the restore log lives in Dreamdesk's state), from the CLI too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.recovery import restore_log
from dreamdesk.engine.recovery.archive import append_records, read_archive
from dreamdesk.engine.cli import main
from dreamdesk.engine.disk.files import content_hash as sha256
from dreamdesk.engine.core.problems import ConflictError, WorkspaceError
from dreamdesk.engine.recovery.restore import UndoChanged, plan_undo, recent_restores, restore_archive_entry, restore_snapshot, undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.home.workspace import Workspace

USER = "# User\n\n## Facts\n- Lives in Lyon.\n- Has a cat.\n"
MEMORY = "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n"


@pytest.fixture
def ws(make_workspace) -> Workspace:
    root = make_workspace({"SOUL.md": "I am Jenny.\n", "USER.md": USER, "memory/MEMORY.md": MEMORY,
                           "memory/.dream_cursor": "3"})
    return Workspace.open(root)


def read(ws: Workspace, rel: str) -> bytes:
    return (ws.root / rel).read_bytes()


def write(ws: Workspace, rel: str, text: str | bytes) -> None:
    (ws.root / rel).write_bytes(text if isinstance(text, bytes) else text.encode())


def snap(ws: Workspace, message: str = "dream: test") -> str:
    return SnapshotStore(ws).snapshot(message)


def test_undo_reverts_only_the_files_its_restore_wrote(ws):
    """The seen case: restore MEMORY.md, then an archived entry into USER.md, then a hand edit of
    USER.md. Undoing the MEMORY.md restore leaves USER.md exactly as the person left it."""
    v1 = snap(ws)
    write(ws, "memory/MEMORY.md", MEMORY + "- Backups at 03:00.\n")
    write(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n")           # the cat went away
    snap(ws, "dream: pruned")
    rec = append_records(ws, [{"file": "USER.md", "text": "- Has a cat.", "reason": "dream",
                               "heading": "## Facts"}])[0]
    memory_before = read(ws, "memory/MEMORY.md")
    first = restore_snapshot(ws, v1, path="memory/MEMORY.md")
    assert first.files == ["memory/MEMORY.md"] and first.id
    restore_archive_entry(ws, rec.id)
    write(ws, "USER.md", read(ws, "USER.md").decode() + "- Typed by hand.\n")
    user_now = read(ws, "USER.md")

    result = undo_restore(ws, first.id)
    assert result.files == ["memory/MEMORY.md"]
    assert read(ws, "memory/MEMORY.md") == memory_before
    assert read(ws, "USER.md") == user_now


def test_a_file_changed_since_is_shown_and_refused_until_accepted(ws):
    v1 = snap(ws)
    write(ws, "USER.md", USER + "- Likes tea.\n")
    snap(ws, "dream: tea")
    restored = restore_snapshot(ws, v1, path="USER.md")
    write(ws, "USER.md", read(ws, "USER.md").decode() + "- Typed after the restore.\n")
    edited = read(ws, "USER.md")

    plan = plan_undo(ws)
    assert [f.path for f in plan.changed] == ["USER.md"]
    assert plan.changed[0].since == ["+ - Typed after the restore."]    # the restore's own change is not "since"
    with pytest.raises(UndoChanged, match="USER.md changed since that restore"):
        undo_restore(ws)
    assert read(ws, "USER.md") == edited                                   # nothing was written

    # accepted with the hash the person saw: a change after that is still refused
    seen = {f.path: f.current_hash for f in plan.changed}
    write(ws, "USER.md", edited.decode() + "- And more.\n")
    with pytest.raises(UndoChanged):
        undo_restore(ws, accept=seen)
    write(ws, "USER.md", edited)
    result = undo_restore(ws, restored.id, accept=seen)
    assert read(ws, "USER.md") == (USER + "- Likes tea.\n").encode()
    assert "- Typed after the restore." in [r.text for r in result.archived]    # what it dropped is archived


def test_undo_survives_a_restart_and_the_cli_lists_and_undoes(ws, capsys):
    v1 = snap(ws)
    write(ws, "SOUL.md", "I am Jenny, brief.\n")
    snap(ws)
    changed = read(ws, "SOUL.md")
    restore_snapshot(ws, v1)
    assert read(ws, "SOUL.md") == b"I am Jenny.\n"

    again = Workspace.open(ws.root)                                         # a new process, same state dir
    live = recent_restores(again)
    assert len(live) == 1 and live[0].paths == ["SOUL.md"]
    assert main(["restore", str(ws.root), "--list"]) == 0
    out = capsys.readouterr().out
    assert live[0].id in out and "wrote: SOUL.md" in out
    assert main(["restore", str(ws.root), "--undo", live[0].id[:12]]) == 0
    out = capsys.readouterr().out
    assert "Undid restore" in out and "--undo r-" in out
    assert read(ws, "SOUL.md") == changed
    assert main(["restore", str(ws.root), "--undo", live[0].id]) == 2
    assert "already undone" in capsys.readouterr().err


def test_cli_refuses_an_undo_over_later_changes_and_shows_them(ws, capsys):
    v1 = snap(ws)
    write(ws, "SOUL.md", "I am Jenny, brief.\n")
    snap(ws)
    restore_snapshot(ws, v1)
    write(ws, "SOUL.md", "I am Jenny.\nEdited later.\n")
    assert main(["restore", str(ws.root), "--undo"]) == 1
    err = capsys.readouterr().err
    assert "SOUL.md changed since that restore" in err and "+ Edited later." in err and "--force" in err
    assert read(ws, "SOUL.md") == b"I am Jenny.\nEdited later.\n"
    assert main(["restore", str(ws.root), "--undo", "--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == ["SOUL.md"]
    assert read(ws, "SOUL.md") == b"I am Jenny, brief.\n"


def test_undo_of_an_undo_redoes_and_the_list_follows(ws):
    v1 = snap(ws)
    write(ws, "SOUL.md", "v2\n")
    snap(ws)
    r = restore_snapshot(ws, v1)
    u = undo_restore(ws)
    assert read(ws, "SOUL.md") == b"v2\n"
    assert [e.id for e in recent_restores(ws)] == [u.id]                    # the undo, itself undoable
    redo = undo_restore(ws)
    assert read(ws, "SOUL.md") == b"I am Jenny.\n"
    assert [e.id for e in recent_restores(ws)] == [r.id]                    # the restore is back in effect
    assert redo.id not in [e.id for e in recent_restores(ws)]
    undo_restore(ws)
    assert read(ws, "SOUL.md") == b"v2\n"


def test_undo_puts_back_crlf_bom_and_missing_final_newline_byte_for_byte(ws):
    odd = b"\xef\xbb\xbf# User\r\n\r\n- Lives in Lyon.\r\n- Has a cat."
    write(ws, "USER.md", odd)
    snap(ws)
    v_lf = None
    write(ws, "USER.md", USER)
    v_lf = snap(ws)
    write(ws, "USER.md", odd)
    r = restore_snapshot(ws, v_lf, path="USER.md")
    assert read(ws, "USER.md") == USER.encode()
    undo_restore(ws, r.id)
    assert read(ws, "USER.md") == odd


def assistant_appends_after_the_plan(monkeypatch, target: Path, line: str) -> None:
    """The assistant (a real second process) appends `line` to `target` once the undo has planned,
    before it writes."""
    from dreamdesk.engine.recovery import restore
    real_plan = restore.plan_undo

    def plan_then_the_assistant_appends(*args, **kw):
        plan = real_plan(*args, **kw)
        subprocess.run([sys.executable, "-c", f"open({str(target)!r}, 'a').write({line + chr(10)!r})"], check=True)
        return plan
    monkeypatch.setattr(restore, "plan_undo", plan_then_the_assistant_appends)


def restore_that_creates_a_skill(ws: Workspace):
    """A restore that brings back skills/tea/SKILL.md, which was gone (its undo removes it)."""
    (ws.root / "skills" / "tea").mkdir(parents=True)
    write(ws, "skills/tea/SKILL.md", "# Tea\n")
    v1 = snap(ws)
    (ws.root / "skills/tea/SKILL.md").unlink()
    snap(ws)
    r = restore_snapshot(ws, v1, path="skills/tea/SKILL.md")
    assert read(ws, "skills/tea/SKILL.md") == b"# Tea\n"
    return r


def test_undo_of_a_restore_that_created_a_file_removes_it(ws):
    r = restore_that_creates_a_skill(ws)
    undo_restore(ws, r.id)
    assert not (ws.root / "skills/tea/SKILL.md").exists()
    assert read_archive(ws).records == []                    # only USER.md and MEMORY.md are archived


def test_a_file_the_restore_created_and_someone_writes_during_the_undo_is_not_removed(ws, monkeypatch):
    """The other side of the test above: the assistant writes the file between the undo's plan and
    its removal (a real second process). Its bytes stay; the undo is a conflict."""
    r = restore_that_creates_a_skill(ws)
    assistant_appends_after_the_plan(monkeypatch, ws.root / "skills/tea/SKILL.md", "- Steep four minutes.")
    with pytest.raises(ConflictError, match="^skills/tea/SKILL.md changed on disk since it was read; nothing was") \
            as info:
        undo_restore(ws, r.id)
    assert (info.value.expected, info.value.actual) == (sha256(b"# Tea\n"), sha256(b"# Tea\n- Steep four minutes.\n"))
    assert read(ws, "skills/tea/SKILL.md") == b"# Tea\n- Steep four minutes.\n"
    assert [e.id for e in recent_restores(ws)] == [r.id]                 # still the one to undo


def test_an_undo_of_a_restore_already_put_back_by_hand_writes_nothing(ws):
    v1 = snap(ws)
    write(ws, "SOUL.md", "v2\n")
    write(ws, "memory/MEMORY.md", MEMORY + "- Backups at 03:00.\n")
    snap(ws)
    r = restore_snapshot(ws, v1)
    assert sorted(r.files) == ["SOUL.md", "memory/MEMORY.md"]
    write(ws, "SOUL.md", "v2\n")                                          # one file put back by hand
    assert [f.path for f in plan_undo(ws, r.id).files] == ["memory/MEMORY.md"]    # only the other is undone
    write(ws, "memory/MEMORY.md", MEMORY + "- Backups at 03:00.\n")        # and then the other too
    before, log = tree_state(ws.root), restore_log.read_log(ws.root)
    result = undo_restore(ws, r.id)
    assert result.files == [] and result.commit is None and result.id is None
    assert tree_state(ws.root) == before and restore_log.read_log(ws.root) == log   # not even a snapshot
    assert result.warnings == ["the files already are as they were before that restore; nothing to write"]


def test_an_undo_of_a_restore_whose_new_file_was_deleted_by_hand_writes_nothing(ws):
    r = restore_that_creates_a_skill(ws)
    (ws.root / "skills/tea/SKILL.md").unlink()
    assert plan_undo(ws, r.id).files == []
    before = tree_state(ws.root)
    assert undo_restore(ws, r.id).commit is None and tree_state(ws.root) == before


def restore_moving_the_cursor(ws: Workspace):
    """A whole restore that moves .dream_cursor from 9 back to 3 (and SOUL.md back)."""
    v1 = snap(ws)
    write(ws, "memory/.dream_cursor", "9")
    write(ws, "SOUL.md", "v2\n")
    snap(ws)
    r = restore_snapshot(ws, v1, move_cursor=True)
    assert r.cursor == (9, 3)
    return r


def test_undo_moves_the_cursor_back_only_when_it_was_left_where_the_restore_put_it(ws):
    r = restore_moving_the_cursor(ws)
    undo_restore(ws, r.id)
    assert read(ws, "memory/.dream_cursor").strip() == b"9"
    r2 = undo_restore(ws)                   # redo, then Dream moves the cursor on
    write(ws, "memory/.dream_cursor", "5")
    plan = plan_undo(ws, r.id)
    assert plan.cursor is None and "moved since the restore" in plan.warnings[0]
    assert r2.id


def test_an_archive_restore_is_undone_exactly_and_records_what_it_returned(ws):
    rec = append_records(ws, [{"file": "USER.md", "text": "- Plays chess.", "reason": "dream", "heading": "## Facts"}])[0]
    snap(ws)
    before = read(ws, "USER.md")
    r = restore_archive_entry(ws, rec.id)
    entry = restore_log.find(restore_log.read_log(ws.root), r.id)
    assert entry.kind == "archive" and entry.returned == [rec.id]
    undo_restore(ws, r.id)
    assert read(ws, "USER.md") == before


def test_the_log_lives_in_dreamdesk_state_not_the_workspace(ws):
    v1 = snap(ws)
    write(ws, "SOUL.md", "v2\n")
    snap(ws)
    restore_snapshot(ws, v1)
    assert (workspace_state_dir(ws.root) / "restores.jsonl").is_file()
    assert not list(ws.root.rglob("restores.jsonl"))


def test_a_torn_log_line_is_skipped_and_unknown_ids_are_said_in_words(ws):
    v1 = snap(ws)
    write(ws, "SOUL.md", "v2\n")
    snap(ws)
    r = restore_snapshot(ws, v1)
    with open(restore_log.log_path(ws.root), "ab") as fh:
        fh.write(b'{"id": "r-torn", "kind": "snap')
    assert [e.id for e in recent_restores(ws)] == [r.id]
    with pytest.raises(WorkspaceError, match="no restore with id r-nope"):
        undo_restore(ws, "r-nope")


def test_no_restore_to_undo(ws):
    with pytest.raises(WorkspaceError, match="^there is no restore to undo in this workspace$"):
        plan_undo(ws)
    assert read_archive(ws).records == []


# -- the archive folded: one entry per text, and whether it is back ---------------------------------

def test_round_trips_fold_into_one_entry_that_says_whether_it_is_back(ws, capsys):
    from dreamdesk.engine.recovery.archive import folded_archive, write_memory
    v1 = snap(ws)
    state, _ = ws.read_file("USER.md")
    write_memory(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n", state.hash, "edit")   # the cat leaves
    snap(ws, "edit: USER.md")
    [cat] = folded_archive(ws)
    assert cat.latest.text == "- Has a cat." and not cat.back and cat.back_since is None

    r = restore_snapshot(ws, v1, path="USER.md")                   # back
    [cat] = folded_archive(ws)
    assert cat.back and cat.back_since == restore_log.find(restore_log.read_log(ws.root), r.id).at
    undo_restore(ws)                                                # gone again: archived a second time
    undo_restore(ws)                                                # and back (the undo undone)
    undo_restore(ws)
    undo_restore(ws)
    raw = [x for x in read_archive(ws).records if x.text == "- Has a cat."]
    assert len(raw) == 3                                            # the archive stays append-only
    [cat] = folded_archive(ws)
    assert cat.ids == [x.id for x in raw] and cat.back and cat.back_since

    assert main(["archive", str(ws.root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    e = out["entries"][0]
    # every commit that took the cat out is a row of its own too (issue 13 §2), folded into the entry
    removals = [c["id"] for c in e["commits"]]
    assert len(out["entries"]) == 1 and removals and out["total"] == 3 + len(removals)
    assert e["times_archived"] == 3 and e["back"] is True and e["back_since"] == cat.back_since
    assert e["ids"] == cat.ids + removals and e["id"] == cat.ids[-1] and e["known_from"] == "archive + commit"
    assert main(["archive", str(ws.root)]) == 0
    text = capsys.readouterr().out
    assert text.count("- Has a cat.") == 1 and "archived 3 times" in text and "back in USER.md since" in text


def test_an_entry_typed_back_by_hand_is_back_without_a_date(ws):
    from dreamdesk.engine.recovery.archive import folded_archive, write_memory
    state, _ = ws.read_file("USER.md")
    write_memory(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n", state.hash, "edit")
    write(ws, "USER.md", USER)
    [cat] = folded_archive(ws)
    assert cat.back and cat.back_since is None


def test_replaced_by_is_the_same_for_a_file_restore_a_hunk_restore_and_an_undo(ws, make_workspace):
    """One rule on every path: the entry that the same write put in the removed one's place."""
    from dreamdesk.engine.recovery.archive import write_memory
    results = {}
    for how in ("file", "hunk", "undo"):
        w = Workspace.open(make_workspace({"USER.md": USER, "memory/MEMORY.md": MEMORY, "SOUL.md": "s\n"},
                                          root=ws.root.parent / f"ws-{how}"))
        v1 = snap(w)
        state, _ = w.read_file("USER.md")
        write_memory(w, "USER.md", USER.replace("- Has a cat.", "- Has two cats."), state.hash, "edit")
        snap(w)
        n = len(read_archive(w).records)
        if how == "undo":
            r = restore_snapshot(w, v1, path="USER.md")
            n = len(read_archive(w).records)
            undo_restore(w, r.id)
        else:
            restore_snapshot(w, v1, path="USER.md", hunk=1 if how == "hunk" else None)
        new = read_archive(w).records[n:]
        results[how] = [(x.text, x.replaced_by) for x in new]
    assert results["file"] == [("- Has two cats.", "- Has a cat.")]
    assert results["hunk"] == results["file"]
    assert results["undo"] == [("- Has a cat.", "- Has two cats.")]


# -- an undo is a restore in its own right (issue 26: what mutation testing found unheld) ------------
def git_message(ws: Workspace, rev: str) -> str:
    import subprocess as sp
    return sp.run(["git", "-C", str(ws.root), "show", "-s", "--format=%B", rev], capture_output=True, text=True,
                  check=True).stdout.strip()


def test_an_undo_is_committed_logged_archived_and_undoable_in_turn(ws):
    v1 = snap(ws)
    write(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n- Moved to Paris.\n")      # the cat pruned
    write(ws, "memory/MEMORY.md", "# Memory\n\n## Homelab\n")                              # Proxmox too
    write(ws, "memory/.dream_cursor", "9")
    snap(ws, "dream: pruned")
    r = restore_snapshot(ws, v1, move_cursor=True)
    assert sorted(r.files) == ["USER.md", "memory/MEMORY.md"] and r.cursor == (9, 3)
    paris = next(a.id for a in r.archived if a.text == "- Moved to Paris.")

    result = undo_restore(ws, r.id)
    assert result.target == r.id and sorted(result.files) == ["USER.md", "memory/MEMORY.md"]
    assert result.cursor == (3, 9) and read(ws, "memory/.dream_cursor").strip() == b"9"
    assert sorted(a.text for a in result.archived) == ["- Has a cat.", "- Proxmox on the NUC."]   # both files'
    assert result.commit == SnapshotStore(ws).head()
    subject, _, summary = git_message(ws, result.commit).partition("\n\n")
    assert subject == f"dream: restore undo of snapshot {v1[:8]} (Dreamdesk)"
    assert [line for line in summary.splitlines() if not line.startswith("memory/archive/")] == [
        "USER.md: +1 -1", "memory/.dream_cursor: +1 -1", "memory/MEMORY.md: +0 -1"]
    entry = restore_log.find(restore_log.read_log(ws.root), result.id)
    assert (entry.what, entry.kind, entry.undoes, entry.returned) == (f"undo of snapshot {v1[:8]}", "undo", r.id,
                                                                     [paris])
    assert entry.cursor == (3, 9) and entry.commit == result.commit
    assert [e.id for e in recent_restores(ws)] == [result.id]            # undoable in turn


def test_an_undo_stopped_part_way_says_what_landed_and_how_to_take_it_back(ws, monkeypatch):
    """The assistant (a real second process) writes the second file between the undo's plan and
    its write: the first file is back, the second keeps the assistant's bytes, and the half undo
    is committed, logged and said with the command that undoes it."""
    v1 = snap(ws)
    write(ws, "SOUL.md", "I am Jenny, briefly.\n")
    write(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n")
    write(ws, "memory/MEMORY.md", "# Memory\n")
    snap(ws, "dream: pruned")
    r = restore_snapshot(ws, v1)
    *back, last = [w.path for w in restore_log.find(restore_log.read_log(ws.root), r.id).files]
    assistant_appends_after_the_plan(monkeypatch, ws.root / last, "- By the assistant.")
    with pytest.raises(WorkspaceError) as info:
        undo_restore(ws, r.id)
    half = recent_restores(ws)[0]
    assert str(info.value) == (f"the undo stopped at {last} ({last} changed on disk since it was read; nothing "
                               f"was written); {', '.join(back)} had already been put back. Undo this with: "
                               f"dreamdesk restore {ws.root} --undo {half.id}")
    assert len(back) == 2 and read(ws, last).endswith(b"- By the assistant.\n")
    assert (half.what, half.kind, half.undoes) == (f"undo of snapshot {v1[:8]} (stopped before {last})", "undo", r.id)
    assert [w.path for w in half.files] == back and half.returned == []
    assert git_message(ws, half.commit).startswith(
        f"dream: restore undo of snapshot {v1[:8]}, stopped before {last} (Dreamdesk)\n\n{back[0]}: +")


def test_an_undo_that_finds_soul_md_written_names_it_as_the_workspace_does(ws, monkeypatch):
    v1 = snap(ws)
    write(ws, "SOUL.md", "I am Jenny, briefly.\n")
    snap(ws, "dream: soul")
    r = restore_snapshot(ws, v1, path="SOUL.md")
    assistant_appends_after_the_plan(monkeypatch, ws.root / "SOUL.md", "Be kind.")
    with pytest.raises(ConflictError, match="^SOUL.md changed on disk since it was read; nothing was written$"):
        undo_restore(ws, r.id)
    assert read(ws, "SOUL.md") == b"I am Jenny.\nBe kind.\n"


def test_undoing_a_restore_that_created_memory_md_archives_what_it_removes(ws):
    v1 = snap(ws)
    (ws.root / "memory/MEMORY.md").unlink()
    write(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n")
    snap(ws, "dream: gone")
    r = restore_snapshot(ws, v1)                             # USER.md's cat back, MEMORY.md made anew
    write(ws, "memory/MEMORY.md", read(ws, "memory/MEMORY.md") + b"- Caf\xe9 on Fridays.\n")    # not UTF-8
    result = undo_restore(ws, r.id, force=True)
    assert not (ws.root / "memory/MEMORY.md").exists() and result.files == ["USER.md", "memory/MEMORY.md"]
    texts = sorted(["- Has a cat.", "# Memory", "## Homelab", "- Proxmox on the NUC.", "- Caf\ufffd on Fridays."])
    assert sorted(a.text for a in result.archived) == texts == sorted(a.text for a in read_archive(ws).records)
    assert {a.replaced_by for a in result.archived} == {None}


def test_an_undo_leaves_a_cursor_put_back_by_hand_and_says_one_moved_elsewhere(ws):
    r = restore_moving_the_cursor(ws)
    write(ws, "memory/.dream_cursor", "9")                      # put back by hand: nothing to say
    plan = plan_undo(ws, r.id)
    assert plan.cursor is None and plan.warnings == []
    write(ws, "memory/.dream_cursor", "5")                      # moved on by Dream: said, left as it is
    result = undo_restore(ws, r.id)
    assert result.warnings == ["memory/.dream_cursor moved since the restore (now 5); it is left as it is"]
    assert result.cursor is None and read(ws, "memory/.dream_cursor").strip() == b"5"


def test_a_log_entry_without_its_snapshot_is_refused_in_words(ws):
    """A restore the log names, whose files as they were the snapshots do not hold (no snapshot
    was taken, or it holds other bytes), is never undone half-blind."""
    snap(ws)
    write(ws, "SOUL.md", "v2\n")
    soul = restore_log.FileWrite("SOUL.md", "0" * 64, "1" * 64)
    restore_log.append(ws.root, restore_log.RestoreEntry("r-1", "2026-12-01T10:00:00+00:00", "SOUL.md by hand",
                                                         "file", None, None, [soul]))
    with pytest.raises(WorkspaceError) as info:
        undo_restore(ws, "r-1")
    assert str(info.value) == ("no snapshot was taken before restore r-1 (SOUL.md by hand), so the files as they "
                               "were cannot be put back")
    head = SnapshotStore(ws).head()
    restore_log.append(ws.root, restore_log.RestoreEntry("r-2", "2026-12-01T10:00:00+00:00", "SOUL.md again",
                                                         "file", head, None, [soul]))
    with pytest.raises(WorkspaceError) as info:
        undo_restore(ws, "r-2")
    assert str(info.value) == (f"snapshot {head[:8]} does not hold SOUL.md exactly as it was before restore r-2, so "
                               "it cannot be put back byte for byte (nothing was written)")
    assert read(ws, "SOUL.md") == b"v2\n"


def test_an_undo_returns_only_what_it_put_back(ws):
    """An entry archived long ago and typed back by hand since is in the file before and after
    the undo: the undo did not put it back, so its log entry does not claim it."""
    old = append_records(ws, [{"file": "USER.md", "text": "- Lives in Lyon.", "reason": "dream",
                               "heading": "## Facts"}])[0]
    v1 = snap(ws)
    write(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n")
    snap(ws, "dream: the cat pruned")
    r = restore_snapshot(ws, v1, path="USER.md")
    result = undo_restore(ws, r.id)
    assert [a.text for a in result.archived] == ["- Has a cat."]
    entry = restore_log.find(restore_log.read_log(ws.root), result.id)
    assert entry.returned == [] and old.id not in entry.returned
