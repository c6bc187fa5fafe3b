"""Issue 24: on a home nanobot's own code made, nanobot's repository holds only what nanobot
tracks. After every Dreamdesk write operation nothing of Dreamdesk's is new in its `git status`,
`git ls-files` holds nanobot's files only, every commit Dreamdesk added touches only those files,
and nanobot's /dream-restore of Dreamdesk's latest version works and loses no archive entry or
run record from Dreamdesk's views. A home an earlier Dreamdesk filled is cleaned on the first
write, with the old versions still reachable."""

import json
import subprocess

import pytest

from helpers.llm_server import turn
from .nanobot_checks import dreamdesk, dreamdesk_json

# nanobot 0.3.5's GitStore: tracked_files (nanobot/agent/memory.py) and the .gitignore its init commits
NANOBOT_SET = {".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md", "memory/.dream_cursor"}
SCRIPT = [
    turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies", "new_text": "- Short replies, no emoji"})),
    turn(("add_fact", {"path": "USER.md", "text": "Sister Ana visits in July", "section": "Identity",
                       "sources": [5]})),
    turn(("remove_fact", {"path": "USER.md", "text": "- Prefers dark mode"})),
    turn(content="Updated USER.md."),
]


def git(ws, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), "-c", "core.quotepath=false", *args], capture_output=True,
                          text=True, check=True).stdout


def repo(ws) -> dict:
    return {"files": set(git(ws, "ls-files").split()), "status": set(git(ws, "status", "--porcelain").splitlines()),
            "commits": git(ws, "rev-list", "HEAD").split()}


def assert_only_nanobots(ws, before: dict) -> dict:
    now = repo(ws)
    assert now["files"] <= NANOBOT_SET, f"outside nanobot's set in its index: {now['files'] - NANOBOT_SET}"
    assert now["status"] <= before["status"], f"new in nanobot's git status: {now['status'] - before['status']}"
    for sha in set(now["commits"]) - set(before["commits"]):
        touched = set(git(ws, "show", "--format=", "--name-only", sha).split())
        assert touched and touched <= NANOBOT_SET, f"{sha} touched {touched - NANOBOT_SET}"
    return now


def _model(srv, *extra):
    return ["--base-url", srv.url, "--model", "interop-model", *extra]


