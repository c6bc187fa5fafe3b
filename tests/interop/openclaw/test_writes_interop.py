"""Dreamdesk's writes to an OpenClaw home (issue 29 items 1-4), read back by OpenClaw 2026.9.6's own
code on a home it built and dreamed in (homes.build_dreamed, once for the module; its workspace
keeps OpenClaw's own `git init`):

- after each kind of write (an edit of MEMORY.md, USER.md, a daily note and SOUL.md, a whole
  restore and its undo, a hunk restore, the Archive's restore of the entry a sweep merged away)
  `memory index --force` and `memory status --json` succeed and `memory search` finds the line
  Dreamdesk wrote, or no longer finds the one it took out; a private turn's Project Context then
  holds each file as Dreamdesk left it;
- OpenClaw's `memory promote --apply` racing a loop of Dreamdesk's edits of MEMORY.md loses no
  byte of either side, or the side whose write did not land says so in words;
- `memory promote --apply` and a real sweep afterwards complete and keep every line of MEMORY.md;
- the user's repository lists nothing of Dreamdesk's (`git status`) and still has no commit;
- bad input (a symlinked MEMORY.md, a USER.md with a directive comment never closed, the state
  database in another connection's exclusive transaction, a newer schema of it) gets words and
  nothing written.

The tests run in this order on the one home, each a step of a user's week. Slow: the home takes
about six minutes to build, and each OpenClaw command 5-30 s."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from helpers.until import until

from conftest import tree_state
from dreamdesk.engine.assistants import assistant_of, open_home
from dreamdesk.engine.assistants.openclaw_directives import parse_directives
from dreamdesk.engine.assistants.openclaw_state import workspace_key
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.dream.restore_points import restore_point
from dreamdesk.engine.lint.lint_fixes import fix_finding
from dreamdesk.engine.lint.memory_lint import lint
from dreamdesk.engine.ops.edit import apply_action
from dreamdesk.engine.recovery.edits import save_edit
from dreamdesk.engine.recovery.pins import pin, pin_alerts, restore_pin
from dreamdesk.engine.recovery.prunes import all_prunes, restore_prune
from dreamdesk.engine.recovery.restore import restore_snapshot, undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

from .driver import OpenClawHome, first_json
from .homes import build_dreamed, private_turn, sweep

pytestmark = pytest.mark.slow

MEMORY_LINE = "- The staging database is called heron-seven and lives in Frankfurt."
USER_LINE = "- Prefer metric units, with imperial ones in brackets only when asked."
NOTE_LINE = "- The quarterly budget review moved to the Kestrel room on Thursday."
SOUL_LINE = "- Keep replies under ten lines unless asked for more."
BACKUP_LINE = "- The nightly backup window is 02:00 to 03:00 UTC, weekdays only."
DEPLOYS = "- Deploys happen on Tuesdays only."                    # the build's own entry
MERGED_AWAY = "- The user prefers green tea in the afternoon."     # what the build's second sweep merged away
PROMOTED = re.compile(r"^<!-- openclaw-memory-promotion:(.+?) -->$")
RACE_EDITS = 300       # the most edits the race makes (OpenClaw's promotion takes ~8 s, an edit ~0.1 s)
RACE_AFTER = 3         # edits it makes after OpenClaw's command has exited
# what Dreamdesk's own files are called (its snapshots, archive, locks, temporary files)
DREAMDESK_NAMES = re.compile(r"snapshots|archive|dreamdesk|\.lock$|\.tmp|~$|restore", re.I)


@dataclass
class Shared:
    oc: OpenClawHome
    model: object
    today: str
    state: Path                    # Dreamdesk's state folder for this home
    repo: dict                     # the user's repository (.git) as OpenClaw left it
    ours: list[str] = field(default_factory=list)       # lines Dreamdesk put in MEMORY.md and left there


def repo_state(workspace: Path) -> dict[str, bytes | None]:
    """Every path of the workspace's .git with its bytes (None: a folder)."""
    git = workspace / ".git"
    return {p.relative_to(git).as_posix(): p.read_bytes() if p.is_file() else None for p in sorted(git.rglob("*"))}


