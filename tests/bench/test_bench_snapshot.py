"""Benchmark (issue 14 row 4): Dreamdesk's snapshot of a one-file change in a 500-commit
repository against `git add <file>` + `git commit -q -m …` on an equal repository, interleaved
A,B,A,B; target ≤ 1.2×. Run with `python -m pytest -m bench tests/bench/test_bench_snapshot.py`
(the table prints without -s). The default run counts the git processes instead
(tests/engine/versions/test_snapshot_processes.py: two, `add` and `commit`)."""

import subprocess
import time

import pytest
from bench_harness import interleave, publish, table
from test_bench_commit_log import build_history

from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import NANOBOT_GITIGNORE, git_env

pytestmark = pytest.mark.bench
COMMITS = 500
ROUNDS = 21


def checked_out(path):
    """The 500-commit history of test_bench_commit_log, its files in the work tree and index,
    and nanobot's .gitignore committed on top (as every nanobot workspace has it)."""
    build_history(path, COMMITS)
    (path / ".gitignore").write_text(NANOBOT_GITIGNORE)
    for step in (["reset", "-q", "--hard"], ["add", ".gitignore"], ["commit", "-q", "-m", "init: .gitignore"]):
        subprocess.run(["git", "-C", str(path), *step], check=True, env=git_env())
    return path


def test_snapshot_of_a_one_file_change_vs_git_add_and_commit(tmp_path):
    ours_ws, base_ws = checked_out(tmp_path / "ours"), checked_out(tmp_path / "base")
    ws = Workspace.open(ours_ws)
    env = git_env()

    def change():
        stamp = f"- fact {time.perf_counter_ns()}\n"
        for root in (ours_ws, base_ws):
            with open(root / "USER.md", "a", encoding="utf-8") as f:
                f.write(stamp)

    def ours():
        assert SnapshotStore(ws).snapshot("edit: USER.md")

    def base():
        subprocess.run(["git", "-C", str(base_ws), "add", "USER.md"], check=True, env=env)
        subprocess.run(["git", "-C", str(base_ws), "commit", "-q", "-m", "edit: USER.md"], check=True, env=env)

    row = interleave(f"snapshot of a one-file change, {COMMITS} commits", ours, base, ROUNDS, target=1.2, setup=change)
    publish(table("Snapshot commit (issue 14 row 4)", [row], baseline="git add + git commit"))
    assert row.ratio <= row.target
