"""An OpenClaw home found from the folder the user gives, its openclaw.json read as JSON5, its
agents and their workspaces, and why it is OpenClaw's (issue 28 item 1, reading), on homes built
here as OpenClaw 2026.9.6 lays them out (dist/paths-*.mjs, dist/workspace-default-*.mjs,
dist/agent-scope-config-*.mjs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants import openclaw_home as oh

SEEDED = {"AGENTS.md": "# AGENTS.md\n", "SOUL.md": "# SOUL.md\n", "IDENTITY.md": "# IDENTITY.md\n", "USER.md": "# USER.md\n"}


def seed(ws: Path, **extra: str) -> Path:
    for name, text in {**SEEDED, **extra}.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text, encoding="utf-8")
    return ws


def make_home(root: Path, config: str | None = "{}", *workspaces: str) -> Path:
    root.mkdir(parents=True)
    if config is not None:
        (root / "openclaw.json").write_text(config, encoding="utf-8")
    for w in workspaces or ("workspace",):
        seed(root / w)
    return root


@pytest.fixture
def env(tmp_path) -> dict:
    """An environment whose own OpenClaw home is somewhere else (none of these tests' homes)."""
    return {"HOME": str(tmp_path / "user")}


def test_the_state_folder_its_config_and_its_workspace_folder_all_open_the_same_home(tmp_path, env):
    home = make_home(tmp_path / ".openclaw")
    (home / "state").mkdir()
    (home / "state" / "openclaw.sqlite").write_bytes(b"SQLite format 3\x00")
    for given in (home, home / "openclaw.json", home / "workspace"):
        found = oh.locate(given, env)
        assert found.state_dir == home and found.config_path == home / "openclaw.json"
        assert [(a.id, a.workspace) for a in found.agents] == [("main", home / "workspace")]
        assert found.agent().workspace == home / "workspace" and found.problems == ()
    assert oh.locate(home, env).why == (
        "openclaw.json: OpenClaw's config (JSON5)",
        "state/openclaw.sqlite: OpenClaw's state database (2026.6.5 and later)",
        "workspace/IDENTITY.md beside SOUL.md or AGENTS.md: OpenClaw's onboarding seeds them")


def test_a_config_with_comments_trailing_commas_and_bare_keys_reads(tmp_path, env):
    config = """{
      // the roster
      agents: {
        defaults: { bootstrapMaxChars: 12000, },
        entries: { main: { name: 'Claw', }, 'Work Bot': { workspace: '~/work-ws' }, },
      },
    }"""
    home = make_home(tmp_path / ".openclaw", config, "workspace")
    found = oh.locate(home, env)
    assert found.problems == () and found.config["agents"]["defaults"]["bootstrapMaxChars"] == 12000
    # "Work Bot" normalizes to "work-bot"; its ~ is OpenClaw's home (HOME here)
    assert [(a.id, a.workspace, a.name) for a in found.agents] == [
        ("main", home / "workspace-main", "Claw"), ("work-bot", Path(env["HOME"]) / "work-ws", None)]
    assert found.default_agent is None and found.agent() is None      # several agents, none marked: choose


def test_a_broken_config_is_a_problem_in_words_and_the_workspace_is_still_found(tmp_path, env):
    home = make_home(tmp_path / ".openclaw", "{ agents: { defaults: { workspace: '/x' } ")
    found = oh.locate(home / "workspace", env)
    assert found.config == {} and len(found.problems) == 1
    assert found.problems[0].startswith("openclaw.json is not valid JSON5 (") and "default workspace" in found.problems[0]
    assert found.agent().workspace == home / "workspace"
    array = make_home(tmp_path / "other", "[1, 2]")
    assert oh.locate(array, env).problems == ("openclaw.json holds a list, not an object: its settings are ignored here",)


def test_a_default_marked_agent_gets_the_default_workspace_and_the_others_their_own(tmp_path, env):
    config = '{"agents": {"entries": {"main": {}, "ops": {"default": true}, "cron": {}}}}'
    home = make_home(tmp_path / ".openclaw", config, "workspace", "workspace-main", "workspace-cron")
    found = oh.locate(home, env)
    assert found.default_agent == "ops" and found.agent().id == "ops"
    assert {a.id: a.workspace.name for a in found.agents} == {"main": "workspace-main", "ops": "workspace",
                                                              "cron": "workspace-cron"}
    opened = oh.locate(home / "workspace-cron", env)
    assert opened.opened == home / "workspace-cron" and opened.agent().id == "cron"
    explicit = '{"agents": {"ownership": "explicit", "entries": {"main": {}, "ops": {"default": true}}}}'
    assert oh.default_agent_id(oh.parse_config(explicit)[0]) is None


def test_agents_defaults_workspace_is_the_default_agents_and_the_parent_of_the_others(tmp_path, env):
    shared = tmp_path / "shared"
    config = '{"agents": {"defaults": {"workspace": "%s"}, "list": [{"id": "main", "default": true}, {"id": "Ops"}]}}'
    home = make_home(tmp_path / ".openclaw", config % shared)
    found = oh.locate(home, env)
    assert {a.id: a.workspace for a in found.agents} == {"main": shared, "ops": shared / "ops"}
    seed(shared / "ops")
    assert oh.locate(home, env).agent("OPS").workspace == shared / "ops"


def test_a_profile_folder_and_the_environments_own_home(tmp_path):
    user = tmp_path / "user"
    profile = make_home(user / ".openclaw-work")
    env = {"HOME": str(user), "OPENCLAW_PROFILE": "work"}
    assert oh.default_state_dir(env) == profile and oh.default_state_dir({"HOME": str(user)}) == user / ".openclaw"
    assert oh.default_state_dir({**env, "OPENCLAW_STATE_DIR": "~/elsewhere"}) == user / "elsewhere"
    assert oh.default_state_dir({"HOME": str(user), "OPENCLAW_HOME": "~/oc"}) == user / "oc" / ".openclaw"
    # OPENCLAW_WORKSPACE_DIR moves the workspace of the environment's own home only
    moved = seed(tmp_path / "moved")
    assert oh.locate(profile, {**env, "OPENCLAW_WORKSPACE_DIR": str(moved)}).agent().workspace == moved
    assert oh.locate(profile, {"HOME": str(user), "OPENCLAW_WORKSPACE_DIR": str(moved)}).agent().workspace == \
        profile / "workspace"
    # a workspace elsewhere is found from the environment's home that names it
    assert oh.locate(moved, {**env, "OPENCLAW_WORKSPACE_DIR": str(moved)}).state_dir == profile


def test_a_bare_workspace_is_openclaws_by_its_signs_and_a_nanobot_one_is_not(tmp_path, env):
    ws = seed(tmp_path / "ws", **{"MEMORY.md": "- m\n", "memory/2026-12-06.md": "- n\n"})
    found = oh.locate(ws, env)
    assert found.state_dir is None and found.agent().workspace == ws
    assert found.why == ("ws/IDENTITY.md beside SOUL.md or AGENTS.md: OpenClaw's onboarding seeds them",
                         "ws/MEMORY.md at the top with daily notes in memory/: OpenClaw's memory layout")
    assert "no OpenClaw state folder" in found.problems[0]
    nanobot = tmp_path / "nb"
    for name in ("AGENTS.md", "SOUL.md", "USER.md", "memory/MEMORY.md", "memory/history.jsonl"):
        (nanobot / name).parent.mkdir(parents=True, exist_ok=True)
        (nanobot / name).write_text("x", encoding="utf-8")
    assert oh.locate(nanobot, env) is None and oh.locate(tmp_path / "nowhere", env) is None


def test_a_folder_opened_that_no_agent_uses_is_said(tmp_path, env):
    home = make_home(tmp_path / ".openclaw", '{"agents": {"defaults": {"workspace": "/srv/claw"}}}', "workspace")
    found = oh.locate(home / "workspace", env)
    assert found.agent() is None and found.problems == (f"{home / 'workspace'} is no agent's workspace in openclaw.json",)


def test_agent_ids_normalize_as_openclaw_does():
    assert [oh.normalize_agent_id(v) for v in ("Main", " ops ", "Work Bot!", "--x--", "", None, "é")] == \
        ["main", "ops", "work-bot", "x", "main", "main", "main"]
    assert oh.agent_ids({}) == ["main"] and oh.agent_ids({"agents": {"entries": {}}}) == []


def test_locating_and_reading_write_nothing(tmp_path, env):
    home = make_home(tmp_path / ".openclaw", "{ agents: { defaults: {}, }, }")
    before = tree_state(tmp_path)
    oh.locate(home / "workspace", env)
    oh.locate(home, env)
    assert tree_state(tmp_path) == before