def files(workspace: Path) -> set[str]:
    """Every file of the workspace outside .git."""
    return {p.relative_to(workspace).as_posix() for p in workspace.rglob("*")
            if p.is_file() and p.relative_to(workspace).parts[0] != ".git"}


@pytest.fixture(scope="module")
def shared(openclaw_launcher, openclaw_model, tmp_path_factory) -> Shared:
    user = tmp_path_factory.mktemp("openclaw-writes")
    built = build_dreamed(openclaw_launcher, user / "home", openclaw_model)
    assert (built.oc.workspace / ".git").is_dir(), "OpenClaw's onboarding ran no `git init`"
    until_openclaw_lets_go(built.oc)
    return Shared(built.oc, openclaw_model, built.today, user / "dreamdesk-state", repo_state(built.oc.workspace))


def until_openclaw_lets_go(oc, within_s: float = 120.0) -> None:
    """The build's Gateway, stopped while memory-core held the workspace's lock, leaves that lease
    for up to 60 s (OpenClaw's own writers wait it out too): wait until it no longer holds."""
    import time

    from dreamdesk.engine.assistants.openclaw_state import held_lock
    db = oc.home / "state" / "openclaw.sqlite"
    until(lambda: held_lock(db, oc.workspace, int(time.time() * 1000)) is None, within_s,
          "OpenClaw still held its lock on the workspace", every=0.5)


@pytest.fixture
def ws(shared, monkeypatch, private_state):
    """The home as Dreamdesk opens it, its state folder the module's (snapshots live across steps)."""
    monkeypatch.setenv("DREAMDESK_STATE_DIR", str(shared.state))
    return open_home(shared.oc.home)


# -- Dreamdesk's side ------------------------------------------------------------------------------
def by_dreamdesk(shared: Shared, write: Callable):
    """`write()`, which must create and remove nothing in the workspace and leave the user's
    repository as OpenClaw left it."""
    before = files(shared.oc.workspace)
    out = write()
    assert files(shared.oc.workspace) == before
    assert repo_state(shared.oc.workspace) == shared.repo
    return out


def added(line: str) -> Callable[[str], str]:
    """A change that adds `line` at the end (its own lines otherwise untouched)."""
    return lambda text: text + ("" if text.endswith("\n") or not text else "\n") + line + "\n"


def edit(ws, rel: str, change: Callable[[str], str]):
    state, _ = ws.read_file(rel)
    result = save_edit(ws, rel, change(state.text), state.hash)
    assert result.written and not result.warnings, result
    return result


def lines_of(shared: Shared, rel: str = "MEMORY.md") -> list[str]:
    return (shared.oc.workspace / rel).read_text(encoding="utf-8").splitlines()


# -- OpenClaw's side -------------------------------------------------------------------------------
def openclaw_reads(oc: OpenClawHome, rel: str | None = None, line: str | None = None, query: str = "",
                   gone: bool = False) -> None:
    """OpenClaw indexes the home again and its status finds no issue; `memory search query` finds
    `line` as a line of `rel` (`gone`: finds it nowhere)."""
    openclaw_reads_all(oc, [] if line is None else [Seek(rel or "", line, query, gone)])


@dataclass(frozen=True)
class Seek:
    rel: str            # the file `line` is (or was) in
    line: str           # a line, or the start of one (OpenClaw's promotion suffixes its score and comments)
    query: str
    gone: bool = False  # found nowhere


def openclaw_reads_all(oc: OpenClawHome, seeks: list[Seek]) -> None:
    """One `memory index --force` and `memory status --json` (no issue, not dirty) after several
    writes, then one `memory search` per line sought: which write broke what still shows."""
    oc.index()
    [status] = oc.status()
    [memory] = [s for s in status["status"]["sourceCounts"] if s["source"] == "memory"]
    assert status["scan"]["issues"] == [] and status["audit"]["issues"] == [] and memory["issues"] == [], status
    assert memory["dirty"] is False
    for seek in seeks:
        hits = oc.search(seek.query)["results"]
        found = [h["path"] for h in hits if any(s == seek.line or s.startswith(seek.line + " ")
                                                for s in h["snippet"].splitlines())]
        assert found == [] if seek.gone else seek.rel in found, (seek, hits)


