"""The Consolidator: triggers, summaries, the [RAW] fallback, and crash safety."""

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta

import pytest

from engine.consolidator import KEEP_LAST, journal_path, plan_session, raw_entries, run_consolidator
from engine.history import read_history
from engine.llm.openai import OpenAIClient
from engine.sessions import find_sessions, read_session
from engine.workspace import Workspace
from llm_server import turn

NOW = datetime(2026, 11, 29, 12, 0).astimezone()


def write_session(path, key, n, last_consolidated=0, minutes_ago=30, content=None, meta=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = NOW - timedelta(minutes=minutes_ago + n)
    lines = [json.dumps({"_type": "metadata", "key": key, "created_at": t0.isoformat(), "updated_at": NOW.isoformat(),
                         "metadata": meta or {}, "last_consolidated": last_consolidated})]
    for i in range(n):
        text = content(i) if content else f"message {i} from {'user' if i % 2 == 0 else 'assistant'}"
        lines.append(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": text,
                                 "timestamp": (t0 + timedelta(minutes=i + 1)).isoformat()}, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


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
    text = lambda i: f"<{i}>" + "".join(chr(0x61 + (i * 7 + k) % 26) for k in range(5000)) + "\u2028é"
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
    d = home / "sessions" / "ws-abc"
    name = base64.urlsafe_b64encode(b"cli:direct").decode().rstrip("=")
    p = write_session(d / f"{name}.jsonl", "cli:direct", 12)
    (d / ".workspace").write_text(str(home / "workspace"))
    srv = llm_server([turn(content="- [durable] fact")])
    r = run_consolidator(Workspace.open(home), client(srv), now=NOW)[0]
    assert r.session == "cli:direct" and read_session(p, "x").last_consolidated == 4


@pytest.mark.parametrize("crash_at", ["after-history-append", "after-session-update"])
def test_crash_loses_and_duplicates_nothing(home, llm_server, crash_at):
    p = write_session(home / "sessions/a.jsonl", "a", 30)
    srv = llm_server(default={"status": 500})          # RAW fallback: several entries
    code = ("import sys; from datetime import datetime; from engine.workspace import Workspace;"
            "from engine.consolidator import run_consolidator, RAW_PART_CHARS;"
            "import engine.consolidator as c; c.RAW_PART_CHARS = 300;"
            "from engine.llm.openai import OpenAIClient;"
            f"run_consolidator(Workspace.open({str(home)!r}), OpenAIClient({srv.url!r}, 'm', max_retries=0),"
            f" now=datetime.fromisoformat({NOW.isoformat()!r}))")
    env = dict(os.environ, DREAMDESK_CRASH_AT=crash_at)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
    assert proc.returncode == 86, proc.stderr.decode()
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
    import engine.files as files
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
    import engine.files as files
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
    from engine.problems import ConflictError
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
