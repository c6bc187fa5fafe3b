"""The snapshot repository heals itself after a kill: a half-made `git init` is repaired when it
holds nothing (reported with the fixing command otherwise), a stale index.lock is cleared with a
note, a live one is waited out by refusing, and a restore that cannot snapshot first writes
nothing. Repositories that hold commits are never touched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, tree_state
from helpers.lock_holder import git_working_in, holding
from dreamdesk.engine.disk import git_repair
from dreamdesk.engine.recovery.archive import append_records
from dreamdesk.engine.cli import main
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.recovery.restore import restore_archive_entry, restore_snapshot
from dreamdesk.engine.versions.snapshots import SnapshotError, SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

FILES = {"SOUL.md": "I am Jenny.\n", "USER.md": "# User\n\n## Facts\n- Lives in Lyon.\n",
         "memory/MEMORY.md": "# Memory\n"}


def age(path: Path, seconds: float) -> None:
    """Make a file (and, for a folder, everything in it) look `seconds` old."""
    t = time.time() - seconds
    for p in [path, *(path.rglob("*") if path.is_dir() else [])]:
        os.utime(p, (t, t), follow_symlinks=False)


@pytest.fixture
def ws(make_workspace) -> Workspace:
    return Workspace.open(make_workspace(FILES))


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def test_a_half_made_init_is_reported_on_read_and_repaired_by_the_next_snapshot(ws, capsys):
    git(ws.root, "init", "-q")
    import shutil
    shutil.rmtree(ws.root / ".git" / "objects")                    # the recipe from the report
    age(ws.root / ".git", 60)
    before = tree_state(ws.root)
    assert main(["snapshots", str(ws.root)]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "half-made" in err and "git --git-dir=" in err and "Traceback" not in err
    assert tree_state(ws.root) == before                            # reading repairs nothing

    store = SnapshotStore(ws)
    sha = store.snapshot("snapshot: before dream r1")
    assert sha and git_repair.half_made(store.git_dir) is None
    assert any("repaired the snapshot repository .git" in n for n in store.notes)
    assert (ws.root / ".gitignore").is_file()
    assert main(["snapshots", str(ws.root), "--json"]) == 0
    assert [s["sha"] for s in json.loads(capsys.readouterr().out)["snapshots"]] == [sha]


def test_dream_on_a_half_made_repository_takes_its_snapshot_and_says_it_repaired(demo_home, capsys):
    root = demo_home / "workspace"
    git(root, "init", "-q")
    import shutil
    shutil.rmtree(root / ".git" / "objects")
    age(root / ".git", 60)
    assert main(["dream", str(demo_home), "--replay", str(demo_home / "dream-replay.jsonl"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = out["record"]
    assert run["snapshot_before"] and not run["snapshot_error"]
    assert any("repaired" in n for n in run["snapshot_notes"])
    assert "repaired the snapshot repository" in out["outcome"]


def test_an_init_killed_holding_head_lock_is_repaired(ws):
    git(ws.root, "init", "-q")
    (ws.root / ".git" / "HEAD").rename(ws.root / ".git" / "HEAD.lock")
    age(ws.root / ".git", 60)
    store = SnapshotStore(ws)
    assert store.snapshot("init: test")
    assert not (store.git_dir / "HEAD.lock").exists()


def test_a_repository_that_holds_commits_is_never_repaired(ws):
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    (store.git_dir / "HEAD").unlink()                               # damaged, but not ours to fix
    age(store.git_dir, 60)
    before = tree_state(store.git_dir)
    with pytest.raises(SnapshotError, match="holds commits, so Dreamdesk leaves it alone"):
        store.snapshot("dream: x")
    assert tree_state(store.git_dir) == before


def test_a_repository_being_created_right_now_is_left_to_its_creator(ws):
    git(ws.root, "init", "-q")
    (ws.root / ".git" / "HEAD").rename(ws.root / ".git" / "HEAD.lock")     # fresh: mid-init
    with pytest.raises(SnapshotError, match="being created by another program"):
        SnapshotStore(ws).snapshot("init: test")
    assert (ws.root / ".git" / "HEAD.lock").exists()


@pytest.mark.parametrize("seconds", [600, 0], ids=["old", "left a moment ago by a killed git"])
def test_an_index_lock_nobody_holds_is_cleared_with_a_note_and_the_restore_goes_ahead(ws, seconds):
    """Nobody has it open and no git works in the repository: stale now, however young (the
    user retries right after the crash), not only once a minute old."""
    store = SnapshotStore(ws)
    v1 = store.snapshot("init: test")
    (ws.root / "SOUL.md").write_text("changed\n")
    store.snapshot("dream: x")
    lock = store.git_dir / "index.lock"
    lock.write_bytes(b"")
    age(lock, seconds)
    result = restore_snapshot(ws, v1, path="SOUL.md")
    assert (ws.root / "SOUL.md").read_text() == "I am Jenny.\n"
    assert any("cleared index.lock" in w for w in result.warnings)
    assert not lock.exists()


def test_a_live_index_lock_refuses_both_restores_in_words_and_nothing_is_written(ws):
    store = SnapshotStore(ws)
    v1 = store.snapshot("init: test")
    (ws.root / "USER.md").write_text("# User\n\n## Facts\n")
    store.snapshot("dream: x")
    rec = append_records(ws, [{"file": "USER.md", "text": "- Lives in Lyon.", "reason": "dream",
                               "heading": "## Facts"}])[0]
    lock = store.git_dir / "index.lock"
    lock.write_bytes(b"")
    with holding(lock) as pid:                                      # a git at work right now
        before = tree_state(ws.root)
        with pytest.raises(WorkspaceError) as info:
            restore_snapshot(ws, v1)
        assert f"index.lock is held by process {pid}" in str(info.value) and "try again" in str(info.value)
        assert "fatal:" not in str(info.value) and "File exists" not in str(info.value)
        with pytest.raises(WorkspaceError, match="was not restored: the snapshot taken before every restore failed"):
            restore_archive_entry(ws, rec.id)
        assert tree_state(ws.root) == before
    assert lock.exists()                                            # never taken from its holder


def test_a_fresh_lock_is_left_while_a_git_works_in_the_repository(ws):
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    lock = store.git_dir / "index.lock"
    lock.write_bytes(b"")
    with git_working_in(ws.root):
        assert git_repair.clear_stale_locks(store.git_dir, work_tree=ws.root) == []
        (ws.root / "SOUL.md").write_text("changed\n")
        with pytest.raises(SnapshotError, match="a git command is working in this repository right now"):
            SnapshotStore(ws).snapshot("dream: x")
        assert lock.exists()
    assert git_repair.clear_stale_locks(store.git_dir, work_tree=ws.root) == ["index.lock"]


def test_a_git_of_another_repository_does_not_keep_a_lock_alive(ws, tmp_path):
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    other = tmp_path / "elsewhere"
    other.mkdir()
    lock = store.git_dir / "index.lock"
    lock.write_bytes(b"")
    with git_working_in(other):
        assert git_repair.clear_stale_locks(store.git_dir, work_tree=ws.root) == ["index.lock"]


def test_an_old_lock_that_a_process_has_open_is_not_cleared(ws, tmp_path):
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    lock = store.git_dir / "index.lock"
    lock.write_bytes(b"")
    age(lock, 600)
    with holding(lock):
        assert git_repair.clear_stale_locks(store.git_dir) == []
        assert lock.exists()
    assert git_repair.clear_stale_locks(store.git_dir) == ["index.lock"]


@pytest.mark.parametrize("old", [False, True], ids=["fresh", "old"])
def test_a_lock_held_open_through_a_symlinked_path_is_not_cleared(ws, tmp_path, old):
    """The workspace reached through a link: /proc names the file its holder has open by its real
    path, so the lock asked about by the link's path is told held all the same."""
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    link = tmp_path / "linked-ws"
    link.symlink_to(ws.root, target_is_directory=True)
    lock = link / ".git" / "index.lock"
    lock.write_bytes(b"")
    if old:
        age(lock, 600)
    with holding(lock):
        assert git_repair.clear_stale_locks(link / ".git", work_tree=link) == []
        assert lock.exists()
    assert git_repair.clear_stale_locks(link / ".git", work_tree=link) == ["index.lock"]