# -- 1. each kind of write -------------------------------------------------------------------------
def test_openclaw_reads_back_each_kind_of_dreamdesk_write(shared, ws):
    oc, note = shared.oc, f"memory/{shared.today}.md"
    first = by_dreamdesk(shared, lambda: edit(ws, "MEMORY.md", added(MEMORY_LINE)))
    openclaw_reads(oc, "MEMORY.md", MEMORY_LINE, "heron-seven staging database")
    by_dreamdesk(shared, lambda: edit(ws, "USER.md", added(f"\n<!-- observed: {shared.today} | status: active -->"
                                                           f"\n\n{USER_LINE}")))
    openclaw_reads(oc, "USER.md", USER_LINE, "metric units imperial brackets")
    by_dreamdesk(shared, lambda: edit(ws, note, added(NOTE_LINE)))
    openclaw_reads(oc, note, NOTE_LINE, "Kestrel room budget review")
    by_dreamdesk(shared, lambda: edit(ws, "SOUL.md", added(SOUL_LINE)))       # read back by the turn below

    edited = {rel: (oc.workspace / rel).read_bytes() for rel in ("MEMORY.md", "USER.md", note, "SOUL.md")}
    whole = by_dreamdesk(shared, lambda: restore_snapshot(ws, first.before))  # everything before the first edit
    assert sorted(whole.files) == sorted(edited)
    old = SnapshotStore(ws).memory_bytes_at(first.before)
    assert all((oc.workspace / rel).read_bytes() == old[rel] for rel in edited)
    openclaw_reads(oc, "MEMORY.md", MEMORY_LINE, "heron-seven staging database", gone=True)
    by_dreamdesk(shared, lambda: undo_restore(ws, whole.id))
    assert all((oc.workspace / rel).read_bytes() == raw for rel, raw in edited.items())
    openclaw_reads(oc, "MEMORY.md", MEMORY_LINE, "heron-seven staging database")

    # two entries taken out by hand; a hunk restore brings back only Dreamdesk's
    cut = by_dreamdesk(shared, lambda: edit(ws, "MEMORY.md", lambda t: t.replace(MEMORY_LINE + "\n", "")
                                            .replace(DEPLOYS + "\n", "")))
    openclaw_reads(oc, "MEMORY.md", MEMORY_LINE, "heron-seven staging database", gone=True)
    [diff] = SnapshotStore(ws).diff(cut.before, paths=["MEMORY.md"])
    assert len(diff.hunks) == 2
    [hunk] = [h for h in diff.hunks if any(MEMORY_LINE in x.text for x in h.lines)]
    by_dreamdesk(shared, lambda: restore_snapshot(ws, cut.before, "MEMORY.md", hunk=hunk.index, hunk_id=hunk.id))
    assert MEMORY_LINE in lines_of(shared) and DEPLOYS not in lines_of(shared)
    openclaw_reads(oc, "MEMORY.md", MEMORY_LINE, "heron-seven staging database")

    # the entry OpenClaw's second sweep merged away, from the Archive (known from OpenClaw's pre-image)
    [entry] = [e for e in all_prunes(ws)[2] if e.latest.text == MERGED_AWAY and e.latest.origin == "assistant"]
    back = by_dreamdesk(shared, lambda: restore_prune(ws, entry.latest.id))
    assert back.files == ["MEMORY.md"] and lines_of(shared).count(MERGED_AWAY) == 1
    openclaw_reads(oc, "MEMORY.md", MERGED_AWAY, "user prefers green tea in the afternoon")

    context = private_turn(oc, shared.model)
    for name in ("SOUL.md", "USER.md", "MEMORY.md"):
        body = (oc.workspace / name).read_text(encoding="utf-8").rstrip()
        assert f"## {oc.workspace / name}\n{body}" in context, name
    shared.ours += [MEMORY_LINE, MERGED_AWAY]


