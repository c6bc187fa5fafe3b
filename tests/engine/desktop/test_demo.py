"""The shipped demo workspace: realistic, near its budgets, with known malformed lines."""

import json
from collections import Counter

from conftest import DEMO_HOME
from dreamdesk.engine.cli import main
from dreamdesk.engine.overview.status import read_status
from dreamdesk.engine.home.workspace import Workspace

MALFORMED = {27: "not valid JSON", 75: 'got a str ("75")', 91: "got a bool (true)", 97: 'missing field "content"',
             109: "not valid UTF-8"}


def test_status_json_reports_malformed_lines_by_number(capsys):
    assert main(["status", str(DEMO_HOME), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    bad = {p["line"]: p["message"] for p in data["problems"] if p["file"] == "memory/history.jsonl"}
    assert set(bad) == set(MALFORMED)
    for line, needle in MALFORMED.items():
        assert needle in bad[line]
    assert data["history_entries"] == 120 and data["pending"] == 25
    assert data["cursor"] == 125 and data["dream_cursor"] == 99


def test_demo_shape():
    st = read_status(Workspace.open(DEMO_HOME))
    sizes = {f.path: f for f in st.files}
    assert sizes["memory/MEMORY.md"].state == "near"          # "budgets near the limit"
    assert sizes["USER.md"].fraction > 0.85
    assert sum(1 for f in st.files if f.kind == "skill") == 2
    keys = Counter(e.session_key for e in st.history.entries)
    assert {k for k in keys if k} == {"telegram:5512", "cli:direct", "slack:D04AR7"}
    assert keys[None] > 0                                      # the older format without session_key
    assert any("\u2028" in e.content for e in st.history.entries)
    assert any(e.content.startswith("[RAW]") for e in st.history.entries)
    assert any("[correction]" in e.content for e in st.history.pending(st.dream_cursor))
    projects = [s for s in st.sessions if s.is_project]
    assert [s.key for s in projects] == ["project:blog-redesign"]
    assert all(s.unconsolidated > 0 for s in st.sessions)
    raw = json.loads((DEMO_HOME / "config.json").read_text())
    assert {"channels", "tools"} <= set(raw)                   # unknown keys to preserve


def test_demo_replay_makes_a_believable_run(demo_home, capsys):
    replay = DEMO_HOME / "dream-replay.jsonl"
    from conftest import tree_state
    before = tree_state(demo_home)
    assert main(["dream", str(demo_home), "--replay", str(replay), "--review", "--dry-run", "--json"]) == 0
    dry = json.loads(capsys.readouterr().out)
    assert tree_state(demo_home) == before                     # the dry run touched nothing
    assert main(["dream", str(demo_home), "--replay", str(replay), "--review", "--json"]) == 0
    real = json.loads(capsys.readouterr().out)
    assert real["status"] == "completed" and real["cursor"] == {"before": 99, "after": 120}
    # the dry run previewed exactly what the real run wrote
    from dreamdesk.engine.text.diffs import diff_texts
    expected = "".join(diff_texts((DEMO_HOME / "workspace" / d["path"]).read_text(encoding="utf-8"),
                                  (demo_home / "workspace" / d["path"]).read_text(encoding="utf-8"),
                                  d["path"]).unified() for d in dry["diffs"])
    assert dry["unified"] == expected
    assert {d["path"] for d in dry["diffs"]} == {w["file"] for w in real["record"]["writes"]}
    rec = real["record"]
    assert rec["review"]["archived"] and rec["review"]["chars_freed"] > 0
    assert len(rec["refused"]) == 1 and rec["user_md"] is not None
    kinds = {c["kind"] for c in rec["created"]}
    assert {"explicit", "deductive", "inductive"} <= kinds
    assert main(["archive", str(demo_home), "--json"]) == 0
    archived = json.loads(capsys.readouterr().out)["entries"]
    assert {a["id"] for a in archived} >= set(rec["review"]["archived"])