@pytest.fixture
def no_proc(monkeypatch):
    """A system whose open files and processes cannot be listed (no /proc): every look says None."""
    from dreamdesk.engine.disk import processes
    for module in (processes, git_repair):
        monkeypatch.setattr(module, "holders_of", lambda path: None)
        monkeypatch.setattr(module, "git_at_work", lambda git_dir, work_tree=None: None)
    assert git_repair.open_by_someone(Path("/")) is None


@pytest.mark.parametrize("seconds, cleared", [(git_repair.STALE_LOCK_SECONDS, ["index.lock"]),
                                              (git_repair.STALE_LOCK_SECONDS - 1, [])])
def test_without_proc_a_lock_is_cleared_once_older_than_any_git_operation(ws, no_proc, seconds, cleared):
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    lock = store.git_dir / "index.lock"
    lock.write_bytes(b"")
    made = 1_800_000_000                    # whole seconds: `now - made` is exactly `seconds`
    os.utime(lock, (made, made))
    now = made + seconds
    assert git_repair.clear_stale_locks(store.git_dir, now=now, work_tree=ws.root) == cleared
    assert lock.exists() == (not cleared)


KILLER = """
import sys
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
ws = Workspace.open(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()                   # go
SnapshotStore(ws).snapshot("init: test")
"""