# -- 4. OpenClaw's promotion racing Dreamdesk's edits ---------------------------------------------
def test_openclaws_promotion_racing_dreamdesks_edits_loses_no_byte(shared, ws):
    oc = shared.oc
    ready = [c["key"] for c in oc.promote()["candidates"]]
    assert ready, "the build left no recalled note ready for promotion"
    before, paths = lines_of(shared), files(oc.workspace)
    proc = oc.start("memory", "promote", "--apply", "--json")
    got = race(ws, proc)
    out, err = proc.communicate(timeout=120)
    after, ours = lines_of(shared), [line for line, _ in got.written]
    # nothing of MEMORY.md before, nor any line Dreamdesk wrote, went missing
    assert not Counter(before) - Counter(after) and all(after.count(line) == 1 for line in ours)
    assert all(re.search(r"changed on disk since it was read; nothing was written|rewritten by another program|"
                         r"OpenClaw is writing this workspace's memory right now", s) for s in got.said), got.said
    if proc.returncode == 0:
        applied = [c["key"] for c in first_json(out)["apply"]["appliedCandidates"]]
        theirs = Counter(after) - Counter(before) - Counter(ours)
        assert applied == ready and {m.group(1) for line in theirs if (m := PROMOTED.match(line))} == set(ready)
        assert any(t.startswith("## Promoted From Short-Term Memory") for t in theirs)
        # OpenClaw wrote between a Dreamdesk read and its write: that write was a conflict, in words
        assert got.stale is not None and "changed on disk since it was read; nothing was written" in got.stale
    else:        # Dreamdesk wrote between OpenClaw's read and its rename: OpenClaw wrote nothing, in words
        assert "MEMORY.md changed" in out + err, out + err
    assert any(running for _, running in got.written), "no edit overlapped OpenClaw's command"
    assert files(oc.workspace) == paths and repo_state(oc.workspace) == shared.repo
    shared.ours += ours
    print(f"\nrace: {len(got.written)} edits written ({sum(r for _, r in got.written)} while OpenClaw's promotion "
          f"ran), promote exit {proc.returncode}, not landed: {dict(Counter(s.split(';')[0][:60] for s in got.said))}")


@dataclass
class Race:
    written: list[tuple[str, bool]] = field(default_factory=list)   # (line, whether OpenClaw's command ran)
    said: list[str] = field(default_factory=list)     # the words of each edit that did not land
    stale: str | None = None      # the words of the edit read before OpenClaw's write and saved after it
    last: tuple[str, str] | None = None               # MEMORY.md as Dreamdesk last wrote it: (text, hash)


def race(ws, proc: subprocess.Popen) -> Race:
    """Dreamdesk's edits of MEMORY.md one after another, each adding a line, until OpenClaw's
    command has exited and RACE_AFTER more were made. Once MEMORY.md is no longer what Dreamdesk
    last wrote (OpenClaw wrote it), one edit is saved over the text Dreamdesk last saw, as a
    person's editor opened before OpenClaw's write saves it after."""
    got, after = Race(), 0
    for _ in range(RACE_EDITS):
        running = proc.poll() is None
        line = f"- Race entry {len(got.written) + 1:03d} from Dreamdesk."
        state, _ = ws.read_file("MEMORY.md")
        stale = got.stale is None and got.last is not None and got.last[1] != state.hash
        text, seen = got.last if stale and got.last else (state.text, state.hash)
        try:
            result = save_edit(ws, "MEMORY.md", added(line)(text), seen)
            got.written.append((line, running))
            got.last, words = (added(line)(text), result.hash), "written over OpenClaw's write"
        except WorkspaceError as exc:          # a conflict, or a refusal while OpenClaw holds its lock
            got.said.append(words := str(exc))
        if stale and not words.startswith("OpenClaw is writing"):
            got.stale = words
        if not running:
            after += 1
            if after == RACE_AFTER:
                return got
    proc.kill()
    pytest.fail(f"OpenClaw's promotion was still running after {RACE_EDITS} edits")


