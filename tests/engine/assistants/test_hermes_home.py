"""engine/assistants/hermes_home.py: a Hermes home is found as Hermes finds it, its config.yaml's
memory settings are read as Hermes reads them (YAML 1.1, the last of a repeated key, the
administrator's managed values over the home's; checked against Hermes's own loader in
tests/interop/hermes/test_hermes_config_interop.py), its signs are said in words, and reading
creates, writes or locks nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import tree_state

from dreamdesk.engine.assistants import hermes_home as hh
from interop.hermes.oracles import load

DEFAULTS = {"memory": 2200, "user": 1375}


def fixture_home(name: str, dest: Path) -> Path:
    """A copy of a fixture home with the empty folders Hermes made (git keeps none)."""
    f = load(name)
    shutil.copytree(f["home"], dest)
    for rel in f["manifest"]["empty_folders"]:
        (dest / rel).mkdir(parents=True, exist_ok=True)
    return dest


def settings(tmp_path: Path, text: str | bytes | None, managed: str | None = None) -> hh.MemorySettings:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    if text is not None:
        (home / "config.yaml").write_bytes(text.encode() if isinstance(text, str) else text)
    folder = None
    if managed is not None:
        folder = tmp_path / "managed"
        folder.mkdir(exist_ok=True)
        (folder / "config.yaml").write_text(managed)
    return hh.read_settings(home, env={}, managed=folder)


# -- where ---------------------------------------------------------------------------------------
def test_default_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hh.default_home({}, "linux") == (tmp_path / ".hermes", "Hermes's default home")
    assert hh.default_home({"HERMES_HOME": "  /srv/h  "}, "linux") == (Path("/srv/h"), "HERMES_HOME names it")
    assert hh.default_home({"HERMES_HOME": "  "}, "linux")[0] == tmp_path / ".hermes"
    assert hh.default_home({"LOCALAPPDATA": "C:/Users/a/AppData/Local"}, "win32")[0] == Path("C:/Users/a/AppData/Local/hermes")


def test_locate_the_home_from_what_was_given(tmp_path):
    home = tmp_path / "h"
    assert hh.locate(home) == (home, "the folder given")
    assert hh.locate(home / "memories")[0] == home
    assert hh.locate(home / "memories" / "USER.md")[0] == home
    assert hh.locate(None, {"HERMES_HOME": str(home)})[0] == home
    (home / "memories" / "memories").mkdir(parents=True)         # a home that is itself called memories
    assert hh.locate(home / "memories")[0] == home / "memories"


@pytest.mark.parametrize("name", ["fresh", "full", "over-limit", "configured"])
def test_every_fixture_is_a_hermes_home_and_reading_it_creates_nothing(name, tmp_path):
    home = fixture_home(name, tmp_path / "home")
    before = tree_state(tmp_path)
    found = hh.read_home(home / "memories", env={}, managed=None)
    assert found is not None and found.path == home and found.why
    assert found.settings.limits == load(name)["oracle"]["read"]["limits"]
    assert tree_state(tmp_path) == before


def test_signs_in_words(tmp_path):
    home = fixture_home("full", tmp_path / "home")
    assert hh.signs(home) == [
        "memories/MEMORY.md, Hermes's notes", "memories/USER.md, Hermes's user profile",
        "memories/MEMORY.md.lock and USER.md.lock: Hermes has written its memory here", "SOUL.md, its persona",
        "9 of the 9 folders Hermes makes at its first start (cron, sessions, logs, …)"]


def test_other_assistants_homes_are_not_hermes_s(tmp_path):
    for rel in ("workspace/memory/MEMORY.md", "workspace/MEMORY.md", "workspace/USER.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "config.json").write_text("{}")
    assert not hh.is_hermes_home(tmp_path) and hh.read_home(tmp_path, env={}, managed=None) is None
    (tmp_path / "memories").mkdir()
    assert not hh.is_hermes_home(tmp_path)                   # an empty memories/ alone says nothing
    (tmp_path / "memories" / "USER.md").write_text("x")
    assert hh.is_hermes_home(tmp_path)


def test_a_profile_says_so(tmp_path):
    home = tmp_path / ".hermes" / "profiles" / "work"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("x")
    assert hh.signs(home)[-1] == f"a Hermes profile (work) under {home.parent}"


# -- config.yaml -----------------------------------------------------------------------------------
def test_no_config_is_the_defaults(tmp_path):
    s = settings(tmp_path, None)
    assert (s.limits, s.prompt_limits, s.enabled, s.problems) == (DEFAULTS, DEFAULTS, {"memory": True, "user": True}, ())


def test_the_configured_fixture(tmp_path):
    home = fixture_home("configured", tmp_path / "home")
    s = hh.read_settings(home, env={}, managed=None)
    assert s.limits == s.prompt_limits == {"memory": 1800, "user": 2000} and not s.problems


@pytest.mark.parametrize("value, limit, prompt, problem", [
    ("3000", 3000, 3000, None), ("2_000", 2000, 2000, None), ("0x400", 1024, 1024, None),
    ("04000", 2048, 2048, None), ("1:30", 90, 90, None),                        # YAML 1.1, as PyYAML
    ("2300.0", 2300, 2300.0, "is 2300.0, not a whole number"), ("true", 1, True, "which Hermes reads as the number 1"),
    ("0", 0, 0, "refuses every entry added"), ("-5", -5, -5, "refuses every entry added"),
    ('"3000"', 3000, None, "is '3000', not a number: a Hermes session then injects neither"),
    ("1e3", 2200, None, "is '1e3', not a number"),                          # text to YAML 1.1
    ("1.5e3", 2200, None, "is '1.5e3', not a number"), ("abc", 2200, None, "is 'abc', not a number"),
    ("null", 2200, None, "is None, not a number"), ("[1]", 2200, None, "is [1], not a number"),
])
def test_a_limit_as_hermes_reads_it(tmp_path, value, limit, prompt, problem):
    s = settings(tmp_path, f"memory:\n  memory_char_limit: {value}   # a comment\n  user_char_limit: 1000\n")
    assert s.limits == {"memory": limit, "user": 1000 if limit != 2200 else 1375}     # 2200: int() failed
    assert (s.prompt_limits or {}).get("memory") == prompt
    assert (problem is None) == (not s.problems)
    if problem:
        assert problem in s.problems[0]


def test_one_limit_hermes_cannot_read_resets_both(tmp_path):
    """load_on_disk_store takes int() of both in one try: either failing gives both defaults."""
    s = settings(tmp_path, "memory:\n  memory_char_limit: abc\n  user_char_limit: 1000\n")
    assert s.limits == DEFAULTS and s.prompt_limits is None
    assert s.problems[-1].startswith("Hermes's /memory command and gateway then use the default limits for both")


def test_the_last_of_a_repeated_key_wins(tmp_path):
    s = settings(tmp_path, "memory:\n  user_char_limit: 10\nmemory:\n  user_char_limit: 1000\n  user_char_limit: 999\n")
    assert s.limits == {"memory": 2200, "user": 999}


@pytest.mark.parametrize("text, limits, enabled", [
    ("memory:\n", DEFAULTS, {"memory": True, "user": True}),                  # an empty section is ignored
    ("memory:\n  memory_enabled: no\n", DEFAULTS, {"memory": False, "user": True}),
    ("memory:\n  user_profile_enabled: null\n", DEFAULTS, {"memory": True, "user": False}),
    ("memory:\n  memory_enabled: 'false'\n", DEFAULTS, {"memory": True, "user": True}),   # text is true to Python
    ("# only comments\n", DEFAULTS, {"memory": True, "user": True}),
    ("", DEFAULTS, {"memory": True, "user": True}),
])
def test_switches_and_empty_sections(tmp_path, text, limits, enabled):
    s = settings(tmp_path, text)
    assert (s.limits, s.enabled, s.problems) == (limits, enabled, ())


@pytest.mark.parametrize("text, words", [
    ("memory: [\n", "config.yaml is not valid YAML"), ("- a\n- b\n", "config.yaml holds no mapping"),
    (b"memory:\n  memory_char_limit: 10 # caf\xe9\n", "config.yaml could not be read"),
    ("memory: 5\n", "memory: in config.yaml is 5, not a mapping"),
])
def test_configs_hermes_ignores(tmp_path, text, words):
    s = settings(tmp_path, text)
    assert s.limits == DEFAULTS and words in s.problems[0]


def test_a_section_that_is_no_mapping_turns_memory_off(tmp_path):
    s = settings(tmp_path, "memory: 5\n")
    assert s.prompt_limits is None and s.enabled == {"memory": False, "user": False}


def test_the_administrators_values_win(tmp_path):
    s = settings(tmp_path, "memory:\n  memory_char_limit: 1000\n  user_char_limit: 900\n",
                 managed="memory:\n  user_char_limit: 500\n")
    assert s.limits == {"memory": 1000, "user": 500}
    s = settings(tmp_path, "memory: 5\n", managed="memory:\n  user_char_limit: 500\n")
    assert s.limits == {"memory": 2200, "user": 500}


def test_the_managed_folder(tmp_path):
    assert hh.managed_dir({"HERMES_MANAGED_DIR": str(tmp_path)}) == tmp_path
    assert hh.managed_dir({"HERMES_MANAGED_DIR": str(tmp_path / "absent")}) is None
