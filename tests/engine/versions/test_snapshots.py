"""Snapshots: a git repository of the memory files, created on the first snapshot only, that
never holds a secret, shares nanobot's layout, and leaves a user's own repository alone."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.cli import main
from dreamdesk.engine.recovery.edits import save_edit
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.recovery.restore import restore_snapshot
from dreamdesk.engine.versions.snapshots import GITIGNORE as GITIGNORE_NOW
from dreamdesk.engine.versions.snapshots import SnapshotError, SnapshotStore, kind_of
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import (DREAM_SOUL, DREAM_USER, INIT_SOUL, INIT_USER, NANOBOT_GITIGNORE, build_nanobot_repo,
                          git, git_env, head)

KEY = "sk-or-v1-DREAMDESK-canary-93f1c0ffee"

FULL_WORKSPACE = {
    "SOUL.md": "I am Jenny.\n",
    "USER.md": "# User\n\n## Identity\n- Inès, data engineer.\n",
    "AGENTS.md": "# Agents\n",
    "config.json": json.dumps({"providers": {"openrouter": {"apiKey": KEY}}}),
    "sessions/telegram_1.jsonl": json.dumps({"role": "user", "content": f"my key is {KEY}"}) + "\n",
    "memory/MEMORY.md": "# Memory\n\n- Proxmox homelab.\n",
    "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-04-03 00:02",
                                        "content": f"user pasted {KEY}"}) + "\n",
    "memory/.cursor": "1",
    "memory/.dream_cursor": "0",
    "memory/.dreamdesk.lock": "",
    "memory/.archive.lock": "",
    "memory/notes.md": "scratch\n",
    "memory/archive/2026-01.jsonl": '{"id": "a-20260101-1", "file": "USER.md", "text": "- old"}\n',
    "memory/dreams/r1.md": "# Dream r1\n",
    "skills/weekly-review/SKILL.md": "# Weekly review\n",
    "skills/weekly-review/scripts/run.sh": "echo hi\n",
    "wikis/homelab/AGENTS.md": "# Homelab\n",
}

TRACKED = [".gitignore", "SOUL.md", "USER.md", "memory/.dream_cursor", "memory/MEMORY.md",
           "memory/archive/2026-01.jsonl", "memory/dreams/r1.md", "skills/weekly-review/SKILL.md"]
# (skills/weekly-review/scripts/run.sh stays out: from a skill folder only SKILL.md is snapshotted)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode("utf-8"))


def ls_files(root: Path, git_dir: Path | None = None) -> list[str]:
    args = ([f"--git-dir={git_dir}", f"--work-tree={root}"] if git_dir else []) + ["ls-files", "-z"]
    return sorted(p for p in git(root, *args).split("\0") if p)


# -- created on the first snapshot, not before ----------------------------------------------------
def test_open_list_and_diff_create_nothing(make_workspace):
    root = make_workspace(FULL_WORKSPACE)
    before = tree_state(root)
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    assert store.exists() is False
    assert store.list() == []
    assert store.head() is None
    assert store.size_history() == {}
    with pytest.raises(SnapshotError, match="no snapshots yet"):
        store.diff("HEAD")
    assert not (root / ".git").exists() and not (root / ".dreamdesk").exists()
    assert tree_state(root) == before


def test_first_snapshot_creates_git_and_tracks_exactly_the_memory_set(make_workspace):
    root = make_workspace(FULL_WORKSPACE)
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    sha = store.snapshot("init: dreamdesk snapshots")
    assert sha and re.fullmatch(r"[0-9a-f]{40}", sha)
    assert store.exists() and not store.separate
    assert (root / ".git" / "HEAD").is_file()
    assert ls_files(root) == TRACKED
    gitignore = (root / ".gitignore").read_text()
    for rule in ["/*", "!memory/", "!SOUL.md", "!USER.md", "!memory/MEMORY.md", "!.gitignore",
                 "!memory/.dream_cursor", "!memory/archive/", "!memory/dreams/", "!skills/"]:
        assert rule in gitignore.splitlines(), rule
    # the allow-list itself keeps secrets out even of a careless `git add -A` in the workspace
    ignored = git(root, "check-ignore", "config.json", "sessions/telegram_1.jsonl", "memory/history.jsonl",
                  "memory/.cursor", "memory/.dreamdesk.lock", "AGENTS.md").split()
    assert ignored == ["config.json", "sessions/telegram_1.jsonl", "memory/history.jsonl", "memory/.cursor",
                       "memory/.dreamdesk.lock", "AGENTS.md"]
    assert git(root, "log", "-1", "--format=%an <%ae>|%s").strip() == \
        "Dreamdesk <dreamdesk@localhost>|init: dreamdesk snapshots"


def test_snapshot_without_change_returns_none(make_workspace):
    root = make_workspace(FULL_WORKSPACE)
    store = SnapshotStore(Workspace.open(root))
    first = store.snapshot("init: x")
    # untracked things changing is no change
    write(root, "memory/history.jsonl", "{}\n")
    write(root, "config.json", "{}")
    write(root, "memory/.cursor", "7")
    write(root, "AGENTS.md", "changed\n")
    assert store.snapshot("edit: nothing") is None
    assert store.head() == first
    write(root, "memory/.dream_cursor", "1")
    second = store.snapshot("dream: periodic memory consolidation")
    assert second and second != first and store.head() == second


def test_deleted_memory_file_is_recorded_as_deleted(make_workspace):
    root = make_workspace(FULL_WORKSPACE)
    store = SnapshotStore(Workspace.open(root))
    first = store.snapshot("init: x")
    (root / "memory" / "MEMORY.md").unlink()
    second = store.snapshot("edit: memory/MEMORY.md")
    assert second
    assert "memory/MEMORY.md" in store.tree(first) and "memory/MEMORY.md" not in store.tree(second)
    assert store.file_at(second, "memory/MEMORY.md") is None
    assert store.file_at(first, "memory/MEMORY.md") == FULL_WORKSPACE["memory/MEMORY.md"]


def test_resolve_rejects_unknown_and_option_like_revisions(make_workspace):
    root = make_workspace(FULL_WORKSPACE)
    store = SnapshotStore(Workspace.open(root))
    sha = store.snapshot("init: x")
    assert store.resolve(sha[:8]) == sha and store.resolve("HEAD") == sha
    for bad in ["nosuchrev", "--all", "-n1", ""]:
        with pytest.raises(SnapshotError):
            store.resolve(bad)


# -- a workspace inside the user's own repository ------------------------------------------------
def test_workspace_inside_another_repository_uses_a_separate_git_dir(tmp_path, make_workspace):
    outer = tmp_path / "dotfiles"
    outer.mkdir()
    git(outer, "init", "--quiet")
    write(outer, "README.md", "my dotfiles\n")
    root = make_workspace({k: v for k, v in FULL_WORKSPACE.items()}, root=outer / "assistant")
    git(outer, "add", "README.md", "assistant/SOUL.md", "assistant/USER.md")
    git(outer, "commit", "--quiet", "-m", "mine")
    write(outer, "README.md", "my dotfiles, edited\n")        # a pending change of the user's
    git(outer, "add", "README.md")
    write(outer, "assistant/USER.md", FULL_WORKSPACE["USER.md"] + "- unstaged change\n")

    def outer_state():
        return (git(outer, "rev-parse", "HEAD"), (outer / ".git" / "index").read_bytes(),
                git(outer, "status", "--porcelain"), git(outer, "stash", "list"),
                sorted(p.name for p in (outer / ".git" / "refs" / "heads").iterdir()))

    before = outer_state()
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    assert store.separate and store.git_dir == root / ".dreamdesk" / "snapshots.git"
    first = store.snapshot("init: dreamdesk snapshots")
    write(root, "USER.md", FULL_WORKSPACE["USER.md"] + "- another fact\n")
    second = store.snapshot("edit: USER.md", with_summary=True)
    assert first and second
    assert [s.sha for s in store.list()] == [second, first]
    assert [d.path for d in store.diff(first, second)] == ["USER.md"]
    assert not (root / ".git").exists()
    assert not (root / ".gitignore").exists()      # nothing written into the user's tree
    assert ls_files(root, store.git_dir) == [p for p in TRACKED if p != ".gitignore"]
    assert outer_state() == before


# -- no secret ever enters the snapshot repository ------------------------------------------------
def test_api_key_never_enters_the_snapshot_repository(tmp_path):
    home = tmp_path / "home"
    root = home / "workspace"
    for rel, text in FULL_WORKSPACE.items():
        write(root, rel, text)
    write(home, "config.json", json.dumps({"providers": {"anthropic": {"apiKey": KEY}}}))
    write(home, "sessions/cli_direct.jsonl", json.dumps({"role": "user", "content": KEY}) + "\n")
    write(root, "memory/.cursor", KEY)            # even a garbage cursor holding it
    write(root, "skills/github/.env", f"GITHUB_TOKEN={KEY}\n")           # a skill's own secrets
    write(root, "skills/github/.gitignore", ".env\n")
    write(root, "skills/github/scripts/auth.sh", f"export TOKEN={KEY}\n")
    write(root, "skills/github/SKILL.md", "# GitHub\nUse the gh CLI.\n")
    write(root, "skills/README.md", f"token {KEY}\n")
    ws = Workspace.open(home)
    assert ws.root == root
    store = SnapshotStore(ws)
    first = store.snapshot("init: x")
    write(root, "USER.md", "# User\n\n## Identity\n- Inès, data engineer in Ghent.\n")
    store.snapshot("dream: periodic memory consolidation", with_summary=True)
    edit = save_edit(ws, "SOUL.md", "I am Jenny, calm.\n", current_hash(root / "SOUL.md"))
    assert edit.commit
    restore_snapshot(ws, first, move_cursor=True)
    assert len(store.list()) >= 4

    objects = git(root, "cat-file", "--batch-all-objects", "--batch", binary=True)
    assert b"Jenny" in objects and b"Use the gh CLI." in objects     # the scan does see file contents
    assert KEY.encode() not in objects
    tracked = git(root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert "skills/github/SKILL.md" in tracked and not any(p.startswith("skills/") and not p.endswith("/SKILL.md")
                                                            for p in tracked)
    # and the allow-list .gitignore agrees, so `git status` in the workspace does not offer them
    def ignored(path: str) -> bool:
        proc = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=root, env=git_env())
        assert proc.returncode in (0, 1)
        return proc.returncode == 0
    assert all(map(ignored, ["skills/github/.env", "skills/github/scripts/auth.sh", "skills/README.md",
                             "config.json"]))
    assert not ignored("skills/github/SKILL.md") and not ignored("memory/MEMORY.md")
    # positive control: a key pasted into a tracked memory file would be found by this scan
    write(root, "USER.md", f"- pasted {KEY[:-4]}XXXX\n")
    store.snapshot("edit: USER.md")
    assert f"{KEY[:-4]}XXXX".encode() in git(root, "cat-file", "--batch-all-objects", "--batch", binary=True)


def test_a_repository_from_before_stops_tracking_skill_secrets(tmp_path):
    """A workspace snapshotted by an earlier version (all of skills/ tracked, the old allow-list):
    the next snapshot untracks everything in a skill folder but SKILL.md, keeps the working
    files, and upgrades the unchanged allow-list."""
    from dreamdesk.engine.versions.snapshots import OLD_GITIGNORE
    root = tmp_path / "ws"
    write(root, "USER.md", "# User\n")
    write(root, "skills/github/SKILL.md", "# GitHub\n")
    write(root, "skills/github/.env", "GITHUB_TOKEN=ghp_old\n")
    write(root, ".gitignore", OLD_GITIGNORE)
    git(root, "init", "--quiet")
    git(root, "add", "--force", "--all", "--", "USER.md", "skills", ".gitignore")
    git(root, "commit", "--quiet", "-m", "snapshot: by an earlier Dreamdesk")
    assert "skills/github/.env" in git(root, "ls-tree", "-r", "--name-only", "HEAD").split()
    ws = Workspace.open(root)
    write(root, "USER.md", "# User\n- new\n")
    assert SnapshotStore(ws).snapshot("edit: USER.md")
    tracked = git(root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert "skills/github/.env" not in tracked and "skills/github/SKILL.md" in tracked
    assert (root / "skills/github/.env").read_text() == "GITHUB_TOKEN=ghp_old\n"      # the file itself stays
    assert (root / ".gitignore").read_text() == GITIGNORE_NOW
    assert git(root, "status", "--porcelain").strip() == ""                            # nothing offered


# -- listing ------------------------------------------------------------------------------------
def test_kinds_from_prefixes():
    assert kind_of("snapshot: before dream r1") == "pre-dream"
    assert kind_of("snapshot: before restore abc") == "snapshot"
    assert kind_of("dream: periodic memory consolidation") == "dream"
    assert kind_of("dream: manual run") == "dream"
    assert kind_of("restore: 1234abcd USER.md") == "restore"
    assert kind_of("edit: USER.md") == "edit"
    assert kind_of("init: nanobot memory store") == "init"
    assert kind_of("revert: undo 1234") == "revert"
    assert kind_of("dreamy: not a prefix") == "other"
    assert kind_of("Merge branch x") == "other"


def test_list_gives_kinds_and_per_file_counts(make_workspace):
    root = make_workspace({"USER.md": "a\n", "memory/.dream_cursor": "0"})
    store = SnapshotStore(Workspace.open(root))
    steps = [
        ("init: test store", {"USER.md": "a\n"}),
        ("snapshot: before dream r1", {"USER.md": "a\nb\n"}),
        ("dream: periodic memory consolidation", {"USER.md": "a\nB\nc\n", "memory/.dream_cursor": "3"}),
        ("restore: 1234abcd USER.md", {"USER.md": "a\n"}),
        ("edit: USER.md", {"USER.md": "x\n"}),
        ("revert: undo 1234abcd", {"SOUL.md": "s\n"}),
    ]
    shas = []
    for message, files in steps:
        for rel, text in files.items():
            write(root, rel, text)
        shas.append(store.snapshot(message))
    snaps = store.list()
    assert [s.sha for s in snaps] == shas[::-1]
    assert [s.kind for s in snaps] == ["revert", "edit", "restore", "dream", "pre-dream", "init"]
    assert all(s.author == "Dreamdesk" for s in snaps)
    user = [s.files.get("USER.md") for s in snaps[::-1]]
    assert user == [(1, 0), (1, 0), (2, 1), (0, 2), (1, 1), None]
    assert snaps[0].files == {"SOUL.md": (1, 0)}
    assert snaps[3].files == {"USER.md": (2, 1), "memory/.dream_cursor": (1, 1)}
    for s in snaps:                               # every count is the real diff's
        numstat = git(root, "show", "--numstat", "--format=", s.sha).split("\n")
        real = {p: (int(a), int(r)) for a, r, p in (row.split("\t") for row in numstat if row)}
        assert s.files == real
    assert [s.sha for s in store.list(limit=2)] == shas[:-3:-1]
    assert snaps[0].to_json()["files"] == {"SOUL.md": {"added": 1, "removed": 0}}


def test_dream_commit_summary_matches_the_real_diff(make_workspace):
    root = make_workspace({"SOUL.md": "one\n", "USER.md": "a\nb\nc\n", "memory/.dream_cursor": "0"})
    store = SnapshotStore(Workspace.open(root))
    store.snapshot("snapshot: before dream r1")
    write(root, "USER.md", "a\nB\nc\nd\ne\n")
    write(root, "SOUL.md", "")
    write(root, "memory/.dream_cursor", "5")
    sha = store.snapshot("dream: periodic memory consolidation", with_summary=True)
    subject, _, body = git(root, "log", "-1", "--format=%B", sha).strip().partition("\n\n")
    assert subject == "dream: periodic memory consolidation"
    numstat = [row.split("\t") for row in git(root, "diff", "--numstat", f"{sha}^", sha).splitlines()]
    assert sorted(body.splitlines()) == sorted(f"{p}: +{a} -{r}" for a, r, p in numstat)
    assert "USER.md: +3 -1" in body.splitlines() and "SOUL.md: +0 -1" in body.splitlines()


def test_summary_of_the_very_first_commit(make_workspace):
    root = make_workspace({"USER.md": "a\nb\n"})
    store = SnapshotStore(Workspace.open(root))
    sha = store.snapshot("dream: manual run", with_summary=True)
    body = git(root, "log", "-1", "--format=%b", sha)
    assert "USER.md: +2 -0" in body.splitlines()


# -- sizes over time --------------------------------------------------------------------------------
def test_size_history_is_the_character_count_at_every_commit(make_workspace):
    root = make_workspace({"SOUL.md": "soul\n", "USER.md": "café ☕ — 日本語\n", "memory/.dream_cursor": "0"})
    store = SnapshotStore(Workspace.open(root))
    store.snapshot("init: x")
    write(root, "USER.md", "café ☕ — 日本語\n- Grenoble → Ghent 🚲\n")
    write(root, "memory/MEMORY.md", "# Mémoire\n")                 # appears in the 2nd commit
    write(root, "skills/wr/SKILL.md", "# Weekly\n")
    store.snapshot("dream: periodic memory consolidation")
    (root / "SOUL.md").unlink()                                     # gone in the 3rd
    store.snapshot("edit: SOUL.md")
    write(root, "SOUL.md", "soul again ✓\n")                        # back in the 4th
    store.snapshot("restore: x SOUL.md")
    write(root, "memory/.dream_cursor", "9")                        # no memory file changes in the 5th
    store.snapshot("dream: manual run")

    revs = git(root, "rev-list", "--reverse", "HEAD").split()
    assert len(revs) == 5
    history = store.size_history()
    assert set(history) == {"SOUL.md", "USER.md", "memory/MEMORY.md", "skills/wr/SKILL.md"}
    for path, points in history.items():
        expected = []
        for sha in revs:
            listed = git(root, "ls-tree", "--name-only", sha, "--", path).strip()
            expected.append(len(git(root, "show", f"{sha}:{path}")) if listed else None)
        assert [p.sha for p in points] == revs, f"{path}: one point per snapshot"
        assert [p.chars for p in points] == expected, path
        assert [p.time for p in points] == [int(git(root, "show", "-s", "--format=%ct", s)) for s in revs]
    # characters, not bytes
    user_now = (root / "USER.md").read_text(encoding="utf-8")
    assert history["USER.md"][-1].chars == len(user_now) < len(user_now.encode("utf-8"))


# -- nanobot's own repository -----------------------------------------------------------------------
def test_nanobot_repository_lists_with_its_kinds(tmp_path):
    nb = build_nanobot_repo(tmp_path / "ws")
    store = SnapshotStore(Workspace.open(nb.root))
    assert store.exists() and not store.separate
    snaps = store.list()
    assert [(s.sha, s.kind, s.author) for s in snaps] == [
        (nb.revert, "revert", "nanobot"), (nb.dream, "dream", "nanobot"), (nb.init, "init", "nanobot")]
    assert snaps[2].subject == "init: nanobot memory store"
    assert snaps[1].subject == "dream: periodic memory consolidation"
    assert snaps[0].subject == f"revert: undo {nb.dream}"
    assert snaps[1].files == {"SOUL.md": (3, 1), "USER.md": (1, 0)}   # as nanobot's summary says
    assert "memory/history.jsonl" not in snaps[2].files


def test_nanobot_repository_diffs_between_its_commits(tmp_path):
    nb = build_nanobot_repo(tmp_path / "ws")
    store = SnapshotStore(Workspace.open(nb.root))
    diffs = {d.path: d for d in store.diff(nb.init, nb.dream)}
    assert set(diffs) == {"SOUL.md", "USER.md"}
    assert (diffs["SOUL.md"].added, diffs["SOUL.md"].removed) == (3, 1)
    assert (diffs["USER.md"].added, diffs["USER.md"].removed) == (1, 0)
    assert store.diff(nb.init, nb.revert) == []
    assert store.diff(nb.revert) == []                     # working files = the reverted state
    assert store.file_at(nb.dream, "SOUL.md") == DREAM_SOUL
    assert store.file_at(nb.init, "USER.md") == INIT_USER
    assert store.memory_files_at(nb.revert) == {"SOUL.md": INIT_SOUL, "USER.md": INIT_USER,
                                                "memory/MEMORY.md": (nb.root / "memory/MEMORY.md").read_text()}
    assert store.file_at(nb.dream, "USER.md") == DREAM_USER


def test_dreamdesk_snapshot_in_a_nanobot_repository_keeps_its_layout(tmp_path):
    nb = build_nanobot_repo(tmp_path / "ws")
    write(nb.root, "skills/x/SKILL.md", "# X\n")
    write(nb.root, "USER.md", INIT_USER + "- new fact\n")
    store = SnapshotStore(Workspace.open(nb.root))
    sha = store.snapshot("edit: USER.md", with_summary=True)
    assert sha and git(nb.root, "rev-parse", f"{sha}^").strip() == nb.revert   # on nanobot's branch
    assert (nb.root / ".gitignore").read_text() == NANOBOT_GITIGNORE           # not rewritten
    files = ls_files(nb.root)
    assert "memory/history.jsonl" not in files and "memory/.cursor" not in files
    assert {"SOUL.md", "USER.md", "memory/MEMORY.md", "memory/.dream_cursor", "skills/x/SKILL.md"} <= set(files)
    # nanobot goes on committing by path on top of it
    write(nb.root, "SOUL.md", "I am Jenny!\n")
    git(nb.root, "add", "--", "SOUL.md")
    git(nb.root, "commit", "--quiet", "-m", "dream: periodic memory consolidation")
    assert [s.kind for s in store.list()][:3] == ["dream", "edit", "revert"]
    assert head(nb.root) == store.head()


# -- CLI -------------------------------------------------------------------------------------------
def test_cli_snapshots_json_on_a_fresh_workspace_writes_nothing(capsys, make_workspace):
    root = make_workspace(FULL_WORKSPACE)
    before = tree_state(root)
    code, out, err = run(capsys, "snapshots", root, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["exists"] is False and data["snapshots"] == [] and data["separate"] is False
    assert data["repository"] == str(root / ".git")
    code, out, _ = run(capsys, "snapshots", root)
    assert code == 0 and "No snapshots yet" in out
    code, out, err = run(capsys, "diff", root, "HEAD")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert tree_state(root) == before


def test_cli_snapshots_lists_kinds(capsys, tmp_path):
    nb = build_nanobot_repo(tmp_path / "ws")
    code, out, _ = run(capsys, "snapshots", nb.root)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith(nb.revert[:8]) and "revert" in lines[0]
    assert any(line.startswith(nb.dream[:8]) and "dream: periodic memory consolidation" in line for line in lines)
    assert "SOUL.md +3 -1, USER.md +1 -0" in out
    data = json.loads(run(capsys, "snapshots", nb.root, "--json")[1])
    assert [s["kind"] for s in data["snapshots"]] == ["revert", "dream", "init"]
    assert data["snapshots"][1]["files"]["SOUL.md"] == {"added": 3, "removed": 1}


def test_cli_diff_numbers_hunks(capsys, make_workspace):
    user = "".join(f"- fact {i}\n" for i in range(1, 21))
    root = make_workspace({"USER.md": user, "SOUL.md": "soul\n"})
    sha = SnapshotStore(Workspace.open(root)).snapshot("init: x")
    write(root, "USER.md", user.replace("- fact 2\n", "- fact TWO\n").replace("- fact 18\n", ""))
    code, out, err = run(capsys, "diff", root, sha[:10])
    assert code == 0 and err == ""
    hunk_lines = [line for line in out.splitlines() if line.startswith("@@")]
    diffs = SnapshotStore(Workspace.open(root)).diff(sha)
    assert hunk_lines == [f"@@ -1,5 +1,5 @@   [hunk 1 · id {diffs[0].hunks[0].id}]",
                          f"@@ -15,6 +15,5 @@   [hunk 2 · id {diffs[0].hunks[1].id}]"]
    assert f"--- {sha[:10]}/USER.md" in out and "+++ working/USER.md" in out
    assert "-- fact 2\n+- fact TWO\n" in out and "-- fact 18\n" in out
    data = json.loads(run(capsys, "diff", root, sha[:10], "--json")[1])
    assert data["from"] == sha and data["to"] is None
    assert [(f["path"], len(f["hunks"])) for f in data["files"]] == [("USER.md", 2)]
    code, out, _ = run(capsys, "diff", root, sha, "HEAD")
    assert code == 0 and out.strip() == "No differences in the memory files."