# -- 2. promotion and a sweep afterwards ----------------------------------------------------------
def test_promotion_and_a_sweep_afterwards_keep_every_line_dreamdesk_wrote(shared, ws):
    oc = shared.oc
    by_dreamdesk(shared, lambda: edit(ws, "MEMORY.md", added(BACKUP_LINE)))
    shared.ours.append(BACKUP_LINE)
    for query in ("where is the quarterly budget review", "budget review on Thursday"):
        oc.search(query)               # with the search of step 1: three queries recall the note Dreamdesk edited
    before = lines_of(shared)
    applied = oc.promote(apply=True)["apply"]
    assert f"memory/{shared.today}.md" in [c["path"] for c in applied["appliedCandidates"]], applied
    kept(shared, before)
    for query in ("Apollo launch March 14", "why did the Apollo launch move"):
        oc.search(query)               # with the build's two: the Apollo note is ready for the sweep
    before = lines_of(shared)
    with oc.gateway() as gw:
        changed = sweep(gw, oc, gw.dreaming_job()["id"])
    assert changed["memory_diff"]["added"], "the sweep promoted nothing"
    kept(shared, before)
    openclaw_reads(oc, "MEMORY.md", BACKUP_LINE, "nightly backup window weekdays")


def kept(shared: Shared, before: list[str]) -> None:
    """Every line MEMORY.md had is still there, Dreamdesk's byte for byte and once each."""
    after = lines_of(shared)
    assert not Counter(before) - Counter(after)
    assert all(after.count(line) == 1 for line in shared.ours)


# -- 3. the user's repository ----------------------------------------------------------------------
def test_the_users_repository_lists_nothing_of_dreamdesks_and_has_no_commit(shared, ws):
    workspace = shared.oc.workspace
    users_git_lists_nothing_of_ours(shared)
    log = subprocess.run(["git", "-C", str(workspace), "log"], capture_output=True, text=True)
    assert log.returncode != 0 and "does not have any commits yet" in log.stderr
    store = SnapshotStore(ws)
    assert store.git_dir == workspace_state_dir(ws.root) / "snapshots.git" and len(store.list()) > 10


def users_git_lists_nothing_of_ours(shared: Shared) -> None:
    """`git status` of the user's repository lists only the workspace's own files, untracked, and
    none named like Dreamdesk's; its .git is as OpenClaw left it."""
    workspace = shared.oc.workspace
    out = subprocess.run(["git", "-C", str(workspace), "status", "--porcelain", "-z", "--untracked-files=all",
                          "--ignored"], capture_output=True, text=True, check=True).stdout
    listed = [entry for entry in out.split("\0") if entry]
    assert listed and all(entry.startswith("?? ") for entry in listed)      # untracked, none ignored
    assert {entry[3:] for entry in listed} == files(workspace)
    assert not [p for p in files(workspace) if DREAMDESK_NAMES.search(p)]
    assert repo_state(workspace) == shared.repo


# -- 5. bad input ----------------------------------------------------------------------------------
def test_a_symlinked_memory_md_gets_words_and_nothing_is_written(shared, ws):
    memory = shared.oc.workspace / "MEMORY.md"
    raw, mode = memory.read_bytes(), memory.stat().st_mode & 0o777
    elsewhere = shared.oc.user / "synced-notes" / "MEMORY.md"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(raw)
    memory.unlink()
    memory.symlink_to(elsewhere)
    try:
        state, _ = ws.read_file("MEMORY.md")
        store = SnapshotStore(ws)
        head, oldest = store.head(), store.list()[-1].sha        # MEMORY.md as OpenClaw's build left it
        before = tree_state(shared.oc.workspace), tree_state(elsewhere.parent)
        [entry] = [e for e in all_prunes(ws)[2] if e.latest.text == DEPLOYS and not e.back]   # cut in step 1
        for write in (lambda: save_edit(ws, "MEMORY.md", added(SOUL_LINE)(state.text), state.hash),
                      lambda: restore_snapshot(ws, oldest, "MEMORY.md"),
                      lambda: restore_prune(ws, entry.latest.id)):
            with pytest.raises(WorkspaceError, match="^MEMORY.md is a symlink: OpenClaw reads only regular memory"):
                write()
        assert (tree_state(shared.oc.workspace), tree_state(elsewhere.parent)) == before
        assert SnapshotStore(ws).head() == head
    finally:
        memory.unlink()
        memory.write_bytes(raw)
        memory.chmod(mode)


