import base64
import json

from engine.sessions import find_sessions, read_session


def session_file(path, key, messages, last_consolidated=0, extra_lines=()):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"_type": "metadata", "key": key, "created_at": "2026-11-01T10:00:00",
                         "updated_at": "2026-11-01T11:00:00", "metadata": {},
                         "last_consolidated": last_consolidated})]
    lines += [json.dumps({"role": r, "content": c, "timestamp": "2026-11-01T10:00:00"}) for r, c in messages]
    lines += list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_jenny_layout(tmp_path):
    home = tmp_path
    ws = home / "workspace"
    ws.mkdir()
    session_file(home / "sessions/telegram_5512.jsonl", "telegram:5512",
                 [("user", "hi"), ("assistant", "hello"), ("user", "bye")], last_consolidated=1)
    session_file(home / "sessions/project_x.jsonl", "project:x", [("user", "p")])
    found = {s.key: s for s in find_sessions(home, ws)}
    assert found["telegram:5512"].unconsolidated == 2 and not found["telegram:5512"].is_project
    assert found["project:x"].is_project
    assert [m["_line"] for m in found["telegram:5512"].messages] == [2, 3, 4]


def test_nanobot_layout_picks_the_folder_naming_this_workspace(tmp_path):
    home = tmp_path
    ws = home / "workspace"
    ws.mkdir()
    key = "cli:direct"
    name = base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")
    mine = home / "sessions/ws-1"
    other = home / "sessions/ws-2"
    session_file(mine / f"{name}.jsonl", key, [("user", "mine")])
    (mine / ".workspace").write_text(str(ws))
    session_file(other / f"{name}.jsonl", key, [("user", "other")])
    (other / ".workspace").write_text(str(tmp_path / "elsewhere"))
    found = find_sessions(home, ws)
    assert [(s.key, s.messages[0]["content"]) for s in found] == [("cli:direct", "mine")]


def test_bad_lines_reported_not_fatal(tmp_path):
    p = tmp_path / "s.jsonl"
    session_file(p, "k", [("user", "a")], last_consolidated=5, extra_lines=["{broken", '"str"', '{"content": "no role"}'])
    s = read_session(p, "sessions/s.jsonl")
    assert len(s.messages) == 1
    msgs = [(x.line, x.message) for x in s.problems]
    assert (3, "not a valid JSON line (JSONDecodeError); skipped") in msgs
    assert (4, "not a JSON object; skipped") in msgs
    assert (5, "message without a role; skipped") in msgs
    assert any("last_consolidated 5 is past the 1 messages" in m for _, m in msgs)


def test_no_home_no_sessions(tmp_path):
    assert find_sessions(None, tmp_path) == []
