"""The Consolidator: triggers, summaries, the [RAW] fallback, and crash safety."""

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest

from dreamdesk.engine.core.rules import KEEP_LAST
from dreamdesk.engine.jobs.consolidator import journal_path, plan_session, raw_entries, run_consolidator
from dreamdesk.engine.home.history import read_history
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.assistants.sessions import find_sessions, read_session
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import client_threads, turn
from helpers.sessions import NOW, write_session


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / "workspace" / "memory").mkdir(parents=True)
    (h / "workspace" / "USER.md").write_text("# User\n")
    (h / "config.json").write_text(json.dumps({"agents": {"defaults": {"idleCompactAfterMinutes": 15}}}))
    return h


def client(srv):
    return OpenAIClient(srv.url, "m", backoff=0.01, max_retries=0)


def test_idle_compaction_keeps_last_8_and_advances(home, llm_server):
    p = write_session(home / "sessions/telegram_1.jsonl", "telegram:1", 20)
    srv = llm_server([turn(content="- [durable] Likes tea")])
    ws = Workspace.open(home)
    results = run_consolidator(ws, client(srv), now=NOW)
    assert [(r.trigger, r.messages, r.raw) for r in results] == [("idle", 12, False)]
    entries = read_history(ws.history_path).entries
    assert [(e.cursor, e.content, e.session_key) for e in entries] == [(1, "- [durable] Likes tea", "telegram:1")]
    s = read_session(p, "x")
    assert s.last_consolidated == 12 and len(s.messages) == 20
    sent = srv.requests[0]["messages"][1]["content"]
    assert "message 0 from user" in sent and "message 11 from assistant" in sent and "message 12" not in sent
    assert not journal_path(ws).exists()


def test_a_pass_over_two_sessions_uses_one_connection_and_closes_it(home, llm_server):
    for n in (1, 2):
        write_session(home / f"sessions/telegram_{n}.jsonl", f"telegram:{n}", 20)
    srv = llm_server(default=turn(content="- [durable] Likes tea"))
    before = client_threads()
    assert len(run_consolidator(Workspace.open(home), client(srv), now=NOW)) == 2
    assert (len(srv.requests), srv.connections) == (2, 1)
    assert client_threads() == before and srv.all_closed()


def test_not_idle_yet_or_idle_off(home, llm_server):
    write_session(home / "sessions/a.jsonl", "a", 20, minutes_ago=5)
    srv = llm_server()
    ws = Workspace.open(home)
    assert run_consolidator(ws, client(srv), now=NOW) == []
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {"idleCompactAfterMinutes": 0}}}))
    assert run_consolidator(ws, client(srv), now=NOW + timedelta(hours=5)) == []
    assert not srv.requests