def test_a_directive_comment_never_closed_is_said_and_kept_as_it_is(shared, ws):
    user = shared.oc.workspace / "USER.md"
    raw = user.read_bytes()
    broken = raw.replace(f"<!-- observed: {shared.today} | status: active -->".encode(),
                         f"<!-- observed: {shared.today} | status: active".encode())
    assert broken != raw
    user.write_bytes(broken)                  # as the agent left it
    try:
        before = tree_state(shared.oc.workspace), tree_state(shared.state)
        detail = json.dumps(assistant_of(ws).files_detail(ws)["directives"]["problems"])
        assert "a metadata comment split over lines (OpenClaw's form is one line); kept as text" in detail
        assert (tree_state(shared.oc.workspace), tree_state(shared.state)) == before     # reading wrote nothing
        directive = f"\n<!-- observed: {shared.today} | status: active -->\n\n- Prefer short tables.\n"
        result = edit(ws, "USER.md", lambda t: t + directive)
        assert user.read_bytes() == broken + directive.encode()        # the broken comment's bytes as they were
        text = user.read_text(encoding="utf-8")
        assert all(r.text in text for r in result.archived)         # whatever it archived is still in the file
    finally:
        user.write_bytes(raw)


def test_a_state_database_in_another_connections_transaction_keeps_writes_safe(shared, ws):
    """OpenClaw's database is WAL: another connection's exclusive transaction does not stop the
    read of memory-core's lock (a private copy), so a write lands while no lock is held and is
    refused while one is; a rollback-journal database under such a lock cannot be read, and the
    write is refused in words. Nothing is written beside the database."""
    db = shared.oc.home / "state" / "openclaw.sqlite"
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("BEGIN EXCLUSIVE")
        around = sorted(p.name for p in db.parent.iterdir())
        by_dreamdesk(shared, lambda: edit(ws, "MEMORY.md", added("- Written under another connection's lock.")))
        shared.ours.append("- Written under another connection's lock.")
        con.execute("ROLLBACK")
        lease(con, shared.oc.workspace)
        con.execute("BEGIN EXCLUSIVE")
        refused(ws, r"^OpenClaw is writing this workspace's memory right now")
        con.execute("ROLLBACK")
        con.execute("DELETE FROM plugin_state_entries WHERE namespace = 'short-term-locks'")
        assert sorted(p.name for p in db.parent.iterdir()) == around
        assert con.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
        con.execute("BEGIN EXCLUSIVE")
        refused(ws, r"^OpenClaw's state database \(openclaw.sqlite\) is locked by another program right now")
        con.execute("ROLLBACK")
    finally:
        if con.in_transaction:
            con.execute("ROLLBACK")
        con.execute("PRAGMA journal_mode=WAL")        # as OpenClaw keeps it
        con.close()
    [status] = shared.oc.status()
    assert status["audit"]["issues"] == []


def lease(con: sqlite3.Connection, workspace: Path) -> None:
    """memory-core's lock row as a live OpenClaw writer holds it."""
    con.execute("INSERT OR REPLACE INTO plugin_state_entries (plugin_id, namespace, entry_key, value_json, created_at, "
                "expires_at) VALUES ('memory-core', 'short-term-locks', ?, ?, ?, NULL)",
                (workspace_key(workspace), json.dumps({"owner": "4242:race", "acquiredAt": int(time.time() * 1000)}),
                 int(time.time() * 1000)))