def test_every_write_leaves_nanobots_repository_holding_only_its_files(nanobot, nanobot_home, llm_server):
    home, ws = nanobot_home, nanobot_home.ws
    state = repo(ws)
    srv = llm_server(SCRIPT, default=turn(content="nothing to add"))
    first = json.loads(dreamdesk("dream", home, *_model(srv), "--json")[1])
    assert first["status"] == "completed", first
    state = assert_only_nanobots(ws, state)
    rc, out, err = dreamdesk("dream", home, *_model(srv), "--json")             # nothing left to dream
    assert rc == 0, err
    state = assert_only_nanobots(ws, state)
    down = llm_server(default={"status": 503, "headers": {"Retry-After": "0"}})   # retried at once, never up
    with (ws / "memory" / "history.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"cursor": 999, "timestamp": "2026-12-06 08:00", "content": "User likes hiking."}\n')
    failed = dreamdesk("dream", home, *_model(down), "--json")                   # the model call fails
    assert failed[0] != 0 or json.loads(failed[1])["status"] == "failed", failed
    state = assert_only_nanobots(ws, state)
    init = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    for args in ([], ["--file", "USER.md"]):
        res = dreamdesk_json("restore", home, init, *args)
        state = assert_only_nanobots(ws, state)
        dreamdesk_json("restore", home, "--undo", res["id"])
        state = assert_only_nanobots(ws, state)
    ids = [e["id"] for e in dreamdesk_json("archive", home)["entries"] if "dark mode" in e["text"]]
    assert ids
    dreamdesk_json("archive", "restore", home, ids[0])
    state = assert_only_nanobots(ws, state)
    dreamdesk_json("compact", home)
    assert_only_nanobots(ws, state)


def test_a_dry_run_its_apply_and_a_hunk_restore_leave_only_nanobots_files(nanobot, nanobot_home, llm_server):
    from dreamdesk.engine.dream.run import DreamOptions, apply_preview, run_dream
    from dreamdesk.engine.llm import choose_model, make_client
    from dreamdesk.engine.home.workspace import Workspace
    home, ws = nanobot_home, nanobot_home.ws
    state = repo(ws)
    srv = llm_server(SCRIPT, default=turn(content="nothing to add"))
    dws = Workspace.open(home.path)
    choice, key = choose_model(dws.config(), base_url=srv.url, model="interop-model")
    result = run_dream(dws, make_client(choice, key), DreamOptions(trigger="manual", dry_run=True))
    assert result.preview is not None
    state = assert_only_nanobots(ws, state)
    assert "USER.md" in apply_preview(Workspace.open(home.path), result.preview)
    state = assert_only_nanobots(ws, state)
    init = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    res = dreamdesk_json("restore", home, init, "--hunk", "USER.md:1")
    state = assert_only_nanobots(ws, state)
    dreamdesk_json("restore", home, "--undo", res["id"])
    assert_only_nanobots(ws, state)


def test_nanobots_dream_restore_of_dreamdesks_versions_keeps_every_archive_entry_and_run(
        nanobot, nanobot_home, llm_server):
    home, ws = nanobot_home, nanobot_home.ws
    srv = llm_server(SCRIPT, default=turn(content="nothing to add"))
    assert json.loads(dreamdesk("dream", home, *_model(srv), "--json")[1])["status"] == "completed"
    archived = {e["id"] for e in dreamdesk_json("archive", home)["entries"]}
    runs = {r["id"] for r in dreamdesk_json("runs", home)["runs"] if r.get("id")}
    assert archived and runs
    ours = [line.split()[0] for line in git(ws, "log", "--format=%H %an %s").splitlines()
            if " Dreamdesk dream:" in line]
    assert ours, "Dreamdesk's Dream left no version in nanobot's /dream-log"
    offered = nanobot.dream_restore(home)
    assert ours[0][:8] in offered, offered
    out = nanobot.dream_restore(home, ours[0][:8])
    assert out.startswith("Restored Dream memory"), out
    files = out.split("Restored files:", 1)[1].splitlines()[0]
    assert "archive" not in files and "dreams" not in files and "skills" not in files, files
    assert {e["id"] for e in dreamdesk_json("archive", home)["entries"]} >= archived
    assert {r["id"] for r in dreamdesk_json("runs", home)["runs"] if r.get("id")} >= runs


@pytest.fixture
def filled_home(nanobot_home):
    """A home where an earlier Dreamdesk committed its archive, a run record and a skill into
    nanobot's repository (as versions before this one did)."""
    ws = nanobot_home.ws
    (ws / "memory" / "archive").mkdir(parents=True, exist_ok=True)
    (ws / "memory" / "archive" / "2026-11.jsonl").write_text(
        '{"id": "a-20261101-1", "at": "2026-11-01T10:00:00+01:00", "file": "USER.md", "text": "- Old fact", '
        '"reason": "edit"}\n', encoding="utf-8")
    (ws / "skills" / "blog").mkdir(parents=True, exist_ok=True)
    (ws / "skills" / "blog" / "SKILL.md").write_text("# Blog\n\nPublish on Fridays.\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(ws), "add", "-f", "memory/archive/2026-11.jsonl", "skills/blog/SKILL.md"],
                   check=True)
    subprocess.run(["git", "-C", str(ws), "-c", "user.name=Dreamdesk", "-c", "user.email=dreamdesk@localhost",
                    "commit", "-qm", "dream: restore archived entry a-1 into USER.md (Dreamdesk)"], check=True)
    return nanobot_home, git(ws, "rev-parse", "HEAD").strip()


def test_a_home_an_earlier_dreamdesk_filled_is_cleaned_on_the_first_write_keeping_its_history(filled_home):
    home, legacy = filled_home
    ws = home.ws
    before = repo(ws)
    assert "skills/blog/SKILL.md" in before["files"]
    listed = [s["sha"] for s in dreamdesk_json("snapshots", home)["snapshots"]]
    assert legacy in listed
    assert repo(ws) == before, "reading the home changed nanobot's repository"
    init = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    dreamdesk_json("restore", home, init, "--file", "USER.md")
    now = repo(ws)
    assert now["files"] <= NANOBOT_SET
    assert (ws / "skills" / "blog" / "SKILL.md").is_file() and (ws / "memory" / "archive" / "2026-11.jsonl").is_file()
    assert now["status"] <= before["status"], now["status"] - before["status"]
    release = [line for line in git(ws, "log", "--format=%s").splitlines() if "leave" in line]
    assert release and not release[0].startswith("dream:")          # never offered by /dream-log
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    from dreamdesk.engine.home.workspace import Workspace
    store = SnapshotStore(Workspace.open(home.path))
    assert "Publish on Fridays." in store.file_at(legacy, "skills/blog/SKILL.md")
    assert "Old fact" in store.file_at(legacy, "memory/archive/2026-11.jsonl")
    assert legacy in [s.sha for s in store.list()]


SKILL_SCRIPT = [
    turn(("edit_file", {"path": "skills/blog/SKILL.md", "old_text": "Publish on Fridays.",
                        "new_text": "Publish on Mondays."})),
    *SCRIPT,
]


def _offered(listing: str) -> list[str]:
    """The short shas nanobot's /dream-restore (without one) offers, newest first."""
    import re
    return re.findall(r"`([0-9a-f]{8})`", listing)


def test_skills_pins_and_lint_fixes_leave_only_nanobots_files_and_every_offered_version_restores(
        nanobot, nanobot_home, llm_server):
    """Skills restored and undone exactly from Dreamdesk's own store; a pin restore and a lint
    fix with its undo; after all of it, every version nanobot's /dream-log offers restores with
    its /dream-restore (each on a copy of the home), keeping every archive entry and run."""
    from dreamdesk.engine.lint.memory_lint import lint
    from dreamdesk.engine.lint.lint_fixes import fix_finding
    from dreamdesk.engine.recovery.pins import list_pins, restore_pin
    from dreamdesk.engine.home.workspace import Workspace
    home, ws = nanobot_home, nanobot_home.ws
    skill = ws / "skills" / "blog" / "SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text("# Blog\n\nPublish on Fridays.\n", encoding="utf-8")
    memory = ws / "memory" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "\n- The blog runs on Hugo\n- The blog runs on Hugo\n",
                      encoding="utf-8")
    state = repo(ws)
    dreamdesk_json("pin", home, "USER.md", "Prefers dark mode")
    state = assert_only_nanobots(ws, state)
    srv = llm_server(SKILL_SCRIPT, default=turn(content="nothing to add"))
    run = json.loads(dreamdesk("dream", home, *_model(srv), "--json")[1])
    assert run["status"] == "completed" and "Mondays" in skill.read_text(encoding="utf-8"), run
    state = assert_only_nanobots(ws, state)
    before_run = run["record"]["snapshot_before"]

    res = dreamdesk_json("restore", home, before_run)                   # the skill comes back from our store
    assert skill.read_text(encoding="utf-8") == "# Blog\n\nPublish on Fridays.\n"
    state = assert_only_nanobots(ws, state)
    dreamdesk_json("restore", home, "--undo", res["id"])
    assert skill.read_text(encoding="utf-8") == "# Blog\n\nPublish on Mondays.\n"
    state = assert_only_nanobots(ws, state)

    user = ws / "USER.md"                           # the pin held against Dream; another writer drops it
    assert "- Prefers dark mode" in user.read_text(encoding="utf-8")
    user.write_text(user.read_text(encoding="utf-8").replace("- Prefers dark mode\n", ""), encoding="utf-8")
    dws = Workspace.open(home.path)
    restore_pin(dws, list_pins(dws)[0].id)
    assert "- Prefers dark mode" in (ws / "USER.md").read_text(encoding="utf-8")
    state = assert_only_nanobots(ws, state)

    dup = next(f for f in lint(Workspace.open(home.path)) if f.fix and "Hugo" in f.target.text)
    fixed = fix_finding(Workspace.open(home.path), dup)
    assert memory.read_text(encoding="utf-8").count("- The blog runs on Hugo") == 1
    state = assert_only_nanobots(ws, state)
    dreamdesk_json("restore", home, "--undo", fixed.id)
    assert memory.read_text(encoding="utf-8").count("- The blog runs on Hugo") == 2
    state = assert_only_nanobots(ws, state)

    before_entries = dreamdesk_json("archive", home)["entries"]
    archived = {e["id"] for e in before_entries if not e["id"].startswith("c-")}
    listed = {(e["file"], e["text"]) for e in before_entries}
    assert archived and len(listed) > len(archived)        # the archive file's and those commits hold
    runs = {r["id"] for r in dreamdesk_json("runs", home)["runs"] if r.get("id")}
    offered = _offered(nanobot.dream_restore(home))
    assert len(offered) >= 5, offered                 # nanobot's own dream, Dreamdesk's run, restores, undos
    for sha in offered:
        out = nanobot.dream_restore(home, sha)
        assert out.startswith("Restored Dream memory"), f"{sha}: {out}"
        files = out.split("Restored files:", 1)[1].splitlines()[0]
        assert not any(w in files for w in ("archive", "dreams", "skills")), files
        now = dreamdesk_json("archive", home)["entries"]
        # the archive file's entries by id; one found in a commit by what it was (a later commit
        # that removes the same text again is where it is listed from then on)
        assert {e["id"] for e in now} >= archived
        assert {(e["file"], e["text"]) for e in now} >= listed
        assert {r["id"] for r in dreamdesk_json("runs", home)["runs"] if r.get("id")} >= runs
