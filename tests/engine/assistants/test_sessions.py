import base64
import json

from dreamdesk.engine.assistants.sessions import find_sessions, read_session, scan_sessions


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
    mine = home / ("sessions/" + "1" * 32)
    other = home / ("sessions/" + "2" * 32)
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
    assert len(s.messages) == 2      # a roleless line still counts (the assistant counts it)
    msgs = [(x.line, x.message) for x in s.problems]
    assert (3, "not valid JSON (Expecting property name enclosed in double quotes, column 2); skipped") in msgs
    assert (4, "not a JSON object; skipped") in msgs
    assert (5, "message without a role; kept in place, compacted as '?'") in msgs
    assert any("last_archived 5 is past the 2 messages" in m for _, m in msgs)


def test_no_home_no_sessions(tmp_path):
    assert find_sessions(None, tmp_path) == []


# -- binding a workspace to its sessions the way nanobot 0.3.5 does ---------------------------------

WID = "0123456789abcdef" * 2


def nanobot_home(root, ws_id=WID, marker=None):
    """A nanobot home: the workspace's .nanobot/workspace-id names its sessions folder, whose
    .workspace marker names the path the workspace last ran at."""
    ws = root / "workspace"
    (ws / ".nanobot").mkdir(parents=True)
    (ws / ".nanobot" / "workspace-id").write_text(ws_id + "\n")
    key = "telegram:5512"
    name = base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")
    d = root / "sessions" / ws_id
    session_file(d / f"{name}.jsonl", key, [("user", "hi"), ("assistant", "hello")])
    (d / ".workspace").write_text(f"{marker or ws}\n")
    return ws


def test_a_moved_home_finds_its_sessions_through_the_workspace_id(tmp_path):
    """Extracted elsewhere: the marker still names the old path, which is gone. nanobot follows
    the workspace id (and would update the marker); we follow it too, writing nothing."""
    from conftest import tree_state
    ws = nanobot_home(tmp_path, marker="/home/someone/.nanobot/workspace")
    before = tree_state(tmp_path)
    found, problems = scan_sessions(tmp_path, ws)
    assert [s.key for s in found] == ["telegram:5512"] and problems == []
    assert tree_state(tmp_path) == before


def test_a_copied_home_whose_original_still_exists_is_reported_not_compacted(tmp_path):
    """nanobot treats a copy whose original still exists as a new workspace (new, empty
    sessions): compacting the original's chats from the copy would feed them in twice."""
    original = tmp_path / "orig" / "workspace"
    original.mkdir(parents=True)
    ws = nanobot_home(tmp_path / "copy", marker=original)
    found, problems = scan_sessions(tmp_path / "copy", ws)
    assert found == []
    assert len(problems) == 1 and str(original) in problems[0].message and "copy" in problems[0].message


def test_sessions_that_exist_but_are_bound_to_no_workspace_are_reported(tmp_path):
    ws = nanobot_home(tmp_path, marker=tmp_path / "elsewhere")
    (ws / ".nanobot" / "workspace-id").unlink()
    found, problems = scan_sessions(tmp_path, ws)
    assert found == []
    assert [p.file for p in problems] == ["sessions/"] and "none bound to this workspace" in problems[0].message


def test_a_broken_workspace_id_is_said_in_words(tmp_path):
    ws = nanobot_home(tmp_path)
    (ws / ".nanobot" / "workspace-id").write_text("not-an-id\n")
    found, problems = scan_sessions(tmp_path, ws)
    assert found == [] and "32-digit workspace id" in problems[0].message


def test_status_carries_the_binding_problem(tmp_path):
    from dreamdesk.engine.overview.status import read_status
    from dreamdesk.engine.home.workspace import Workspace
    ws = nanobot_home(tmp_path, marker=tmp_path / "elsewhere")
    (ws / ".nanobot" / "workspace-id").unlink()
    (ws / "USER.md").write_text("# User\n")
    st = read_status(Workspace.open(tmp_path))
    assert any(p.file == "sessions/" for p in st.problems)


def test_only_the_checkpoint_marker_is_hidden_from_memory_not_a_subagents_result():
    """nanobot archives hidden messages such as a subagent's result; only the summary
    checkpoint's continuation marker (hidden, with its fixed text) stays out."""
    from dreamdesk.engine.assistants.sessions import CHECKPOINT_TEXT, archivable
    assert archivable({"role": "user", "content": "done: 3 files", "_hidden_history": {"kind": "subagent_result"}})
    assert not archivable({"role": "user", "content": CHECKPOINT_TEXT, "_hidden_history": True})
    assert not archivable({"role": "user", "content": "/status", "_command": True})


def test_a_marker_with_a_nul_byte_is_skipped_not_a_crash(tmp_path):
    ws = nanobot_home(tmp_path)
    (ws / ".nanobot" / "workspace-id").unlink()
    (tmp_path / "sessions" / WID / ".workspace").write_text("/x\0y\n")
    found, problems = scan_sessions(tmp_path, ws)
    assert found == [] and [p.file for p in problems] == ["sessions/"]


def test_a_gateway_record_with_an_impossible_pid_is_not_running(tmp_path):
    import json
    from dreamdesk.engine.home.gateway import running_assistant
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "gateway.json").write_text(json.dumps({"pid": 99999999999999999999, "clients": {"a": {"pid": -4}}}))
    (tmp_path / "run" / "api.1234.json").write_text("{not json")
    assert running_assistant(tmp_path) is None
