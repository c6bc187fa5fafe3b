"""A Dreamdesk snapshot on a home nanobot's own code made: nanobot's repository receives only a
commit of nanobot's own files, by add and commit of exactly those paths (dulwich wrote its
index: it reads from its file as git reads it); Dreamdesk's own snapshot goes by the same sha,
and nanobot's own /dream-log names it afterwards."""

import subprocess

from dreamdesk.engine.disk.git_index import index_paths
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.git_probe import watched


def _ls_files(git_dir) -> list[str]:
    return subprocess.run(["git", f"--git-dir={git_dir}", "-c", "core.quotepath=false", "ls-files", "-z"],
                          capture_output=True, text=True, check=True).stdout.split("\0")[:-1]


def test_a_snapshot_commits_only_nanobots_files_to_its_store_by_one_sha(nanobot, nanobot_home):
    ws = Workspace.open(nanobot_home.ws)
    git_dir = ws.root / ".git"
    listed = _ls_files(git_dir)
    assert listed and index_paths(git_dir) == listed
    (ws.root / "USER.md").write_text((ws.root / "USER.md").read_text() + "- Likes oolong.\n")
    store = SnapshotStore(ws)
    sha, _, commands = watched(lambda: store.snapshot("dream: restore by hand (Dreamdesk)"))
    assert store.git_dir != git_dir and not store.git_dir.is_relative_to(ws.root)
    assert sha and subprocess.run(["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], capture_output=True,
                                  text=True, check=True).stdout.strip() == sha
    changed = subprocess.run(["git", f"--git-dir={git_dir}", "show", "--format=", "--name-only", sha],
                             capture_output=True, text=True, check=True).stdout.split()
    assert changed == ["USER.md"] and _ls_files(git_dir) == listed
    assert commands.count("add") == 2 and commands.count("commit") == 2     # nanobot's store, then ours
    assert store.resolve(sha[:8]) == sha and "Likes oolong." in store.file_at(sha, "USER.md")
    log = nanobot.dream_log(nanobot_home)
    assert sha[:8] in log
