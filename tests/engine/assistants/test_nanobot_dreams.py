"""The assistant's Dream transcripts (engine/assistants/nanobot_dreams.py) on hand-written
homes in nanobot 0.3.5's sessions layout (what its SessionManager.save writes; the interop
suite reads ones nanobot's own Dream saved), and the rule that tells which commit a run made."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone

from conftest import tree_state
from dreamdesk.engine.assistants.nanobot_dreams import find_transcripts, match_commits, started_at
from dreamdesk.engine.home.workspace import Workspace

WID = "ab" * 16
UTC = timezone.utc


def _call(cid, name, args):
    return {"id": cid, "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}


def _save(home, key, messages, updated="2026-11-20T03:00:05.5"):
    d = home / "sessions" / WID
    d.mkdir(parents=True, exist_ok=True)
    name = base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")
    meta = {"_type": "metadata", "key": key, "created_at": updated, "updated_at": updated,
            "metadata": {}, "last_archived": 0, "last_consolidated": 0}
    (d / f"{name}.jsonl").write_text("\n".join(json.dumps(m) if not isinstance(m, str) else m
                                               for m in [meta, *messages]) + "\n", encoding="utf-8")


def _home(tmp_path, tz=None):
    home = tmp_path / "home"
    ws = home / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / ".nanobot").mkdir()
    (ws / ".nanobot" / "workspace-id").write_text(WID + "\n")
    (ws / "memory" / "MEMORY.md").write_text("# Memory\n")
    cfg = {"agents": {"defaults": {"workspace": str(ws), **({"timezone": tz} if tz else {})}}}
    (home / "config.json").write_text(json.dumps(cfg))
    return home


RUN = [
    {"role": "user", "content": "Dream prompt\n\n## Conversation History\n[2026-11-20 02:59] - moved"},
    {"role": "assistant", "content": "", "tool_calls": [
        _call("c1", "apply_patch", {"edits": [
            {"path": "USER.md", "action": "replace", "old_text": "- Lives in Porto", "new_text": "- Lives in Braga"},
            {"path": "memory/MEMORY.md", "action": "add", "new_text": "- Moved in May"}]}),
        _call("c2", "edit_file", "{not json")]},
    {"role": "tool", "tool_call_id": "c1", "name": "apply_patch", "content": "Patch applied:\n- update USER.md"},
    {"role": "tool", "tool_call_id": "c2", "name": "edit_file", "content": "Error: invalid arguments"},
    {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
]


def test_reads_the_homes_dream_transcripts_and_nothing_else(tmp_path):
    home = _home(tmp_path)
    _save(home, "dream:20261120-030000", RUN)
    _save(home, "dream:20261120-010000", [RUN[0], "{broken", {"role": "assistant", "content": "Nothing."}])
    _save(home, "telegram:chat-1", [{"role": "user", "content": "hi"}])
    before = tree_state(home)
    found = find_transcripts(Workspace.open(home))
    assert tree_state(home) == before, "reading transcripts wrote into the home"
    assert [t.key for t in found.transcripts] == ["dream:20261120-010000", "dream:20261120-030000"]
    old, run = found.transcripts
    assert old.calls == () and old.answer == "Nothing."
    assert [(p.line, p.message) for p in old.problems] == [(3, "not valid JSON (Expecting property name enclosed in double quotes, column 2); skipped")]
    assert run.prompt.startswith("Dream prompt") and run.answer == "Done."
    patch, bad = run.calls
    assert [(e.path, e.action, e.old_text, e.new_text) for e in patch.edits] == [
        ("USER.md", "replace", "- Lives in Porto", "- Lives in Braga"),
        ("memory/MEMORY.md", "add", None, "- Moved in May")]
    assert patch.result.startswith("Patch applied") and not patch.failed
    assert bad.arguments == {} and bad.failed and bad.result == "Error: invalid arguments"
    assert any("arguments of a edit_file call are no JSON" in p.message for p in run.problems)
    assert run.files == ["USER.md", "memory/MEMORY.md", "?"]
    assert run.started == datetime(2026, 11, 20, 3, 0, 0).astimezone()


def test_the_key_is_the_wall_clock_of_the_homes_zone(tmp_path):
    home = _home(tmp_path, tz="Asia/Tokyo")
    _save(home, "dream:20261120-090000", RUN, updated="2026-11-20T09:00:07")
    t = find_transcripts(Workspace.open(home)).transcripts[0]
    assert t.started == datetime(2026, 11, 20, 0, 0, 0, tzinfo=UTC)
    assert t.ended == datetime(2026, 11, 20, 0, 0, 7, tzinfo=UTC)
    assert started_at("dream:2026-11-20") is None and started_at("dream:20261399-000000") is None


def test_no_home_or_no_sessions_means_no_transcripts(tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "MEMORY.md").write_text("# Memory\n")
    found = find_transcripts(Workspace.open(ws))
    assert found.transcripts == [] and found.problems == []


def _run(key: str, ended_after: float | None = 1.0):
    from dreamdesk.engine.assistants.nanobot_dreams import DreamTranscript
    start = started_at(key, UTC)
    return DreamTranscript(key, start, start + timedelta(seconds=ended_after) if ended_after is not None else None,
                           "sessions/x", None, (), None)


def _at(text: str) -> int:
    return int(datetime.strptime(text, "%H:%M:%S").replace(2026, 11, 20, tzinfo=UTC).timestamp())


def test_each_run_gets_the_nearest_commit_after_it_within_the_window():
    a, b, c = _run("dream:20261120-010000"), _run("dream:20261120-030000"), _run("dream:20261120-050000")
    commits = [("before", _at("00:59:59")), ("a", _at("01:00:02")), ("a-later", _at("01:10:00")),
               ("c-too-late", _at("05:45:00"))]
    # b changed nothing (no commit); a's later commit is no one's; c's came past the window
    assert match_commits([c, a, b], commits) == {a.key: "a"}
    dt = [(sha, datetime.fromtimestamp(t, UTC)) for sha, t in commits]
    assert match_commits([a, b, c], dt) == {a.key: "a"}


def test_a_commit_after_the_next_run_started_is_not_the_earlier_runs():
    a, b = _run("dream:20261120-010000"), _run("dream:20261120-010500", ended_after=None)
    assert match_commits([a, b], [("b", _at("01:05:01"))]) == {b.key: "b"}
    assert match_commits([a, b], [("a", _at("01:04:00")), ("b", _at("01:05:30"))]) == {a.key: "a", b.key: "b"}


def test_a_commit_before_the_transcript_was_last_saved_is_not_its_own():
    a = _run("dream:20261120-010000", ended_after=90)      # saved at 01:01:30, then committed
    assert match_commits([a], [("old", _at("01:00:30")), ("mine", _at("01:01:30"))]) == {a.key: "mine"}