def test_token_pressure_compacts_oldest_on_a_user_boundary(home, llm_server):
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {
        "contextWindowTokens": 4000, "maxTokens": 1000, "idleCompactAfterMinutes": 0, "consolidationRatio": 0.5}}}))
    write_session(home / "sessions/a.jsonl", "a", 40, minutes_ago=0, content=lambda i: f"{i:02d} " + "x" * 400)
    ws = Workspace.open(home)
    s = find_sessions(ws.home, ws.root)[0]
    plan = plan_session(ws, s, NOW)
    assert plan.trigger == "pressure"
    assert s.messages[plan.end]["role"] == "user"                # the live tail starts with a user turn
    budget = 4000 - 1000 - 1024
    kept = sum(-(-len(m["content"].encode()) // 4) for m in s.messages[plan.end:])
    assert kept <= 0.5 * budget and plan.end < 40


def test_project_sessions_never_compacted(home, llm_server):
    write_session(home / "sessions/project_x.jsonl", "project:x", 30)
    write_session(home / "sessions/other.jsonl", "desk:1", 30, meta={"project": "blog"})
    srv = llm_server()
    ws = Workspace.open(home)
    assert run_consolidator(ws, client(srv), now=NOW, manual=True) == []
    assert not srv.requests and not ws.history_path.exists()


def test_nothing_answer_writes_nothing_but_advances(home, llm_server):
    p = write_session(home / "sessions/a.jsonl", "a", 10)
    srv = llm_server([turn(content="(nothing)")])
    ws = Workspace.open(home)
    r = run_consolidator(ws, client(srv), now=NOW)[0]
    assert r.nothing and r.entries == [] and not ws.history_path.exists()
    assert read_session(p, "x").last_consolidated == 2


def test_model_failure_keeps_every_character_in_raw_parts(home, llm_server):
    def text(i):
        return f"<{i}>" + "".join(chr(0x61 + (i * 7 + k) % 26) for k in range(5000)) + "\u2028é"
    p = write_session(home / "sessions/a.jsonl", "a", 28, content=text)     # ~140,000 characters
    srv = llm_server(default={"status": 500})
    ws = Workspace.open(home)
    r = run_consolidator(ws, client(srv), now=NOW)[0]
    assert r.raw and "HTTP 500" in r.error and len(r.entries) > 1
    entries = read_history(ws.history_path).entries
    n = len(entries)
    assert all(e.content.startswith(f"[RAW] 20 messages (part {i}/{n})\n") for i, e in enumerate(entries, 1))
    body = "".join(e.content.split("\n", 1)[1] for e in entries)
    for i in range(20):
        assert text(i) in body
    assert read_session(p, "x").last_consolidated == 20


def test_raw_entries_small_is_one_entry():
    out = raw_entries([{"role": "user", "content": "hi", "timestamp": "2026-11-01T10:00:00"}])
    assert out == ["[RAW] 1 messages\nUSER [2026-11-01 10:00]: hi"]


def test_no_client_falls_back_to_raw(home):
    write_session(home / "sessions/a.jsonl", "a", 10)
    ws = Workspace.open(home)
    r = run_consolidator(ws, None, now=NOW)[0]
    assert r.raw and r.error == "no model configured"


def test_nanobot_session_layout(home, llm_server):
    import base64
    d = home / "sessions" / ("ab" * 16)
    name = base64.urlsafe_b64encode(b"cli:direct").decode().rstrip("=")
    p = write_session(d / f"{name}.jsonl", "cli:direct", 12)
    (d / ".workspace").write_text(str(home / "workspace"))
    srv = llm_server([turn(content="- [durable] fact")])
    r = run_consolidator(Workspace.open(home), client(srv), now=NOW)[0]
    assert r.session == "cli:direct" and read_session(p, "x").last_consolidated == 4


def _killed_compaction(home, llm_server, moment: str):
    """A compaction of a 30-message session ([RAW] entries: the model fails) in its own process,
    which exits as a kill would at `moment`: a crash point's name, or the name of a file whose
    temp is written and not yet renamed over it. Returns the session's path."""
    p = write_session(home / "sessions/a.jsonl", "a", 30)
    srv = llm_server(default={"status": 500})
    code = ("import os; from datetime import datetime; from dreamdesk.engine.disk import files;"
            "from dreamdesk.engine.home.workspace import Workspace; import dreamdesk.engine.jobs.consolidator as c;"
            "from dreamdesk.engine.llm.openai import OpenAIClient; c.RAW_PART_CHARS = 300;"
            f"files._before_replace = lambda path: os._exit(86) if path.name == {moment!r} else None;"
            f"c.run_consolidator(Workspace.open({str(home)!r}), OpenAIClient({srv.url!r}, 'm', max_retries=0),"
            f" now=datetime.fromisoformat({NOW.isoformat()!r}))")
    env = dict(os.environ, DREAMDESK_CRASH_AT=moment)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
    assert proc.returncode == 86, proc.stderr.decode()
    return p


@pytest.mark.parametrize("crash_at", ["after-history-append", "after-session-update"])
def test_crash_loses_and_duplicates_nothing(home, llm_server, crash_at):
    p = _killed_compaction(home, llm_server, crash_at)
    ws = Workspace.open(home)
    assert journal_path(ws).exists()
    before = read_history(ws.history_path).entries
    run_consolidator(ws, None, now=NOW)         # recovery first; then nothing else is due
    entries = read_history(ws.history_path).entries
    s = read_session(p, "x")
    assert s.last_consolidated == 22 and not journal_path(ws).exists()
    assert len(entries) >= len(before)
    body = "".join(e.content.split("\n", 1)[1] for e in entries)
    for i in range(22):
        tag = f": message {i} from "
        assert body.count(tag) == 1, (i, body.count(tag))   # every message exactly once
    # a further run does nothing more
    assert run_consolidator(ws, None, now=NOW) == []


# Every moment a compaction writes something, as a kill would stop it there: a crash point
# between two steps, or a temp file written and not yet renamed over (file name).
KILL_MOMENTS = ["consolidator-journal.json", "after-journal", "after-history-append", ".cursor", "a.jsonl",
                "after-offset", "compacted.json", "after-session-update"]


@pytest.mark.parametrize("moment", KILL_MOMENTS)
def test_a_compaction_killed_at_any_step_converges_on_the_next_run(home, llm_server, moment):
    """Issue 24 item 5: the run right after the kill finishes the compaction (every message in
    history exactly once, the offset moved), leaves no journal and no temp file anywhere (the
    session folder and Dreamdesk's state included), and a third run finds nothing to do."""
    from dreamdesk.engine.jobs.consolidator import compact_now
    from dreamdesk.engine.core.state import workspace_state_dir
    p = _killed_compaction(home, llm_server, moment)
    ws = Workspace.open(home)
    assert compact_now(ws, None) != []                  # finished (or redone) at once, no waiting
    assert compact_now(ws, None) == []                  # converged
    assert not journal_path(ws).exists()
    assert read_session(p, "x").last_consolidated == 30 - KEEP_LAST
    body = "".join(e.content.split("\n", 1)[1] for e in read_history(ws.history_path).entries)
    assert all(body.count(f": message {i} from ") == 1 for i in range(30 - KEEP_LAST)), body
    left = [q for d in (home, workspace_state_dir(ws.root)) for q in d.rglob("*") if ".dreamdesk-" in q.name]
    assert left == []


def test_recovery_never_takes_an_older_identical_entry_for_the_journaled_one(home):
    """A crash right after the journal was written, before any append: the journaled summary
    is appended on recovery even though an identical entry from weeks ago is in the history."""
    p = write_session(home / "sessions/a.jsonl", "a", 20)
    ws = Workspace.open(home)
    old = json.dumps({"cursor": 1, "timestamp": "2026-10-01 09:00", "content": "- [durable] Likes tea",
                      "session_key": "a"})
    ws.history_path.write_text(old + "\n", encoding="utf-8")
    (ws.memory_dir / ".cursor").write_text("1")
    journal_path(ws).parent.mkdir(parents=True, exist_ok=True)
    journal_path(ws).write_text(json.dumps({
        "path": str(p), "display": "sessions/a.jsonl", "key": "a", "from": 0, "to": 12, "trigger": "idle",
        "raw": False, "after_cursor": 1, "entries": [{"content": "- [durable] Likes tea", "timestamp": "2026-11-29 12:00"}]}))
    run_consolidator(ws, None, now=NOW)
    entries = read_history(ws.history_path).entries
    assert [(e.cursor, e.timestamp) for e in entries] == [(1, "2026-10-01 09:00"), (2, "2026-11-29 12:00")]
    assert read_session(p, "x").last_consolidated == 12 and not journal_path(ws).exists()


def test_session_appended_meanwhile_is_kept(home, llm_server):
    p = write_session(home / "sessions/a.jsonl", "a", 20)

    def append_then_answer(body):
        with open(p, "a", encoding="utf-8") as fh:     # the assistant writes while we summarise
            fh.write(json.dumps({"role": "user", "content": "new message", "timestamp": NOW.isoformat()}) + "\n")
        return turn(content="- [durable] fact")

    srv = llm_server([append_then_answer])
    run_consolidator(Workspace.open(home), client(srv), now=NOW)
    s = read_session(p, "x")
    assert s.last_consolidated == 12 and len(s.messages) == 21 and s.messages[-1]["content"] == "new message"


def test_message_appended_during_the_metadata_rewrite_is_kept(home, llm_server, monkeypatch):
    """The assistant appends through a descriptor it opened on the session file just before
    our rename: the message must reach the new file, not vanish with the old inode."""
    import dreamdesk.engine.disk.files as files
    p = write_session(home / "sessions/a.jsonl", "a", 20)
    real = files.atomic_write_bytes
    late = json.dumps({"role": "user", "content": "sent mid-rewrite", "timestamp": NOW.isoformat()}) + "\n"

    def racing_replace(path, data, *args, **kwargs):
        if os.path.basename(path) != "a.jsonl":
            return real(path, data, *args, **kwargs)
        with open(p, "a", encoding="utf-8") as fh:          # opened on the old inode
            real(path, data, *args, **kwargs)
            fh.write(late)

    monkeypatch.setattr(files, "atomic_write_bytes", racing_replace)
    run_consolidator(Workspace.open(home), client(llm_server([turn(content="- [durable] fact")])), now=NOW)
    s = read_session(p, "x")
    assert s.last_consolidated == 12 and len(s.messages) == 21 and s.messages[-1]["content"] == "sent mid-rewrite"


def test_session_rewritten_whole_during_the_metadata_rewrite_wins_and_recovery_finishes(home, llm_server,
                                                                                         monkeypatch):
    """nanobot saves a session by rewriting the whole file. If that lands in the old file during
    our rename, its version is put back (its messages are kept), and the journal finishes our
    update on the next run without writing the summary twice."""
    import dreamdesk.engine.disk.files as files
    p = write_session(home / "sessions/a.jsonl", "a", 20)
    real = files.atomic_write_bytes
    theirs = {}

    def racing_replace(path, data, *args, **kwargs):
        if os.path.basename(path) != "a.jsonl" or theirs:
            return real(path, data, *args, **kwargs)
        with open(p, "r+b") as fh:                          # the assistant's handle on the old file
            real(path, data, *args, **kwargs)
            lines = fh.read().decode().splitlines(keepends=True)
            meta = json.loads(lines[0])
            meta["updated_at"] = (NOW + timedelta(minutes=1)).isoformat()    # nanobot's save touches it
            lines[0] = json.dumps(meta) + "\n"
            whole = "".join(lines).encode() + (json.dumps({"role": "user", "content": "saved whole by nanobot",
                                                           "timestamp": NOW.isoformat()}) + "\n").encode()
            fh.seek(0)
            fh.truncate()
            fh.write(whole)
            theirs["bytes"] = whole

    monkeypatch.setattr(files, "atomic_write_bytes", racing_replace)
    ws = Workspace.open(home)
    from dreamdesk.engine.core.problems import ConflictError
    with pytest.raises(ConflictError, match="changed on disk"):
        run_consolidator(ws, client(llm_server([turn(content="- [durable] fact")])), now=NOW)
    assert p.read_bytes() == theirs["bytes"]                  # their save was not lost
    assert journal_path(ws).exists() and read_session(p, "x").last_consolidated == 0
    run_consolidator(ws, None, now=NOW)                       # recovery
    s = read_session(p, "x")
    assert s.last_consolidated == 12 and s.messages[-1]["content"] == "saved whole by nanobot"
    assert [e.content for e in read_history(ws.history_path).entries] == ["- [durable] fact"]
    assert not journal_path(ws).exists()


def test_keep_last_constant():
    assert KEEP_LAST == 8


def test_raw_entries_keep_tool_calls_of_a_turn_without_text():
    msgs = [{"role": "user", "content": "what's the weather in Ghent?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "web_search",
                                                                "arguments": "{\"q\": \"weather Ghent\"}"}}]},
            {"role": "tool", "content": "12 °C, rain", "tool_call_id": "c1"}]
    (entry,) = raw_entries(msgs)
    assert "null" not in entry
    assert '[tool call web_search: {"q": "weather Ghent"}]' in entry and "12 °C, rain" in entry