def _git_folder_appeared(root: Path) -> bool:
    return any(n.startswith(".git") for n in os.listdir(root))


@pytest.mark.parametrize("when", ["repo-appears", "repo-appears+1ms", "0ms", "3ms", "6ms", "10ms", "15ms"])
def test_a_kill_during_the_first_snapshot_leaves_no_repository_or_a_whole_one(make_workspace, tmp_path, when):
    """kill -9 (the whole process group) while git init / add / commit run: at the moment a git
    folder appears (watched), or after a fixed delay (the delays are the trial's kill moments)."""
    ws = Workspace.open(make_workspace(FILES, root=tmp_path / f"ws-{when}"))
    proc = subprocess.Popen([sys.executable, "-c", KILLER, str(ws.root)], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    assert proc.stdout.readline().strip() == b"ready"
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    if when.startswith("repo-appears"):
        deadline = time.monotonic() + 10
        while not _git_folder_appeared(ws.root) and time.monotonic() < deadline and proc.poll() is None:
            pass                                                    # spin: the init takes milliseconds
        if when.endswith("+1ms"):
            time.sleep(0.001)
    else:
        time.sleep(int(when[:-2]) / 1000)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stdin.close()
    git_dir = ws.root / ".git"
    assert not git_dir.exists() or git_repair.half_made(git_dir) is None
    for p in ws.root.iterdir():
        age(p, 60)                                                  # what the kill left is long stale now
    store = SnapshotStore(ws)
    store.snapshot("init: again")                                  # converges
    assert store.head() and git_repair.half_made(git_dir) is None
    assert not [p for p in ws.root.iterdir() if git_repair.INIT_TMP_TAG in p.name]


def test_temp_files_of_interrupted_writes_are_never_staged_and_old_ones_leave_the_index(ws):
    (ws.root / "memory" / "dreams").mkdir(parents=True)
    (ws.root / "memory" / "archive").mkdir(parents=True, exist_ok=True)
    (ws.root / "memory/dreams/r1.md").write_text("# Dream r1\n")
    temps = ["memory/dreams/.r2.json.dreamdesk-ab12cd.tmp", "memory/archive/.2026-12.jsonl.dreamdesk-x1.tmp"]
    for t in temps:
        (ws.root / t).write_text("half a write")
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    listed = git(ws.root, "ls-files").stdout.split()
    assert "memory/dreams/r1.md" in listed and not set(temps) & set(listed)

    # one an earlier version committed is dropped from the next snapshot (the file itself stays)
    git(ws.root, "add", "--force", temps[0])
    git(ws.root, "commit", "-qm", "edit: an old version staged a temp file")
    (ws.root / "memory/dreams/r3.md").write_text("# Dream r3\n")
    store.snapshot("dream: x")
    assert temps[0] not in git(ws.root, "ls-files").stdout.split()
    assert (ws.root / temps[0]).exists()


def test_a_corrupt_object_is_said_in_one_line_that_names_the_damage(ws, capsys):
    import zlib
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    blob = git(ws.root, "rev-parse", "HEAD:USER.md").stdout.strip()
    obj = store.git_dir / "objects" / blob[:2] / blob[2:]
    obj.chmod(0o644)
    obj.write_bytes(zlib.compress(b"blob 5\x00hello")[:-3])         # a torn object
    (ws.root / "USER.md").write_text("# changed\n")
    for argv in (["diff", str(ws.root), "HEAD"], ["snapshots", str(ws.root)]):
        assert main(argv) != 0
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "is damaged" in err and "fsck" in err


def test_a_commit_cut_short_leaves_locks_that_are_stale_not_a_half_made_repository(ws, capsys):
    """Found by the kill trials: a kill during git commit leaves HEAD.lock and the branch's
    ref lock in a whole repository. That is not a half-made one (reads go on), and once stale
    the locks are cleared by the next snapshot."""
    store = SnapshotStore(ws)
    store.snapshot("init: test")
    branch = git(ws.root, "symbolic-ref", "HEAD").stdout.strip()          # refs/heads/master or main
    locks = [store.git_dir / "HEAD.lock", store.git_dir / (branch + ".lock")]
    for lock in locks:
        lock.write_text("0" * 40 + "\n")
    assert git_repair.half_made(store.git_dir) is None
    assert main(["snapshots", str(ws.root), "--json"]) == 0                # reading is fine
    capsys.readouterr()
    (ws.root / "SOUL.md").write_text("changed\n")
    with holding(locks[0]), holding(locks[1]):
        with pytest.raises(SnapshotError):
            SnapshotStore(ws).snapshot("dream: x")                         # someone holds them
    again = SnapshotStore(ws)
    assert again.snapshot("dream: x")
    assert not any(lock.exists() for lock in locks)
    assert any("HEAD.lock" in n and branch + ".lock" in n for n in again.notes)
