"""A Dreamdesk snapshot in the git store nanobot's own code made (dulwich writes its index): the
index reads from its file as git reads it, so the snapshot runs two git processes, and nanobot's
own /dream-log names it afterwards."""

import subprocess

from dreamdesk.engine.git_index import index_paths
from dreamdesk.engine.snapshots import SnapshotStore
from dreamdesk.engine.workspace import Workspace
from test_snapshot_processes import started


def test_a_snapshot_in_nanobots_own_git_store_runs_add_and_commit(nanobot, nanobot_home):
    ws = Workspace.open(nanobot_home.ws)
    git_dir = ws.root / ".git"
    listed = subprocess.run(["git", f"--git-dir={git_dir}", "-c", "core.quotepath=false", "ls-files", "-z"],
                            capture_output=True, text=True, check=True).stdout.split("\0")[:-1]
    assert listed and index_paths(git_dir) == listed
    (ws.root / "USER.md").write_text((ws.root / "USER.md").read_text() + "- Likes oolong.\n")
    sha, commands = started(lambda: SnapshotStore(ws).snapshot("dream: restore by hand (Dreamdesk)"))
    assert commands == ["add", "commit"] and sha
    log = nanobot.dream_log(nanobot_home)
    assert sha[:8] in log