# -- the assistant's own offsets and sessions (nanobot 0.3.5) ---------------------------------------

def nanobot_session(home, key, n, *, last_archived, last_consolidated, ws_id="c" * 32, extra=()):
    """A session as nanobot 0.3.5 saves it: both offset fields (they differ when an older writer
    updated only one), in the workspace's id folder."""
    import base64
    d = home / "sessions" / ws_id
    name = base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")
    p = write_session(d / f"{name}.jsonl", key, n)
    lines = p.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta.update(last_archived=last_archived, last_consolidated=last_consolidated)
    lines[0] = json.dumps(meta)
    p.write_text("\n".join([*lines, *extra]) + "\n", encoding="utf-8")
    (d / ".workspace").write_text(str(home / "workspace") + "\n")
    (home / "workspace" / ".nanobot").mkdir(exist_ok=True)
    (home / "workspace" / ".nanobot" / "workspace-id").write_text(ws_id + "\n")
    return p


def test_the_offset_is_read_from_last_archived_first_and_both_fields_are_written(home, llm_server):
    """nanobot reads last_archived before last_consolidated: messages it archived (6) are never
    compacted again, and after our compaction it reads our offset, not its old one."""
    p = nanobot_session(home, "telegram:1", 20, last_archived=6, last_consolidated=2)
    srv = llm_server([turn(content="- [durable] Likes tea")])
    ws = Workspace.open(home)
    [r] = run_consolidator(ws, client(srv), now=NOW)
    assert (r.messages, r.raw) == (20 - KEEP_LAST - 6, False)
    sent = srv.requests[0]["messages"][1]["content"]
    assert "message 6 from user" in sent and "message 5 " not in sent and "message 2 " not in sent
    meta = json.loads(p.read_text(encoding="utf-8").splitlines()[0])
    assert (meta["last_archived"], meta["last_consolidated"]) == (12, 12)
    # a second pass, by either field, finds nothing left to compact
    assert run_consolidator(Workspace.open(home), client(srv), now=NOW, manual=True) == []
    assert len(read_history(ws.history_path).entries) == 1