def refused(ws, words: str) -> None:
    """An edit of MEMORY.md refused with `words`, nothing written (not even a snapshot)."""
    state, _ = ws.read_file("MEMORY.md")
    head, before = SnapshotStore(ws).head(), tree_state(ws.root)
    with pytest.raises(WorkspaceError, match=words + r".*nothing was written"):
        save_edit(ws, "MEMORY.md", added("- Never written.")(state.text), state.hash)
    assert tree_state(ws.root) == before and SnapshotStore(ws).head() == head


def openclaw_state_read(ws) -> dict:
    """What Dreamdesk reads of OpenClaw's state database: the sweeps, what they removed, what
    the next would promote, each entry's provenance."""
    oc = assistant_of(ws)
    prunes, runs, upcoming = oc.assistant_prunes(ws), oc.assistant_runs(ws), oc.whats_next(ws)
    return {"runs": runs.runs, "points": runs.restore_points, "removed": prunes.records,
            "problems": runs.problems + prunes.problems + upcoming["problems"],
            "next": [c["key"] for c in upcoming["candidates"]], "files": oc.files_detail(ws)}


def test_a_newer_schema_of_the_state_database_is_read_as_before(shared, ws):
    """A later OpenClaw's extra column and table: Dreamdesk reads what it read before (it names
    what it reads column by column), still sees memory-core's lock, and writes nothing there."""
    db = shared.oc.home / "state" / "openclaw.sqlite"
    known = openclaw_state_read(ws)
    assert known["runs"] and known["next"] is not None and known["problems"] == []
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("ALTER TABLE plugin_state_entries ADD COLUMN schema_note TEXT DEFAULT 'later'")
        con.execute("CREATE TABLE future_things (id INTEGER PRIMARY KEY, value_json TEXT)")
        db_before = tree_state(db.parent)
        assert openclaw_state_read(ws) == known
        assert tree_state(db.parent) == db_before
        lease(con, shared.oc.workspace)
        refused(ws, r"^OpenClaw is writing this workspace's memory right now")
    finally:
        con.execute("DELETE FROM plugin_state_entries WHERE namespace = 'short-term-locks'")
        con.execute("DROP TABLE IF EXISTS future_things")
        con.execute("ALTER TABLE plugin_state_entries DROP COLUMN schema_note")
        con.close()
    kept(shared, lines_of(shared))


# -- 6. a saved version restored, directives superseded and retired, a lint fix, a pin restore -----
PIN_LINE = "- The release checklist lives in the ops wiki under Runbooks."
SHELL_JUNK = "- sudo apt remove shaderc && git clone https://github.com/google/shaderc"
TEA = "- Prefer green tea; never suggest coffee after noon."             # the build's active directives
COMMAND_FIRST = "- Always give the command first, then one line of explanation."
ROOIBOS = "- Prefer rooibos after noon; green tea in the morning only."


def promoted_junk(today: str) -> str:
    """A shell command as OpenClaw's promotion appends it (before 2026.9.6 filtered such:
    openclaw/openclaw#67580): its own section, marker, score and comments."""
    return (f"\n## Promoted From Short-Term Memory ({today})\n\n"
            f"<!-- openclaw-memory-promotion:memory:memory/{today}.md:1:2 -->\n"
            f"{SHELL_JUNK} [score=0.912 signals=4 recalls=3 avg=0.880 source=memory/{today}.md:1-2] "
            "<!-- trigger: shaderc, clone --> <!-- importance: 9 -->\n")


def directive(ws, action: str, body: str, **args) -> None:
    """Directive `body` of USER.md superseded or retired the way the Files tab does it."""
    text = (ws.root / "USER.md").read_text(encoding="utf-8")
    [n] = [i for i, d in enumerate(parse_directives(text).directives, 1) if d.text == body]
    done = apply_action(ws, "USER.md", action, {"n": n, **args}, "test")
    assert done.value.edit is not None and done.value.edit.written, done.message


