"""Line endings, BOM and the final newline (issue 11, items 1 and 2): every writer keeps a
memory file's form, lines nobody changed keep their bytes, and every size counts what the
assistant injects. On real files and real git."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreamdesk.engine.recovery.archive import plan_entry_restore, read_archive, write_memory
from dreamdesk.engine.home.budgets import measure
from dreamdesk.engine.cli import main
from dreamdesk.engine.dream.tools import DiskBackend, Sandbox
from dreamdesk.engine.recovery.edits import save_edit
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.assistants.prompt import build_prompt
from dreamdesk.engine.recovery.restore import restore_archive_entry, restore_snapshot
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import git

BOM = "\ufeff"
USER_LINES = ["# User", "", "## Identity", "- Inès, 37, data engineer in Ghent.", "- Partner Joris teaches physics.",
              "", "## Preferences", "- Answer first, reasoning after.", "- Metric units."]


def crlf(lines, bom=False, final=True) -> bytes:
    text = "\r\n".join(lines) + ("\r\n" if final else "")
    return ((BOM if bom else "") + text).encode("utf-8")


def ws_with(make_workspace, user: bytes, memory: bytes = b"# Memory\n\n- Proxmox homelab.\n") -> Workspace:
    return Workspace.open(make_workspace({"USER.md": user, "SOUL.md": "I am Jenny.\n", "memory/MEMORY.md": memory}))


def user_bytes(ws: Workspace) -> bytes:
    return (ws.root / "USER.md").read_bytes()


def as_nanobot_reads(data: bytes) -> str:
    """Path.read_text(encoding="utf-8"), as nanobot 0.3.5 reads USER.md for its prompt."""
    import io
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()


def lines_changed(before: bytes, after: bytes) -> list[tuple[bytes, bytes]]:
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(a) == len(b), (a, b)
    return [(x, y) for x, y in zip(a, b) if x != y]


# -- an edit ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bom,final", [(False, True), (True, True), (True, False)])
def test_an_unchanged_save_keeps_every_byte(make_workspace, bom, final):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom, final))
    before = user_bytes(ws)
    shown = "\n".join(USER_LINES) + ("\n" if final else "")           # what the editor shows
    st = (ws.root / "USER.md").stat()
    heads = git(ws.root, "rev-list", "--all", "--count") if (ws.root / ".git").exists() else None
    result = save_edit(ws, "USER.md", shown, current_hash(ws.root / "USER.md"))
    assert user_bytes(ws) == before
    # no change, no write (issue 25 item 5): the file is not even replaced, nothing is committed
    after = (ws.root / "USER.md").stat()
    assert (after.st_ino, after.st_mtime_ns) == (st.st_ino, st.st_mtime_ns) and not result.written
    assert (git(ws.root, "rev-list", "--all", "--count") if (ws.root / ".git").exists() else None) == heads


def test_editing_one_line_of_a_crlf_bom_file_changes_only_that_line(make_workspace):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom=True))
    before = user_bytes(ws)
    shown = "\n".join(USER_LINES).replace("Metric units.", "Metric units, always.") + "\n"
    result = save_edit(ws, "USER.md", shown, current_hash(ws.root / "USER.md"))
    after = user_bytes(ws)
    assert after.startswith(BOM.encode("utf-8"))
    assert lines_changed(before, after) == [(b"- Metric units.\r\n", b"- Metric units, always.\r\n")]
    stat = git(ws.root, "show", "--numstat", "--format=", result.commit).split()
    assert stat[:3] == ["1", "1", "USER.md"]                            # the commit says one line, not all


def test_a_mixed_file_keeps_each_line_s_ending_and_new_lines_take_the_dominant_one(make_workspace):
    mixed = b"# User\r\n\r\n- one\n- two\r\n- three\r\n"
    ws = ws_with(make_workspace, mixed)
    save_edit(ws, "USER.md", "# User\n\n- one\n- two, edited\n- three\n- four\n", current_hash(ws.root / "USER.md"))
    assert user_bytes(ws) == b"# User\r\n\r\n- one\n- two, edited\r\n- three\r\n- four\r\n"


def test_lines_before_and_after_an_edit_keep_their_own_endings(make_workspace):
    mixed = b"- a\n" + b"- same\r\n" * 50 + b"- b\n- old\r\n- c\n" + b"- same\r\n" * 50 + b"- d\n"
    ws = ws_with(make_workspace, mixed)
    shown = mixed.decode().replace("\r\n", "\n").replace("- old", "- new")
    save_edit(ws, "USER.md", shown, current_hash(ws.root / "USER.md"))
    assert user_bytes(ws) == mixed.replace(b"- old", b"- new")


def test_the_final_newline_is_the_editor_s_own(make_workspace):
    ws = ws_with(make_workspace, crlf(USER_LINES, final=False))
    save_edit(ws, "USER.md", "\n".join(USER_LINES) + "\n- New.", current_hash(ws.root / "USER.md"))
    assert user_bytes(ws) == crlf(USER_LINES + ["- New."], final=False)
    save_edit(ws, "USER.md", "\n".join(USER_LINES) + "\n- New.\n", current_hash(ws.root / "USER.md"))
    assert user_bytes(ws) == crlf(USER_LINES + ["- New."], final=True)   # the person typed the newline


@given(lines=st.lists(st.tuples(st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
                                        max_size=8),
                                st.sampled_from(["\r\n", "\n", "\r"])), max_size=8),
       bom=st.booleans(), final=st.booleans())
def test_writing_back_the_shown_text_gives_back_the_bytes(lines, bom, final):
    from dreamdesk.engine.text.textform import KEEP_ENDINGS, KEEP_FORM, fit, normalise
    raw = (BOM if bom else "") + "".join(c + e for c, e in lines)
    if lines and not final:
        raw = raw[:-len(lines[-1][1])]
    if raw == BOM:
        return                        # nothing but a BOM: an emptied file, written empty
    for mode in (KEEP_FORM, KEEP_ENDINGS):
        assert fit(raw, normalise(raw), mode) == raw


# -- archive restore ----------------------------------------------------------------------------
def _archive_joris(ws: Workspace, final: bool = True) -> str:
    shown = "\n".join(line for line in USER_LINES if "Joris" not in line) + ("\n" if final else "")
    res = save_edit(ws, "USER.md", shown, current_hash(ws.root / "USER.md"))
    (rec,) = res.archived
    assert rec.text == "- Partner Joris teaches physics." and rec.heading == "## Identity"
    return rec.id


@pytest.mark.parametrize("bom,final", [(False, True), (True, True), (True, False)])
def test_an_archived_entry_goes_back_in_the_file_s_own_form(make_workspace, bom, final):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom, final))
    original = user_bytes(ws)
    rid = _archive_joris(ws, final)
    plan = plan_entry_restore(ws, rid)
    assert plan.new_text.encode("utf-8") == original
    restore_archive_entry(ws, rid)
    assert user_bytes(ws) == original                   # back where it was, CRLF on every line


def test_an_entry_under_a_heading_that_is_gone_takes_crlf_too(make_workspace):
    ws = ws_with(make_workspace, crlf(USER_LINES))
    shown = "\n".join(USER_LINES[:2] + USER_LINES[6:]) + "\n"    # the whole Identity section removed
    save_edit(ws, "USER.md", shown, current_hash(ws.root / "USER.md"))
    rec = next(r for r in read_archive(ws).records if "Joris" in r.text)
    restore_archive_entry(ws, rec.id)
    data = user_bytes(ws)
    assert b"- Partner Joris teaches physics.\r\n" in data and b"## Identity\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_cli_archive_restore_keeps_crlf(make_workspace, capsys):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom=True))
    original = user_bytes(ws)
    rid = _archive_joris(ws)
    assert main(["archive", "restore", str(ws.root), rid]) == 0
    assert f"Restored {rid} into USER.md." in capsys.readouterr().out
    assert user_bytes(ws) == original


# -- the other writers --------------------------------------------------------------------------
def test_a_hunk_restore_keeps_the_file_s_endings(make_workspace):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom=True))
    store = SnapshotStore(ws)
    sha = store.snapshot("snapshot: start")
    edited = [line.replace("Metric units.", "Imperial units.") for line in USER_LINES]
    (ws.root / "USER.md").write_bytes(crlf(edited, bom=True))
    restore_snapshot(ws, sha, path="USER.md", hunk=1, store=store)
    assert user_bytes(ws) == crlf(USER_LINES, bom=True)


def test_lines_a_hunk_brings_back_from_an_lf_snapshot_take_crlf(make_workspace):
    lf = ("\n".join(USER_LINES) + "\n").encode("utf-8")
    ws = ws_with(make_workspace, lf)
    store = SnapshotStore(ws)
    sha = store.snapshot("snapshot: lf")
    now = [line for line in USER_LINES if "Joris" not in line]
    (ws.root / "USER.md").write_bytes(crlf(now, bom=True))      # converted, and a line removed since
    d = store.diff(sha, None, ["USER.md"])[0]
    restore_snapshot(ws, sha, path="USER.md", hunk=len(d.hunks), store=store)
    data = user_bytes(ws)
    assert data.startswith(BOM.encode("utf-8")) and data.count(b"\n") == data.count(b"\r\n")


def test_a_whole_file_restore_writes_the_snapshot_s_bytes(make_workspace):
    ws = ws_with(make_workspace, b"# User\n\n- lf file.\n")
    store = SnapshotStore(ws)
    sha = store.snapshot("snapshot: start")
    (ws.root / "USER.md").write_bytes(crlf(USER_LINES, bom=True))
    restore_snapshot(ws, sha, path="USER.md", store=store)
    assert user_bytes(ws) == b"# User\n\n- lf file.\n"


def test_dream_s_tools_see_lf_text_and_leave_crlf_and_the_bom(make_workspace):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom=True),
                 memory=crlf(["# Memory", "", "- Proxmox homelab."], final=False))
    sb = Sandbox(ws, {}, DiskBackend(ws, None), [])
    out, ok = sb.call("read_file", json.dumps({"path": "USER.md"}))
    assert ok and "\r" not in out and BOM not in out
    _, ok = sb.call("edit_file", json.dumps({"path": "USER.md", "old_text": "- Metric units.\n",
                                             "new_text": "- Metric units.\n- Celsius.\n"}))
    assert ok
    assert user_bytes(ws) == crlf(USER_LINES + ["- Celsius."], bom=True)
    _, ok = sb.call("add_fact", json.dumps({"path": "memory/MEMORY.md", "text": "Backups at 03:00."}))
    assert ok
    assert (ws.root / "memory/MEMORY.md").read_bytes() == \
        crlf(["# Memory", "", "- Proxmox homelab.", "- Backups at 03:00."], final=False)


def test_write_memory_archives_nothing_for_a_bom_or_crlf_alone(make_workspace):
    ws = ws_with(make_workspace, crlf(USER_LINES, bom=True))
    _, recs = write_memory(ws, "USER.md", "\n".join(USER_LINES) + "\n", current_hash(ws.root / "USER.md"), "edit")
    assert recs == [] and read_archive(ws).records == []


# -- sizes ----------------------------------------------------------------------------------------
def test_sizes_count_what_the_assistant_injects(make_workspace):
    data = crlf(USER_LINES, bom=True)
    ws = ws_with(make_workspace, data)
    injected = as_nanobot_reads(data)
    assert injected.startswith(BOM) and "\r" not in injected
    sizes, _ = measure(ws, ws.config())
    assert next(f.chars for f in sizes if f.path == "USER.md") == len(injected)
    part = next(p for p in build_prompt(ws, ws.history(), 0).parts if p.name == "USER.md")
    assert part.text == injected and part.chars == len(injected)