def test_a_bool_offset_is_not_a_number_the_other_field_is_used(home):
    p = nanobot_session(home, "telegram:1", 20, last_archived=True, last_consolidated=4)
    assert read_session(p, "x").last_consolidated == 4


def test_the_assistants_dream_transcripts_are_never_compacted(home, llm_server):
    """`dream:<stamp>` sessions are nanobot's Dream tool-call transcripts: it never compacts
    them, so neither do we — not on idle, not on a manual compact, not when named."""
    nanobot_session(home, "dream:20261129-101500", 30, last_archived=0, last_consolidated=0)
    srv = llm_server([turn(content="- leaked")])
    ws = Workspace.open(home)
    logs = []
    assert run_consolidator(ws, client(srv), now=NOW) == []
    assert run_consolidator(ws, client(srv), now=NOW, manual=True) == []
    assert run_consolidator(ws, client(srv), now=NOW, manual=True, only="dream:20261129-101500", log=logs.append) == []
    assert srv.requests == [] and not ws.history_path.exists()
    assert "the assistant's own Dream transcript" in logs[-1]
    [s] = find_sessions(ws.home, ws.root)
    assert s.is_internal and s.to_json()["internal"]
    assert plan_session(ws, s, NOW, manual=True) is None


def test_provider_state_is_not_a_message_and_command_turns_are_not_compacted(home, llm_server):
    """nanobot's provider_state record is not a message (counting it would shift every offset);
    its slash-command turns (`_command`) count toward the offset but are not memory."""
    p = nanobot_session(home, "telegram:1", 0, last_archived=0, last_consolidated=0,
                        extra=[json.dumps({"_type": "provider_state", "state": {"id": "resp_1"}})])
    with p.open("a", encoding="utf-8") as f:
        for i in range(12):
            m = {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}",
                 "timestamp": (NOW - timedelta(minutes=60 - i)).isoformat()}
            if i in (0, 1):
                m["content"], m["_command"] = ("/status", True) if i == 0 else ("Status: ok", True)
            f.write(json.dumps(m) + "\n")
    s = read_session(p, "x")
    assert len(s.messages) == 12 and s.problems == []
    srv = llm_server([turn(content="- [durable] Likes tea")])
    [r] = run_consolidator(Workspace.open(home), client(srv), now=NOW)
    assert r.messages == 12 - KEEP_LAST
    sent = srv.requests[0]["messages"][1]["content"]
    assert "/status" not in sent and "turn 2" in sent and "turn 3" in sent
    assert read_session(p, "x").last_consolidated == 4