def test_openclaw_reads_back_a_saved_version_restored_directives_a_lint_fix_and_a_pin_restore(shared, ws):
    oc, memory, today = shared.oc, shared.oc.workspace / "MEMORY.md", shared.today
    by_dreamdesk(shared, lambda: edit(ws, "MEMORY.md", added(PIN_LINE)))
    pinned, new = by_dreamdesk(shared, lambda: pin(ws, "MEMORY.md", PIN_LINE))
    assert new
    memory.write_bytes(memory.read_bytes() + promoted_junk(today).encode())       # OpenClaw's promotion, as it was
    by_dreamdesk(shared, lambda: directive(ws, "supersede directive", TEA, text=ROOIBOS))
    by_dreamdesk(shared, lambda: directive(ws, "retire directive", COMMAND_FIRST))
    user = (oc.workspace / "USER.md").read_text(encoding="utf-8")
    assert f"<!-- observed: {today} | status: active -->\n\n{ROOIBOS}" in user
    assert f"status: superseded -->\n\n{TEA}\n" in user and f"status: superseded -->\n\n{COMMAND_FIRST}\n" in user
    openclaw_reads_all(oc, [Seek("USER.md", ROOIBOS, "rooibos after noon green tea morning"),
                            Seek("MEMORY.md", SHELL_JUNK, "sudo apt remove shaderc git clone"),
                            Seek("MEMORY.md", PIN_LINE, "release checklist ops wiki runbooks")])
    users_git_lists_nothing_of_ours(shared)

    # OpenClaw's newest saved MEMORY.md, whole (`dreamdesk restore PATH --saved KEY`), then its undo
    [point, *_] = assistant_of(ws).assistant_runs(ws).restore_points
    before = memory.read_bytes()
    whole = by_dreamdesk(shared, lambda: restore_point(ws, point["key"]))
    assert whole.files == ["MEMORY.md"] and memory.read_text(encoding="utf-8") == point["content"]
    openclaw_reads_all(oc, [Seek("MEMORY.md", PIN_LINE, "release checklist ops wiki runbooks", gone=True)])
    users_git_lists_nothing_of_ours(shared)
    by_dreamdesk(shared, lambda: undo_restore(ws, whole.id))
    assert memory.read_bytes() == before

    # the lint fix of the promoted shell command; the pinned entry removed by another writer, restored
    [junk] = [f for f in lint(ws) if f.kind == "shell-command" and f.target.text.startswith(SHELL_JUNK)]
    by_dreamdesk(shared, lambda: fix_finding(ws, junk))
    fixed = before.replace(promoted_junk(today).encode(), b"")          # with its marker and the heading it alone had
    assert memory.read_bytes() == fixed
    memory.write_text(memory.read_text(encoding="utf-8").replace(PIN_LINE + "\n", ""), encoding="utf-8")
    assert [a.pin.id for a in pin_alerts(ws)] == [pinned.id]
    back = by_dreamdesk(shared, lambda: restore_pin(ws, pinned.id))
    # every line back, the pinned entry once (under the first of the two sections OpenClaw headed
    # alike that day, not necessarily the one it was pinned in: see docs/decisions.md)
    assert back.files == ["MEMORY.md"] and Counter(lines_of(shared)) == Counter(fixed.decode().splitlines())
    openclaw_reads_all(oc, [Seek("MEMORY.md", SHELL_JUNK, "sudo apt remove shaderc git clone", gone=True),
                            Seek("MEMORY.md", PIN_LINE, "release checklist ops wiki runbooks")])
    users_git_lists_nothing_of_ours(shared)

    context = private_turn(oc, shared.model)
    for name in ("USER.md", "MEMORY.md"):
        body = (oc.workspace / name).read_text(encoding="utf-8").rstrip()
        assert f"## {oc.workspace / name}\n{body}" in context, name
    shared.ours.append(PIN_LINE)
