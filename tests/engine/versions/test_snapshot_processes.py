"""Issue 14 row 4, structure only (the wall time is in tests/bench/test_bench_snapshot.py): the git
processes a snapshot starts, counted by Python's own audit hook, and the snapshot list kept
while HEAD stays where it was."""

import shutil
import time

from dreamdesk.engine.disk import git_head
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import build_nanobot_repo, git, head
from helpers.git_probe import watched

FILES = {"SOUL.md": "I am Jenny.\n", "USER.md": "# User\n\n- Likes tea\n", "memory/MEMORY.md": "# Memory\n",
         "memory/dreams/r1.md": "# Dream r1\n", "skills/review/SKILL.md": "# Review\n"}


def started(fn):
    """fn's result and the git subcommands it started."""
    result, _, commands = watched(fn)
    return result, commands


def ready(make_workspace):
    ws = Workspace.open(make_workspace(FILES))
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("init: first"))
    assert commands == ["init", "config", "config", "add", "commit"] and sha == head(ws.root)
    return ws


def test_a_snapshot_of_a_change_runs_two_git_processes_add_and_commit(make_workspace):
    ws = ready(make_workspace)
    (ws.root / "USER.md").write_text("# User\n\n- Likes coffee\n")
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("edit: USER.md"))
    assert commands == ["add", "commit"]
    assert sha == head(ws.root) and git(ws.root, "log", "-1", "--format=%s").strip() == "edit: USER.md"
    assert git(ws.root, "show", "--format=", "--name-only", "HEAD").split() == ["USER.md"]


def test_a_snapshot_with_nothing_changed_runs_two_git_processes_and_commits_nothing(make_workspace):
    ws = ready(make_workspace)
    before = head(ws.root)
    (ws.root / "memory" / "history.jsonl").write_text("{}\n")        # not snapshotted: no change
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("edit: nothing"))
    assert sha is None and commands == ["add", "commit"] and head(ws.root) == before


def test_a_snapshot_with_its_summary_runs_three_and_a_deletion_needs_no_ls_files(make_workspace):
    ws = ready(make_workspace)
    (ws.root / "memory" / "MEMORY.md").unlink()                      # told by the index file, not git
    (ws.root / "skills" / "review" / "SKILL.md").unlink()
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("dream: x", with_summary=True))
    assert commands == ["add", "diff", "commit"]
    assert git(ws.root, "log", "-1", "--format=%B").strip() == \
        "dream: x\n\nmemory/MEMORY.md: +0 -1\nskills/review/SKILL.md: +0 -1"
    assert git(ws.root, "ls-files").split() == [".gitignore", "SOUL.md", "USER.md", "memory/dreams/r1.md"]
    assert started(lambda: SnapshotStore(ws).snapshot("dream: y", with_summary=True)) == (None, ["add", "diff"])


def test_an_index_the_reader_cannot_vouch_for_costs_one_ls_files_and_stays_exact(make_workspace):
    ws = ready(make_workspace)
    git(ws.root, "update-index", "--split-index")                    # its paths live in a second file
    (ws.root / "memory" / "MEMORY.md").unlink()
    (ws.root / "USER.md").write_text("# User\n\n- Likes coffee\n")
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("edit: two"))
    assert commands == ["ls-files", "add", "commit"] and sha == head(ws.root)
    assert git(ws.root, "show", "--format=", "--name-status", "HEAD").split() == ["M", "USER.md", "D", "memory/MEMORY.md"]


def test_the_sha_comes_from_heads_reflog_and_without_one_from_git(make_workspace):
    ws = ready(make_workspace)
    git_dir, ours = ws.root / ".git", head(ws.root)
    since = int(git(ws.root, "log", "-1", "--format=%ct"))
    (ws.root / "SOUL.md").write_text("I am Jenny, briefly.\n")      # the assistant commits right after
    git(ws.root, "add", "SOUL.md")
    git(ws.root, "commit", "-qm", "dream: x")
    theirs = head(ws.root)
    (ws.root / "USER.md").write_text("# User\n\n- Likes oolong\n")
    again = SnapshotStore(ws).snapshot("edit: USER.md")
    me = "Dreamdesk <dreamdesk@localhost>"
    assert git_head.moved_by(git_dir, git_head.NULL, me, since) == ours
    assert git_head.moved_by(git_dir, theirs, me, since) == again == head(ws.root)
    assert git_head.moved_by(git_dir, ours, me, since) is None                   # that move was the assistant's
    assert git_head.moved_by(git_dir, git_head.NULL, me, int(time.time()) + 2) is None

    git(ws.root, "config", "core.logAllRefUpdates", "false")          # and no reflog: no line for the next one
    shutil.rmtree(git_dir / "logs")
    (ws.root / "USER.md").write_text("# User\n\n- Likes coffee\n")
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("edit: USER.md"))
    assert commands == ["add", "commit", "rev-parse"] and sha == head(ws.root) != again


def test_a_snapshot_in_the_assistants_repository_runs_two(tmp_path):
    ws = Workspace.open(build_nanobot_repo(tmp_path / "ws").root)
    (ws.root / "SOUL.md").write_text("I am Jenny, briefly.\n")
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("edit: SOUL.md"))
    assert commands == ["add", "commit"] and sha == head(ws.root)


def test_the_snapshot_list_is_kept_while_head_stays_and_read_again_when_it_moves(make_workspace):
    ws = ready(make_workspace)
    first, commands = started(lambda: SnapshotStore(ws).list())
    assert commands == ["rev-parse", "log"] and [s.subject for s in first] == ["init: first"]
    again, commands = started(lambda: SnapshotStore(ws).list())
    assert commands == [] and [s.to_json() for s in again] == [s.to_json() for s in first]

    (ws.root / "USER.md").write_text("# User\n\n- Likes coffee\n")   # the assistant commits on its own
    git(ws.root, "add", "USER.md")
    git(ws.root, "commit", "-qm", "dream: periodic memory consolidation")
    moved, commands = started(lambda: SnapshotStore(ws).list())
    assert commands == ["rev-parse", "log"]
    assert [(s.subject, s.author) for s in moved] == [("dream: periodic memory consolidation", "nanobot"),
                                                      ("init: first", "Dreamdesk")]
    assert started(lambda: SnapshotStore(ws).list())[1] == []


def test_head_set_back_lists_again_and_a_detached_head_too(make_workspace):
    ws = ready(make_workspace)
    (ws.root / "USER.md").write_text("# User\n\n- Likes coffee\n")
    SnapshotStore(ws).snapshot("edit: USER.md")
    assert len(SnapshotStore(ws).list()) == 2
    git(ws.root, "reset", "-q", "--soft", "HEAD~1")                  # the branch moves back
    back, commands = started(lambda: SnapshotStore(ws).list())
    assert commands == ["rev-parse", "log"] and [s.subject for s in back] == ["init: first"]
    git(ws.root, "pack-refs", "--all")                               # the branch now lives in packed-refs
    git(ws.root, "checkout", "-q", "--detach")
    assert [s.subject for s in SnapshotStore(ws).list()] == ["init: first"]
    assert started(lambda: SnapshotStore(ws).list())[1] == []
    git(ws.root, "commit", "-q", "--allow-empty", "-m", "dream: detached")
    assert [s.subject for s in SnapshotStore(ws).list()] == ["dream: detached", "init: first"]