def test_the_offset_rewrite_waits_for_the_assistants_session_lock(home, llm_server, monkeypatch):
    """While nanobot holds its `.session-files.lock` (it is saving the session), our rewrite of
    the metadata line waits; it lands once the lock is free, never in the middle of a save."""
    import threading

    import dreamdesk.engine.jobs.consolidator as consolidator_mod
    from dreamdesk.engine.disk.files import FileLock
    p = nanobot_session(home, "telegram:1", 20, last_archived=0, last_consolidated=0)
    held = FileLock(p.parent / ".session-files.lock").acquire()
    asked = threading.Event()

    class AskingLock(FileLock):                       # says when the consolidator asks for a lock
        def acquire(self):
            if self.path.name == ".session-files.lock":
                asked.set()
            return super().acquire()
    monkeypatch.setattr(consolidator_mod, "FileLock", AskingLock)
    srv = llm_server([turn(content="- [durable] Likes tea")])
    done = threading.Event()
    ws = Workspace.open(home)
    t = threading.Thread(target=lambda: (run_consolidator(ws, client(srv), now=NOW), done.set()))
    t.start()
    try:
        # the summary is in history: what is left is the metadata rewrite, under the lock we hold
        assert asked.wait(10), "the consolidator never asked for the assistant's session lock"
        assert [e.content for e in read_history(ws.history_path).entries] == ["- [durable] Likes tea"]
        assert not done.is_set()                       # it cannot have finished: we hold the lock
        assert json.loads(p.read_text(encoding="utf-8").splitlines()[0])["last_archived"] == 0
    finally:
        held.release()
    t.join(10)
    assert done.is_set() and read_session(p, "x").last_consolidated == 12


