"""Which assistant wrote a home, and the prompt preview of that assistant (issue 10.7): a
nanobot 0.3.x home is previewed as nanobot 0.3.5's ContextBuilder.build_system_prompt builds it
(checked by hand against nanobot's own code on these homes, 2026-12-01): no pending history,
AGENTS.md and USER.md skipped when identical to nanobot's template, a legacy SOUL.md template
replaced by the current one, MEMORY.md under "# Memory / ## Long-term Memory", skills marked
always injected whole."""

from __future__ import annotations

import json

import pytest

from dreamdesk.engine.assistants import JENNY, NANOBOT, assistant_of
from dreamdesk.engine.cli import main
from dreamdesk.engine.assistants.prompt import build_prompt
from dreamdesk.engine.home.workspace import Workspace
from helpers.fake_templates import TEMPLATES

pytestmark = pytest.mark.usefixtures("fake_templates")

HIST = "".join(json.dumps({"cursor": i, "timestamp": "2026-11-01 10:00", "content": f"- [durable] fact {i}"}) + "\n"
               for i in range(1, 6))


def nanobot_home(make_workspace, tmp_path, **files):
    """A home as nanobot 0.3.5's onboarding leaves it: its templates, its config keys, the
    workspace-id its SessionManager writes, pending history."""
    home = tmp_path / "nbhome"
    base = {"AGENTS.md": TEMPLATES["AGENTS.md"], "SOUL.md": TEMPLATES["SOUL.md"], "USER.md": TEMPLATES["USER.md"],
            "memory/MEMORY.md": TEMPLATES["memory/MEMORY.md"], "memory/history.jsonl": HIST,
            ".nanobot/workspace-id": "0123456789abcdef"}
    base.update(files)
    make_workspace(base, root=home / "workspace")
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {"modelPreset": None, "timezoneMode": "auto",
                                                                         "dream": {"intervalH": 2}}},
                                                  "gateway": {}, "providers": {}}))
    return home


def parts(pv):
    return {p.name: p for p in pv.parts}


def test_a_fresh_nanobot_home_injects_only_soul(make_workspace, tmp_path):
    ws = Workspace.open(nanobot_home(make_workspace, tmp_path))
    pv = build_prompt(ws, ws.history(), 0)
    assert pv.assistant.kind == NANOBOT
    p = parts(pv)
    assert [n for n, x in p.items() if x.included] == ["SOUL.md"]
    assert p["SOUL.md"].text == "## SOUL.md\n\n" + TEMPLATES["SOUL.md"]
    assert p["AGENTS.md"].note == p["USER.md"].note == "nanobot's untouched template: not injected"
    assert not p["MEMORY.md"].included
    assert not p["Pending history"].included and "5 unprocessed" in p["Pending history"].note
    assert pv.pending_shown == [] and pv.total_chars == len(p["SOUL.md"].text)
    # nanobot's order: AGENTS.md, SOUL.md, USER.md, then memory
    names = [x.name for x in pv.parts]
    assert names.index("AGENTS.md") < names.index("SOUL.md") < names.index("USER.md") < names.index("MEMORY.md")


def test_edited_files_legacy_soul_memory_and_always_skills(make_workspace, tmp_path):
    home = nanobot_home(make_workspace, tmp_path, **{
        "AGENTS.md": TEMPLATES["AGENTS.md"] + "\n- Answer in French.\n",
        "SOUL.md": TEMPLATES["legacy/SOUL.md"], "USER.md": "  \n",
        "memory/MEMORY.md": "# Long-term Memory\n\n## Projects\n\n(none yet)\n",
        "skills/tea/SKILL.md": "---\nname: tea\nalways: true\n---\n\n# Tea\n\nBrew at 80C.\n",
        "skills/other/SKILL.md": "---\nname: other\n---\n\nOther.\n"})
    ws = Workspace.open(home)
    p = parts(build_prompt(ws, ws.history(), 0))
    assert p["AGENTS.md"].included and p["AGENTS.md"].text.endswith("- Answer in French.\n")
    assert p["SOUL.md"].text == "## SOUL.md\n\n" + TEMPLATES["SOUL.md"] and "legacy" in p["SOUL.md"].note
    assert p["USER.md"].note == "empty: not injected"
    # nanobot compares with its template exactly: a headings-only MEMORY.md that is not it is injected
    assert p["MEMORY.md"].text == "# Memory\n\n## Long-term Memory\n# Long-term Memory\n\n## Projects\n\n(none yet)\n"
    assert p["Active skills"].text == "# Active Skills\n\n### Skill: tea\n\n# Tea\n\nBrew at 80C.\n"


def test_a_jenny_home_keeps_the_contracts_preview(make_workspace, tmp_path):
    root = make_workspace({"SOUL.md": "# Soul\n", "USER.md": "# User\n- Maya\n", "AGENTS.md": "# Agents\n",
                           "memory/MEMORY.md": "# Memory\n- real\n", "memory/history.jsonl": HIST})
    ws = Workspace.open(root)
    pv = build_prompt(ws, ws.history(), 0)
    assert pv.assistant.kind == JENNY and pv.assistant.why
    assert parts(pv)["Pending history"].included and len(pv.pending_shown) == 5


def test_each_sign_alone_says_nanobot(make_workspace, tmp_path):
    plain = {"SOUL.md": "# Soul\n", "USER.md": "# User\n"}
    cases = {".nanobot/workspace-id": {".nanobot/workspace-id": "abc"},
             "onboarding template": {"AGENTS.md": TEMPLATES["AGENTS.md"]},
             "/dream-prompt init": {"prompts/dream.md": "Dream."}}
    for i, (words, extra) in enumerate(cases.items()):
        ws = Workspace.open(make_workspace({**plain, **extra}, root=tmp_path / f"w{i}"))
        a = assistant_of(ws)
        assert a.kind == NANOBOT and any(words in w for w in a.why), (words, a.why)
    home = tmp_path / "h"
    make_workspace(plain, root=home / "workspace")
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {"botName": "nanobot"}}, "channels": {}}))
    assert "agents.defaults.botName" in assistant_of(Workspace.open(home)).why[0]
    (home / "config.json").write_text(json.dumps({"agents": {"defaults": {}}, "channels": {}, "tools": {}}))
    assert assistant_of(Workspace.open(home)).kind == JENNY        # shared keys say nothing
    (home / "sessions/abcdef").mkdir(parents=True)
    (home / "sessions/abcdef/.workspace").write_text(str(home / "workspace"))
    assert "nanobot's session layout" in assistant_of(Workspace.open(home)).why[0]


def test_status_json_and_prompt_cli_name_the_assistant(make_workspace, tmp_path, capsys):
    home = nanobot_home(make_workspace, tmp_path)
    assert main(["status", str(home), "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["assistant"]["kind"] == "nanobot-0.3" and any("workspace-id" in w for w in st["assistant"]["why"])
    assert main(["status", str(home)]) == 0
    assert "Assistant  nanobot 0.3.x" in capsys.readouterr().out
    assert main(["prompt", str(home), "--json"]) == 0
    pv = json.loads(capsys.readouterr().out)
    assert pv["assistant"]["kind"] == "nanobot-0.3" and pv["pending"]["shown"] == 0
    assert main(["history", str(home), "--json"]) == 0
    assert not any(e["in_prompt"] for e in json.loads(capsys.readouterr().out)["entries"])
    assert main(["prompt", str(home)]) == 0
    assert "as nanobot 0.3.x builds it" in capsys.readouterr().out
