"""The watch (issue 13 §3): what another writer removes from USER.md / MEMORY.md is archived
once with reason `outside` (and its commit), Dreamdesk's own writes never count, and "Since you
last looked" lists what changed while Dreamdesk was closed. Real files, real git, real processes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from conftest import REPO, tree_state
from dreamdesk.engine.recovery import watch
from dreamdesk.engine.recovery.archive import read_archive, write_memory
from dreamdesk.engine.cli import main
from dreamdesk.engine.recovery.restore import restore_record
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import build_nanobot_repo, git, head

USER = ("# User\n\n## Identity\n- Inès, data engineer in Ghent.\n- Partner Joris teaches physics.\n\n"
        "## Preferences\n- Likes green tea in the morning.\n- Cycles to work.\n- Reads sci-fi.\n")


def other_writer(root, rel: str, text: str) -> None:
    """Another program rewriting the file (an atomic save, as nanobot and editors do)."""
    tmp = root / (rel + ".other")
    tmp.write_bytes(text.encode("utf-8"))
    tmp.replace(root / rel)


def outside(ws: Workspace) -> list:
    return [r for r in read_archive(ws).records if r.reason == "outside"]


@pytest.fixture
def ws(make_workspace) -> Workspace:
    return Workspace.open(make_workspace({"USER.md": USER, "memory/MEMORY.md": "# Memory\n\n- Homelab runs Proxmox.\n"}))


def observe_in_subprocess(root) -> subprocess.Popen:
    code = "import sys; from dreamdesk.engine.recovery import watch; from dreamdesk.engine.home.workspace import Workspace; " \
           "print(len(watch.observe(Workspace.open(sys.argv[1]))))"
    return subprocess.Popen([sys.executable, "-c", code, str(root)], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})


def test_removals_by_another_writer_are_archived_once_with_heading_and_replacement(ws):
    assert watch.observe(ws) == []                       # the first look only remembers
    assert not (ws.memory_dir / "archive").exists()
    other_writer(ws.root, "USER.md", USER.replace("- Partner Joris teaches physics.\n", "")
                 .replace("- Cycles to work.\n", "").replace("in the morning.", "in the morning, never after 14:00."))
    (event,) = watch.observe(ws)
    assert event.message == "Another writer removed 3 entries from USER.md"
    recs = outside(ws)
    assert {r.text: (r.heading, r.replaced_by) for r in recs} == {
        "- Partner Joris teaches physics.": ("## Identity", None),
        "- Cycles to work.": ("## Preferences", None),
        "- Likes green tea in the morning.": ("## Preferences", "- Likes green tea in the morning, never after 14:00.")}
    assert sorted(event.ids) == sorted(r.id for r in recs)
    # the same change seen again, after a restart, by another process: never archived again
    assert watch.observe(ws) == []
    assert watch.observe(Workspace.open(ws.root)) == []
    proc = observe_in_subprocess(ws.root)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == "0"
    assert len(outside(ws)) == 3


def test_two_processes_watching_at_once_archive_each_removal_once(ws):
    watch.observe(ws)
    other_writer(ws.root, "memory/MEMORY.md", "# Memory\n")
    other_writer(ws.root, "USER.md", USER.replace("- Reads sci-fi.\n", ""))
    procs = [observe_in_subprocess(ws.root) for _ in range(3)]
    counts = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
        counts.append(int(out))
    assert sum(counts) == 2                             # one event per file, in whichever process
    assert sorted(r.text for r in outside(ws)) == ["- Homelab runs Proxmox.", "- Reads sci-fi."]


def test_dreamdesks_own_writes_are_never_outside(ws):
    watch.observe(ws)
    state, _ = ws.read_file("USER.md")
    write_memory(ws, "USER.md", USER.replace("- Reads sci-fi.\n", ""), state.hash, "edit")
    assert watch.observe(ws) == []
    # another writer removes one entry, then Dreamdesk (having read the new file) removes another
    # before the watch looked: each removal is archived once, under its own writer
    other_writer(ws.root, "USER.md", USER.replace("- Reads sci-fi.\n", "").replace("- Cycles to work.\n", ""))
    state, _ = ws.read_file("USER.md")
    write_memory(ws, "USER.md", state.text.replace("- Partner Joris teaches physics.\n", ""), state.hash, "edit")
    assert watch.observe(ws) == []
    reasons = sorted((r.reason, r.text) for r in read_archive(ws).records)
    assert reasons == [("edit", "- Partner Joris teaches physics."), ("edit", "- Reads sci-fi."),
                       ("outside", "- Cycles to work.")]


def test_without_the_watch_nothing_is_archived_and_no_state_is_kept(ws, private_state):
    state, _ = ws.read_file("USER.md")
    other_writer(ws.root, "USER.md", "# User\n")
    state, _ = ws.read_file("USER.md")
    write_memory(ws, "USER.md", "# User\n\n- new\n", state.hash, "edit")
    assert not (ws.memory_dir / "archive").exists()
    assert not list(private_state.rglob(watch.STATE_FILE))


def test_turning_the_watch_off_forgets_it(ws):
    watch.observe(ws)
    assert watch.watching(ws)
    watch.forget_watch(ws)
    assert not watch.watching(ws)
    other_writer(ws.root, "USER.md", "# User\n")
    assert watch.observe(ws) == []                     # on again: starts from the files as they are
    assert outside(ws) == []


def test_a_crash_between_the_archive_and_the_state_is_finished_once(ws, monkeypatch):
    watch.observe(ws)
    other_writer(ws.root, "USER.md", USER.replace("- Reads sci-fi.\n", "").replace("- Cycles to work.\n", ""))

    def crash(*a, **k):
        raise SystemExit("killed")
    finish = watch._finish
    monkeypatch.setattr(watch, "_finish", crash)
    with pytest.raises(SystemExit):
        watch.observe(ws)
    monkeypatch.setattr(watch, "_finish", finish)
    assert len(outside(ws)) == 2                        # the append landed, the state did not
    (event,) = watch.observe(ws)
    assert len(event.ids) == 2 and len(outside(ws)) == 2
    assert watch.observe(ws) == []


# -- commits ---------------------------------------------------------------------------------------
def nanobot_dream(root, text: str) -> str:
    other_writer(root, "USER.md", text)
    git(root, "add", "--", "USER.md")
    git(root, "commit", "--quiet", "--no-verify", "-m", "dream: periodic memory consolidation\n\nUSER.md: +0 -1")
    return head(root)


def test_a_dream_commit_already_landed_names_the_assistants_dream(tmp_path):
    repo = build_nanobot_repo(tmp_path / "ws")
    ws = Workspace.open(repo.root)
    other_writer(repo.root, "USER.md", USER)
    watch.observe(ws)
    sha = nanobot_dream(repo.root, USER.replace("- Reads sci-fi.\n", "").replace("- Cycles to work.\n", ""))
    (event,) = watch.observe(ws)
    assert event.message == "The assistant's Dream removed 2 entries from USER.md"
    assert event.commit == sha and {r.commit for r in outside(ws)} == {sha}


def test_a_commit_that_lands_later_is_noted_once_and_shown_by_archive_json(tmp_path, capsys):
    repo = build_nanobot_repo(tmp_path / "ws")
    ws = Workspace.open(repo.root)
    other_writer(repo.root, "USER.md", USER)
    watch.observe(ws)
    removed = USER.replace("- Reads sci-fi.\n", "")
    other_writer(repo.root, "USER.md", removed)
    (event,) = watch.observe(ws)                        # the assistant writes first, commits after
    assert event.commit is None and event.message == "Another writer removed 1 entry from USER.md"
    assert watch.check_commits(ws) == []
    git(repo.root, "add", "--", "USER.md")
    git(repo.root, "commit", "--quiet", "--no-verify", "-m", "dream: periodic memory consolidation")
    sha = head(repo.root)
    (later,) = watch.check_commits(ws)
    assert later.commit == sha and later.later and later.ids == event.ids
    assert later.message == f"The assistant's Dream removed 1 entry from USER.md (commit {sha[:8]})"
    assert watch.check_commits(ws) == [] and watch.observe(ws) == []
    (rec,) = outside(ws)
    assert rec.commit == sha and rec.heading == "## Preferences"
    lines = [json.loads(x) for x in (ws.memory_dir / "archive").glob("*.jsonl").__next__().read_text().splitlines()]
    assert lines[-1]["id"] == rec.id and lines[-1]["commit"] == sha and "text" not in lines[-1]
    assert main(["archive", str(repo.root), "--json", "--reason", "outside"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["entries"]
    assert (entry["reason"], entry["commit"], entry["text"]) == ("outside", sha, "- Reads sci-fi.")


def test_edits_seen_one_by_one_before_one_commit_all_get_that_commit(tmp_path):
    """nanobot's Dream edits USER.md once per tool call and commits once at the end: a removal
    seen in a version no commit ever holds gets the commit of the version that followed it, as
    long as its entry is still gone; an entry put back before the commit gets none."""
    repo = build_nanobot_repo(tmp_path / "ws")
    ws = Workspace.open(repo.root)
    other_writer(repo.root, "USER.md", USER)
    watch.observe(ws)
    steps = [USER.replace("- Cycles to work.\n", ""),
             USER.replace("- Cycles to work.\n", "").replace("- Reads sci-fi.\n", ""),
             USER.replace("- Reads sci-fi.\n", "").replace("- Partner Joris teaches physics.\n", "")]
    for text in steps:                                   # the watch sees every intermediate version
        other_writer(repo.root, "USER.md", text)
        (event,) = watch.observe(ws)
        assert event.commit is None
    git(repo.root, "add", "--", "USER.md")
    git(repo.root, "commit", "--quiet", "--no-verify", "-m", "dream: periodic memory consolidation")
    sha = head(repo.root)
    events = watch.check_commits(ws)
    assert sorted(len(e.ids) for e in events) == [1, 1] and {e.commit for e in events} == {sha}
    assert {r.text: r.commit for r in outside(ws)} == {
        "- Cycles to work.": None,                     # back in the committed version: not its removal
        "- Reads sci-fi.": sha, "- Partner Joris teaches physics.": sha}
    assert watch.check_commits(ws) == []


# -- Since you last looked ---------------------------------------------------------------------------
def test_since_last_looked_lists_removed_and_added_and_restore_brings_it_back(make_workspace):
    crlf = USER.replace("\n", "\r\n")
    root = make_workspace({"USER.md": crlf, "memory/MEMORY.md": "# Memory\n"})
    ws = Workspace.open(root)
    before = tree_state(root)
    assert watch.since_last_looked(ws) is None          # never opened before
    watch.remember_looked(ws)
    assert tree_state(root) == before                   # opening writes nothing inside the workspace
    assert watch.since_last_looked(ws).empty
    other_writer(root, "USER.md", crlf.replace("- Cycles to work.\r\n", "").replace(
        "- Reads sci-fi.\r\n", "- Reads sci-fi.\r\n- Learning Dutch.\r\n"))
    since = watch.since_last_looked(ws)
    (user, memory) = since.files
    assert [(r.entry.text, r.entry.heading) for r in user.removed] == [("- Cycles to work.", "## Preferences")]
    assert [e.text for e in user.added] == ["- Learning Dutch."]
    assert not memory.removed and not memory.added
    restore_record(ws, watch.as_record("USER.md", user.removed[0]), "an entry removed since you last looked")
    data = (root / "USER.md").read_bytes()
    assert b"- Cycles to work.\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    since = watch.since_last_looked(ws)
    assert not since.files[0].removed and [e.text for e in since.files[0].added] == ["- Learning Dutch."]
    watch.remember_looked(ws, since)                    # "Got it"
    assert watch.since_last_looked(ws).empty


def test_got_it_acknowledges_only_what_was_shown(ws):
    watch.remember_looked(ws)
    other_writer(ws.root, "USER.md", USER.replace("- Cycles to work.\n", ""))
    shown = watch.since_last_looked(ws)
    other_writer(ws.root, "USER.md", USER.replace("- Cycles to work.\n", "").replace("- Reads sci-fi.\n", ""))
    watch.remember_looked(ws, shown)
    (user, _) = watch.since_last_looked(ws).files
    assert [r.entry.text for r in user.removed] == ["- Reads sci-fi."]


def test_observing_from_two_threads_archives_once(ws):
    watch.observe(ws)
    other_writer(ws.root, "USER.md", "# User\n")
    events = []
    threads = [threading.Thread(target=lambda: events.extend(watch.observe(Workspace.open(ws.root))))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(events) == 1 and len(outside(ws)) == 7      # 5 items and 2 headings


@pytest.mark.parametrize("entry", ["dreamdesk.engine.recovery.edits", "dreamdesk.engine.recovery.restore", "dreamdesk.engine.lint.lint_fixes",
                                   "dreamdesk.engine.dream.run"])
def test_every_write_operation_brings_the_watchs_guard_with_it(entry):
    """Workspace.write_file wraps our writes in the guards registered with it (the watch's, so our
    write is never another writer's); a process that only imports a write operation has it."""
    import subprocess
    import sys
    code = (f"import {entry}; from dreamdesk.engine.home import workspace;"     # (the watch is not imported here)
            "assert [g.__qualname__ for g in workspace._WRITE_GUARDS] == ['own_write'], workspace._WRITE_GUARDS")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).returncode == 0