def _offset_back_to(p, n):
    """What a running nanobot does at its next save: its cached copy's older offset, written whole."""
    lines = p.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta.update(last_archived=n, last_consolidated=n)
    lines[0] = json.dumps(meta)
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_an_offset_the_assistant_wrote_back_never_makes_us_compact_twice(home, llm_server):
    from dreamdesk.engine.overview.status import read_status
    p = nanobot_session(home, "telegram:1", 20, last_archived=0, last_consolidated=0)
    srv = llm_server([turn(content="- [durable] Likes tea")], default=turn(content="- [durable] Second summary"))
    ws = Workspace.open(home)
    run_consolidator(ws, client(srv), now=NOW)
    _offset_back_to(p, 0)
    logs = []
    assert run_consolidator(Workspace.open(home), client(srv), now=NOW, manual=True, log=logs.append) == []
    assert len(read_history(ws.history_path).entries) == 1 and len(srv.requests) == 1
    assert "already compacted by Dreamdesk" in logs[0]
    [warn] = [x for x in read_status(Workspace.open(home)).problems if "older copy" in x.message]
    assert "from 12 to 0" in warn.message
    # new messages after those: only they are compacted, and the offset moves on from ours
    with p.open("a", encoding="utf-8") as f:
        for i in range(20, 30):
            f.write(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} new",
                                "timestamp": (NOW - timedelta(minutes=40 - i)).isoformat()}) + "\n")
    [r] = run_consolidator(Workspace.open(home), client(srv), now=NOW, manual=True)
    assert r.messages == 30 - KEEP_LAST - 12
    sent = srv.requests[1]["messages"][1]["content"]
    assert "message 12 from user" in sent and "message 11 " not in sent
    assert read_session(p, "x").last_consolidated == 22


def test_changed_messages_below_our_offset_are_not_taken_for_the_ones_we_compacted(home, llm_server):
    p = nanobot_session(home, "telegram:1", 20, last_archived=0, last_consolidated=0)
    srv = llm_server(default=turn(content="- [durable] Likes tea"))
    run_consolidator(Workspace.open(home), client(srv), now=NOW)
    _offset_back_to(p, 0)
    p.write_text(p.read_text(encoding="utf-8").replace("message 3 from assistant", "message 3 EDITED"), encoding="utf-8")
    [r] = run_consolidator(Workspace.open(home), client(srv), now=NOW, manual=True)
    assert r.messages == 12     # the ledger no longer describes these messages: the file's offset rules


def test_no_compaction_of_the_assistants_sessions_while_its_gateway_runs(home, llm_server):
    """A running nanobot would write its cached offset back at its next save; its live pid in
    run/gateway*.json stops us. A record whose pid is gone does not."""
    p = nanobot_session(home, "telegram:1", 20, last_archived=0, last_consolidated=0)
    srv = llm_server(default=turn(content="- [durable] Likes tea"))
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (home / "run").mkdir()
        (home / "run" / "gateway.json").write_text(json.dumps({"pid": 999999999, "clients": {"t": {"pid": live.pid}}}))
        logs = []
        assert run_consolidator(Workspace.open(home), client(srv), now=NOW, log=logs.append) == []
        assert f"pid {live.pid}" in logs[-1] and srv.requests == []
        assert read_session(p, "x").last_consolidated == 0
    finally:
        live.kill()
        live.wait()
    [r] = run_consolidator(Workspace.open(home), client(srv), now=NOW)
    assert r.messages == 12
