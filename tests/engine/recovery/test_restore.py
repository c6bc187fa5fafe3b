"""Restores: a whole snapshot, one file, one hunk; each undoable, each archiving what it removes,
none rolling back the archive or the dream logs, none writing through a link out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, tree_state
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.cli import main
from dreamdesk.engine.disk.files import LockHeld
from dreamdesk.engine.core.problems import ConflictError, UnsafePathError, WorkspaceError
from dreamdesk.engine.recovery.restore import restore_snapshot, undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import DREAM_SOUL, DREAM_USER, INIT_USER, build_nanobot_repo, git

FACTS = [f"- fact {i}: something about Inès" for i in range(1, 21)]


def user_text(facts: list[str]) -> str:
    return "# User\n\n## Facts\n" + "\n".join(facts) + "\n\n## Preferences\n- Short answers.\n"


V1 = {
    "SOUL.md": "I am Jenny.\nI am calm.\n",
    "USER.md": user_text(FACTS),
    "memory/MEMORY.md": "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n",
    "memory/.dream_cursor": "5",
    "memory/.cursor": "12",
    "memory/archive/2026-01.jsonl": "",
    "memory/dreams/r1.md": "# Dream r1\n",
    "skills/weekly-review/SKILL.md": "# Weekly review\nFriday 16:00.\n",
}


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode("utf-8"))


def read(root: Path, rel: str) -> bytes:
    return (root / rel).read_bytes()


@pytest.fixture
def history(make_workspace):
    """A workspace with two snapshots: v1, then a dream that changed everything (v2), and the
    working files at v2. Returns (root, ws, v1 sha, v2 sha)."""
    root = make_workspace(V1)
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    v1 = store.snapshot("init: test")
    facts = list(FACTS)
    facts[1] = "- fact 2: CHANGED by dream"          # hunk 1 region
    del facts[11]                                     # hunk 2 region: "- fact 12" removed
    facts.append("- fact 21: added by dream")
    write(root, "USER.md", user_text(facts))
    write(root, "SOUL.md", "I am Jenny.\nI am calm and brief.\n")
    write(root, "memory/MEMORY.md", "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n- Backups at 03:00.\n")
    write(root, "memory/.dream_cursor", "9")
    write(root, "memory/archive/2026-01.jsonl",
          '{"id": "a-20260105-1", "archived_at": "2026-01-05T10:00:00+01:00", "file": "USER.md", '
          '"text": "- fact 12: something about Inès", "reason": "dream", "run": "r2", "replaced_by": null}\n')
    write(root, "memory/dreams/r2.md", "# Dream r2\n")
    write(root, "skills/weekly-review/SKILL.md", "# Weekly review\nFriday 17:00.\n")
    v2 = store.snapshot("dream: periodic memory consolidation", with_summary=True)
    return root, ws, v1, v2


MEMORY_FILES = ["SOUL.md", "USER.md", "memory/MEMORY.md", "skills/weekly-review/SKILL.md"]


def outside_git(root: Path) -> dict:
    """Every file of the workspace with its bytes and mtime, leaving out the snapshot repository,
    the lock files, and folders (whose mtime a lock file's creation changes)."""
    return {k: v for k, v in tree_state(root).items()
            if v[0] is not None and not k.startswith(".git") and not k.endswith(".lock")}


def test_whole_restore_and_its_undo(history):
    root, ws, v1, v2 = history
    write(root, "USER.md", read(root, "USER.md").decode() + "- typed by hand, never snapshotted\n")
    before = {rel: read(root, rel) for rel in MEMORY_FILES}
    result = restore_snapshot(ws, v1)
    for rel in MEMORY_FILES:
        assert read(root, rel) == V1[rel].encode(), rel
    assert sorted(result.files) == sorted(MEMORY_FILES)
    store = SnapshotStore(ws)
    assert result.commit == store.head()
    assert git(root, "log", "-1", "--format=%s", result.commit).startswith(f"dream: restore {v1[:8]}")
    # the hand-typed line was snapshotted first, so the undo brings it back
    assert result.undo and result.undo != v2
    assert git(root, "log", "-1", "--format=%s", result.undo).startswith("snapshot: before restore")
    undo = restore_snapshot(ws, result.undo)
    for rel in MEMORY_FILES:
        assert read(root, rel) == before[rel], rel
    assert undo.commit and undo.undo == result.commit


def test_files_that_are_not_utf8_come_back_byte_for_byte(history):
    """A SOUL.md or skill in Latin-1 is restored as its snapshot holds it (never through U+FFFD),
    so restore and undo give back identical bytes; what cannot be done safely is refused."""
    root, ws, v1, v2 = history
    latin1 = "I am Jenny.\nJe suis calme, très calme.\n".encode("latin-1")
    (root / "SOUL.md").write_bytes(latin1)
    (root / "skills/weekly-review/SKILL.md").write_bytes("# Revue\nLe café à 16:00.\n".encode("latin-1"))
    store = SnapshotStore(ws)
    v3 = store.snapshot("edit: by hand in an old editor")
    write(root, "SOUL.md", "I am Jenny, in UTF-8 now.\n")
    write(root, "skills/weekly-review/SKILL.md", "# Weekly review\nFriday 18:00.\n")
    after_edit = {rel: read(root, rel) for rel in MEMORY_FILES}

    result = restore_snapshot(ws, v3)
    assert read(root, "SOUL.md") == latin1
    assert read(root, "skills/weekly-review/SKILL.md") == "# Revue\nLe café à 16:00.\n".encode("latin-1")
    restore_snapshot(ws, result.undo)                                       # and back again
    assert {rel: read(root, rel) for rel in MEMORY_FILES} == after_edit
    restore_snapshot(ws, v3, path="SOUL.md")
    assert read(root, "SOUL.md") == latin1

    write(root, "SOUL.md", "I am Jenny, in UTF-8 again.\n")
    with pytest.raises(WorkspaceError, match="not valid UTF-8 in snapshot .*hunk"):
        restore_snapshot(ws, v3, path="SOUL.md", hunk=1)
    write(root, "SOUL.md", "I am Jenny.\nI am calm.\n")
    (root / "SOUL.md").write_bytes(latin1)                                    # the working file is Latin-1
    with pytest.raises(WorkspaceError, match="not valid UTF-8.*restore the whole file"):
        restore_snapshot(ws, v1, path="SOUL.md", hunk=1)
    assert read(root, "SOUL.md") == latin1

    (root / "USER.md").write_bytes(b"# User\n- caf\xe9\n")
    v4 = store.snapshot("edit: USER.md in Latin-1")
    write(root, "USER.md", "# User\n")
    before = outside_git(root)
    with pytest.raises(WorkspaceError, match="USER.md is not valid UTF-8 .*cannot be archived"):
        restore_snapshot(ws, v4)
    assert outside_git(root) == before                                       # refused before any write
    (root / "USER.md").write_bytes(b"# User\n- caf\xe9\n")                  # as in v4: nothing to write there
    write(root, "SOUL.md", "I am someone else.\n")
    restore_snapshot(ws, v4, path="SOUL.md")
    restore_snapshot(ws, v4)                                                 # the whole restore goes on
    assert read(root, "SOUL.md") == latin1 and read(root, "USER.md") == b"# User\n- caf\xe9\n"


def test_restoring_the_current_state_changes_nothing(history):
    root, ws, v1, v2 = history
    before = outside_git(root)
    head = SnapshotStore(ws).head()
    result = restore_snapshot(ws, v2, move_cursor=True)
    assert result.files == [] and result.commit is None and result.archived == [] and result.cursor is None
    assert result.undo == head == SnapshotStore(ws).head()
    assert outside_git(root) == before


def test_single_file_restore_touches_only_that_file(history):
    root, ws, v1, v2 = history
    others = {rel: (read(root, rel), (root / rel).stat().st_mtime_ns) for rel in MEMORY_FILES if rel != "SOUL.md"}
    cursor = read(root, "memory/.dream_cursor")
    result = restore_snapshot(ws, v1, "SOUL.md")
    assert result.files == ["SOUL.md"]
    assert read(root, "SOUL.md") == V1["SOUL.md"].encode()
    assert {rel: (read(root, rel), (root / rel).stat().st_mtime_ns) for rel in others} == others
    assert read(root, "memory/.dream_cursor") == cursor
    assert git(root, "show", "--name-only", "--format=", result.commit).split() == ["SOUL.md"]


def test_hunk_restore_changes_only_that_hunk(history):
    root, ws, v1, v2 = history
    store = SnapshotStore(ws)
    (d,) = store.diff(v1, paths=["USER.md"])
    assert len(d.hunks) == 3
    before = read(root, "USER.md").decode()
    result = restore_snapshot(ws, v1, "USER.md", hunk=2)
    after = read(root, "USER.md").decode()
    assert result.files == ["USER.md"]
    # hunk 2 (fact 12 removed) is back; hunk 1 (fact 2 changed) and hunk 3 (fact 21 added) stay
    assert "- fact 12: something about Inès\n" in after
    assert "- fact 2: CHANGED by dream\n" in after and "- fact 21: added by dream\n" in after
    assert after.split("\n") == before.split("\n")[:14] + [FACTS[11]] + before.split("\n")[14:]
    (d2,) = store.diff(v1, paths=["USER.md"])
    assert [[(x.kind, x.text) for x in h.lines] for h in d2.hunks] == \
        [[(x.kind, x.text) for x in h.lines] for h in (d.hunks[0], d.hunks[2])]
    # and hunk 1 of what is left can be restored on its own, then undone
    restore_snapshot(ws, v1, "USER.md", hunk=1)
    assert "- fact 2: something about Inès\n" in read(root, "USER.md").decode()
    assert "- fact 21: added by dream\n" in read(root, "USER.md").decode()
    restore_snapshot(ws, result.undo)
    assert read(root, "USER.md").decode() == before


def test_hunk_number_out_of_range(history):
    root, ws, v1, v2 = history
    before = outside_git(root)
    for bad in (0, 4, 99):
        message = rf"USER\.md has 3 hunk\(s\) against snapshot {v1[:8]}; there is no hunk {bad}"
        with pytest.raises(WorkspaceError, match=message):
            restore_snapshot(ws, v1, "USER.md", hunk=bad)
    with pytest.raises(WorkspaceError, match="names its file"):
        restore_snapshot(ws, v1, hunk=1)
    assert outside_git(root) == before


def test_restore_archives_every_entry_it_removes(history):
    root, ws, v1, v2 = history
    write(root, "memory/MEMORY.md", "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n- Backups at 03:00.\n"
                                    "- Tailscale everywhere.\n")
    result = restore_snapshot(ws, v1)
    got = sorted((r.file, r.text, r.reason, r.heading) for r in result.archived)
    assert got == sorted([
        ("USER.md", "- fact 2: CHANGED by dream", "restore", "## Facts"),
        ("USER.md", "- fact 21: added by dream", "restore", "## Facts"),
        ("memory/MEMORY.md", "- Backups at 03:00.", "restore", "## Homelab"),
        ("memory/MEMORY.md", "- Tailscale everywhere.", "restore", "## Homelab"),
    ])
    on_disk = {r.id: r for r in read_archive(ws).records}
    assert all(on_disk[r.id].text == r.text and on_disk[r.id].reason == "restore" for r in result.archived)
    # the edited entry remembers what replaced it... and SOUL.md / skills are never archived
    assert all(r.file in ("USER.md", "memory/MEMORY.md") for r in read_archive(ws).records)


def test_move_cursor(history):
    root, ws, v1, v2 = history
    result = restore_snapshot(ws, v1, move_cursor=True)
    assert read(root, "memory/.dream_cursor") == b"5"
    assert result.cursor == (9, 5)
    assert "memory/.dream_cursor" in git(root, "show", "--name-only", "--format=", result.commit).split()
    assert read(root, "memory/.cursor") == b"12"


@pytest.mark.parametrize("odd", ["\u00b2", "\u0663", "-3", "7 8", ""])
def test_move_cursor_from_a_snapshot_whose_cursor_is_not_a_number(make_workspace, odd):
    """A snapshot's .dream_cursor that str.isdigit() accepts but is no ASCII number ('²', an
    Arabic-Indic three) leaves the cursor where it is, instead of crashing the restore."""
    files = dict(V1, **{"memory/.dream_cursor": odd})
    root = make_workspace(files)
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    old = store.snapshot("init: odd cursor")
    write(root, "memory/.dream_cursor", "9")
    write(root, "SOUL.md", "I am Jenny, changed.\n")
    store.snapshot("dream: later")
    result = restore_snapshot(ws, old, move_cursor=True)
    assert result.cursor is None and read(root, "memory/.dream_cursor") == b"9"
    assert read(root, "SOUL.md") == V1["SOUL.md"].encode()


def test_without_move_cursor_the_cursor_is_untouched(history):
    root, ws, v1, v2 = history
    st = (root / "memory/.dream_cursor").stat().st_mtime_ns
    result = restore_snapshot(ws, v1)
    assert result.cursor is None
    assert read(root, "memory/.dream_cursor") == b"9"
    assert (root / "memory/.dream_cursor").stat().st_mtime_ns == st
    # a single-file restore never moves it, even when asked
    result = restore_snapshot(ws, v2, "SOUL.md", move_cursor=True)
    assert result.cursor is None and read(root, "memory/.dream_cursor") == b"9"


def test_archive_and_dreams_are_never_rolled_back(history):
    root, ws, v1, v2 = history
    archive_before = read(root, "memory/archive/2026-01.jsonl")
    restore_snapshot(ws, v1, move_cursor=True)
    assert read(root, "memory/archive/2026-01.jsonl").startswith(archive_before)
    assert read(root, "memory/dreams/r2.md") == b"# Dream r2\n"
    assert read(root, "memory/dreams/r1.md") == b"# Dream r1\n"
    ids = [r.id for r in read_archive(ws).records]
    assert "a-20260105-1" in ids and len(ids) == len(set(ids))


def test_restoring_a_file_the_snapshot_lacks(history):
    root, ws, v1, v2 = history
    write(root, "skills/new/SKILL.md", "# New\n")
    with pytest.raises(WorkspaceError, match=rf"snapshot {v1[:8]} does not hold skills/new/SKILL.md"):
        restore_snapshot(ws, v1, "skills/new/SKILL.md")
    for rel in ("config.json", "memory/history.jsonl", "memory/archive/2026-01.jsonl", "../outside.md"):
        with pytest.raises(WorkspaceError):
            restore_snapshot(ws, v1, rel)
    # a whole restore leaves the file the snapshot lacks as it is
    restore_snapshot(ws, v1)
    assert read(root, "skills/new/SKILL.md") == b"# New\n"


def test_symlink_leading_outside_is_refused(history, tmp_path):
    root, ws, v1, v2 = history
    outside = tmp_path / "outside-user.md"
    outside.write_bytes(b"- someone else's file\n")
    (root / "USER.md").unlink()
    (root / "USER.md").symlink_to(outside)
    soul = read(root, "SOUL.md")
    with pytest.raises(UnsafePathError):
        restore_snapshot(ws, v1)
    with pytest.raises(UnsafePathError):
        restore_snapshot(ws, v1, "USER.md")
    with pytest.raises(UnsafePathError):
        restore_snapshot(ws, v1, "USER.md", hunk=1)
    assert outside.read_bytes() == b"- someone else's file\n"
    assert (root / "USER.md").is_symlink()
    assert read(root, "SOUL.md") == soul                 # refused before anything was written


def test_a_snapshot_taken_through_a_symlink_never_restores_the_link_path(make_workspace, tmp_path):
    """USER.md kept in a dotfiles folder and linked into the workspace: the snapshot must not
    record the link's target path as if it were USER.md's text, and restoring it must never
    write that path into USER.md."""
    root = make_workspace({"SOUL.md": "soul\n"})
    outside = tmp_path / "dotfiles-USER.md"
    outside.write_bytes(b"- real content\n")
    (root / "USER.md").symlink_to(outside)
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    sha = store.snapshot("init: x")
    assert "USER.md" not in store.memory_files_at(sha)            # a link is not a memory file: not recorded
    (root / "USER.md").unlink()
    write(root, "USER.md", "- now a regular file\n")
    restore_snapshot(ws, sha)
    assert read(root, "USER.md") == b"- now a regular file\n"     # nothing of the link restored over it
    assert outside.read_bytes() == b"- real content\n"


class WriterDuringSnapshot(SnapshotStore):
    """Another process (nanobot's agent) writes a memory file while the pre-restore snapshot
    is being taken, i.e. after the restore read the file and before it writes it."""

    def __init__(self, ws, rel: str, text: str):
        super().__init__(ws)
        self.rel, self.text, self.done = rel, text, False

    def snapshot(self, message, with_summary=False):
        sha = super().snapshot(message, with_summary)
        if message.startswith("snapshot: before restore") and not self.done:
            self.done = True
            write(self.ws.root, self.rel, self.text)
        return sha


@pytest.mark.parametrize("rel, hunk", [("SOUL.md", None), ("USER.md", 1)])
def test_a_write_racing_the_restore_is_not_silently_lost(history, rel, hunk):
    root, ws, v1, v2 = history
    theirs = read(root, rel).decode() + "- written by nanobot during the restore\n"
    store = WriterDuringSnapshot(ws, rel, theirs)
    with pytest.raises(ConflictError, match="changed on disk since it was read; nothing was written"):
        restore_snapshot(ws, v1, rel, hunk=hunk, store=store)
    assert store.done and read(root, rel).decode() == theirs       # their write stands, the restore wrote nothing


def test_held_job_lock_makes_restore_raise(history, brief_job_lock_wait):
    root, ws, v1, v2 = history
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from dreamdesk.engine.home.workspace import Workspace
        from dreamdesk.engine.recovery.job_lock import job_lock
        with job_lock(Workspace.open({str(root)!r})):
            print("held", flush=True)
            sys.stdin.readline()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        before = read(root, "USER.md")
        with pytest.raises(LockHeld, match="another Dreamdesk job"):
            restore_snapshot(ws, v1)
        assert read(root, "USER.md") == before
    finally:
        proc.communicate("\n", timeout=10)
    assert proc.returncode == 0
    restore_snapshot(ws, v1)                              # free again
    assert read(root, "USER.md") == V1["USER.md"].encode()


# -- nanobot's repository --------------------------------------------------------------------------
def test_restore_from_nanobot_snapshots(tmp_path):
    nb = build_nanobot_repo(tmp_path / "ws")
    root = nb.root
    write(root, "USER.md", INIT_USER + "- Mentioned in chat since the last dream.\n")   # nanobot's agent wrote
    write(root, "skills/x/SKILL.md", "# X, never tracked by nanobot\n")
    ws = Workspace.open(root)
    result = restore_snapshot(ws, nb.init, "USER.md")
    assert read(root, "USER.md") == INIT_USER.encode()
    assert [r.text for r in result.archived] == ["- Mentioned in chat since the last dream."]
    skill_mtime = (root / "skills/x/SKILL.md").stat().st_mtime_ns
    whole = restore_snapshot(ws, nb.dream)
    assert read(root, "SOUL.md") == DREAM_SOUL.encode() and read(root, "USER.md") == DREAM_USER.encode()
    assert "skills/x/SKILL.md" not in whole.files
    assert read(root, "skills/x/SKILL.md") == b"# X, never tracked by nanobot\n"
    assert (root / "skills/x/SKILL.md").stat().st_mtime_ns == skill_mtime
    # nanobot's snapshot has no .dream_cursor: asking to move it changes nothing
    again = restore_snapshot(ws, nb.init, move_cursor=True)
    assert again.cursor is None and read(root, "memory/.dream_cursor") == b"1"
    kinds = [s.kind for s in SnapshotStore(ws).list()]
    assert kinds[-3:] == ["revert", "dream", "init"] and kinds.count("restore") == 3


def test_the_assistants_dream_log_names_a_restore_and_its_dream_restore_undoes_only_that(tmp_path):
    """nanobot's /dream-log shows the newest commit whose subject starts with "dream:" and its
    /dream-restore <sha> writes back that commit's parent tree. A restore is therefore a "dream:"
    commit on top of the pre-restore state, so the assistant's undo undoes the restore and
    nothing else (it used to name the older dream commit, whose revert undid the restore)."""
    nb = build_nanobot_repo(tmp_path / "ws")
    root = nb.root
    write(root, "USER.md", DREAM_USER + "- Hand-written after the revert.\n")
    ws = Workspace.open(root)
    before = {p: read(root, p) for p in ("SOUL.md", "USER.md", "memory/MEMORY.md")}
    result = restore_snapshot(ws, nb.dream, "SOUL.md")
    subjects = git(root, "log", "--format=%H %s").splitlines()
    latest_dream = next(line.split(" ", 1) for line in subjects if line.split(" ", 1)[1].startswith("dream:"))
    assert latest_dream[0] == result.commit and "(Dreamdesk)" in latest_dream[1]
    parent = git(root, "rev-parse", result.commit + "^").strip()
    for p, data in before.items():     # the parent holds exactly the state before the restore
        assert git(root, "show", f"{parent}:{p}", binary=True) == data


# -- CLI -------------------------------------------------------------------------------------------
def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_restore_hunk_prints_how_to_undo_it_and_it_undoes(capsys, history):
    root, ws, v1, v2 = history
    before = read(root, "USER.md")
    code, out, err = run(capsys, "diff", root, v1, "--file", "USER.md")
    assert "[hunk 1 · id " in out and "[hunk 3 · id " in out
    code, out, err = run(capsys, "restore", root, v1[:8], "--hunk", "USER.md:1")
    assert code == 0 and err == ""
    assert "- fact 2: something about Inès\n" in read(root, "USER.md").decode()
    assert "- fact 21: added by dream\n" in read(root, "USER.md").decode()
    undo = out.strip().splitlines()[-1]
    assert undo.startswith(f"Undo with: dreamdesk restore {root} --undo r-")
    assert "Archived 1 removed entry" in out
    code, out, err = run(capsys, "restore", root, "--undo", undo.rsplit(" ", 1)[1])
    assert code == 0, err
    assert read(root, "USER.md") == before


def test_cli_hunk_restore_refuses_a_hunk_that_is_no_longer_the_one_shown(capsys, history):
    """The stale-hunk rule is the engine's (issue 27): the CLI applies it as the GUI does."""
    import re
    root, ws, v1, v2 = history
    code, out, err = run(capsys, "diff", root, v1, "--file", "USER.md")
    shown = re.search(r"\[hunk 1 · id ([0-9a-f]{12})\]", out).group(1)
    text = read(root, "USER.md").decode()
    (root / "USER.md").write_text("- fact 0: written since\n" + text, encoding="utf-8")   # hunk 1 is another now
    before = tree_state(root)
    code, out, err = run(capsys, "restore", root, v1[:8], "--hunk", "USER.md:1", "--hunk-id", shown)
    assert code == 2 and "changed since this diff was shown, so hunk 1 is no longer the one you saw" in err
    assert tree_state(root) == before                                   # nothing written, not even a snapshot
    now = re.search(r"\[hunk 1 · id ([0-9a-f]{12})\]", run(capsys, "diff", root, v1, "--file", "USER.md")[1]).group(1)
    code, out, err = run(capsys, "restore", root, v1[:8], "--hunk", "USER.md:1", "--hunk-id", now)
    assert code == 0, err


def test_cli_restore_errors(capsys, history):
    root, ws, v1, v2 = history
    before = read(root, "USER.md")
    code, out, err = run(capsys, "restore", root, "nosuchrev")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "nosuchrev" in err
    code, out, err = run(capsys, "restore", root, v1, "--hunk", "USER.md:9")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no hunk 9" in err
    for spec in ("USER.md", "USER.md:²", "USER.md:-1"):        # '²' passes str.isdigit(), not int()
        code, out, err = run(capsys, "restore", root, v1, "--hunk", spec)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "--hunk takes FILE:N" in err, err
    assert read(root, "USER.md") == before


def test_cli_restore_json_and_cursor(capsys, history):
    import json
    root, ws, v1, v2 = history
    code, out, _ = run(capsys, "restore", root, v1, "--cursor", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["target"] == v1 and data["cursor"] == {"old": 9, "new": 5}
    assert sorted(data["files"]) == sorted(MEMORY_FILES) and len(data["archived"]) == 3
    code, out, _ = run(capsys, "restore", root, v1)
    assert code == 0 and out.startswith("Nothing to restore")


def test_a_restore_that_cannot_archive_refuses_before_writing_anything(make_workspace):
    root = make_workspace({"USER.md": "- a\n", "memory/MEMORY.md": "- m\n"})
    ws = Workspace.open(root)
    s0 = SnapshotStore(ws).snapshot("init: test")
    write(root, "USER.md", "- b\n")
    (root / "memory/MEMORY.md").write_bytes(b"- m\xff\n")         # changed outside, not UTF-8
    before = outside_git(root)
    with pytest.raises(WorkspaceError, match="MEMORY.md is not valid UTF-8.* now.*nothing was written"):
        restore_snapshot(ws, s0)
    assert outside_git(root) == before                            # USER.md not half-restored either


def test_a_restore_stopped_part_way_says_what_landed_and_how_to_undo(history, monkeypatch):
    import dreamdesk.engine.recovery.restore as restore_mod
    from dreamdesk.engine.core.problems import ConflictError
    root, ws, v1, v2 = history
    before = {rel: read(root, rel) for rel in MEMORY_FILES}
    real = restore_mod.write_memory

    def racing(ws_, rel, *a, **kw):
        if rel == "memory/MEMORY.md":                     # the assistant wrote it just now
            raise ConflictError(rel, "seen", "now")
        return real(ws_, rel, *a, **kw)
    monkeypatch.setattr(restore_mod, "write_memory", racing)
    with pytest.raises(WorkspaceError, match=r"stopped at memory/MEMORY.md .*Undo with: dreamdesk restore") as info:
        restore_snapshot(ws, v1)
    assert "--undo r-" in str(info.value)
    undo = str(info.value).rsplit(" ", 1)[1]
    monkeypatch.setattr(restore_mod, "write_memory", real)
    undo_restore(ws, undo)
    assert {rel: read(root, rel) for rel in MEMORY_FILES} == before
