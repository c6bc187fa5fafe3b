"""OpenClaw's memory settings written to its own openclaw.json (issue 29 item 7): where each one
lives, what OpenClaw would refuse (refused in words, nothing written), the user's text kept byte
for byte outside the changed values, the write hash-checked and keeping the file's mode, no write
when nothing changes; and the what-if computed by the code that computes the cut now."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dreamdesk.engine.assistants import assistant_of, open_home
from dreamdesk.engine.assistants import openclaw_config_write as ocw
from dreamdesk.engine.core.problems import ConflictError, WorkspaceError

from helpers.openclaw_homes import copy_home
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

# openclaw.json as a person keeps it: comments, bare and single-quoted keys, trailing commas
HAND = """// my OpenClaw
{
  agents: {
    defaults: {
      workspace: 'WS',
      bootstrapMaxChars: 6000, // MEMORY.md kept getting cut
    },
    entries: {
      main: { name: "main", workspace: 'WS', },
    },
  },
  /* the model */
  models: { mode: "merge", },
}
"""


def _home(tmp_path: Path, text: str | None = None) -> tuple[Path, Path]:
    home = copy_home("over-cap", tmp_path)
    cfg = home / "openclaw.json"
    if text is not None:
        cfg.write_text(text.replace("WS", str(home / "workspace")), encoding="utf-8")
    return home, cfg


def _open(home: Path, agent: str | None = None):
    ws = open_home(home, agent)
    return ws, assistant_of(ws)


def test_the_settings_say_where_each_lives_and_what_is_in_effect(tmp_path):
    home, _ = _home(tmp_path)
    ws, oc = _open(home)
    st = oc.own_settings(ws)
    assert st.file == home / "openclaw.json" and not st.refused
    assert [(s.key, s.where, s.value, s.written) for s in st.settings] == [
        ("bootstrapMaxChars", "agents.defaults.bootstrapMaxChars", 6000, True),
        ("bootstrapTotalMaxChars", "agents.defaults.bootstrapTotalMaxChars", 60000, False),
        ("dreaming.enabled", "plugins.entries.memory-core.config.dreaming.enabled", True, False),
        ("dreaming.frequency", "plugins.entries.memory-core.config.dreaming.frequency", "0 3 * * *", False)]
    assert "every agent without its own value" in st.settings[0].note


def test_each_setting_is_written_in_place_and_the_rest_of_the_text_stays(tmp_path):
    home, cfg = _home(tmp_path, HAND)
    before = cfg.read_text(encoding="utf-8")
    ws, oc = _open(home)
    done = oc.write_own_settings(ws, {"bootstrapMaxChars": "9000", "bootstrapTotalMaxChars": 30000,
                                      "dreaming.enabled": False, "dreaming.frequency": "30 4 * * 1-5"})
    assert [c[1] for c in done.changed] == ["agents.defaults.bootstrapMaxChars",
                                           "agents.defaults.bootstrapTotalMaxChars",
                                           "plugins.entries.memory-core.config.dreaming.enabled",
                                           "plugins.entries.memory-core.config.dreaming.frequency"]
    assert cfg.read_text(encoding="utf-8") == before.replace(
        "      bootstrapMaxChars: 6000, // MEMORY.md kept getting cut\n",
        "      bootstrapMaxChars: 9000, // MEMORY.md kept getting cut\n      bootstrapTotalMaxChars: 30000,\n"
    ).replace("""  models: { mode: "merge", },\n""", """  models: { mode: "merge", },
  plugins: {
    entries: {
      "memory-core": {
        config: {
          dreaming: {
            enabled: false,
            frequency: "30 4 * * 1-5",
          },
        },
      },
    },
  },
""")
    st = assistant_of(ws).own_settings(ws)
    assert [s.value for s in st.settings] == [9000, 30000, False, "30 4 * * 1-5"]


def test_an_agent_with_its_own_cap_gets_it_there_and_the_others_keep_theirs(tmp_path):
    home, cfg = _home(tmp_path, HAND.replace("name: \"main\",", "name: \"main\", bootstrapMaxChars: 3000,"))
    ws, oc = _open(home)
    assert oc.own_settings(ws).find("bootstrapMaxChars").where == "agents.entries.main.bootstrapMaxChars"
    before = cfg.read_text(encoding="utf-8")
    oc.write_own_settings(ws, {"bootstrapMaxChars": 4000})
    assert cfg.read_text(encoding="utf-8") == before.replace("bootstrapMaxChars: 3000,", "bootstrapMaxChars: 4000,")
    # a roster kept as agents.list: the agent's own entry in the list
    listed = json.loads(json.dumps({"agents": {"defaults": {"workspace": str(home / "workspace")},
                                               "list": [{"id": "main", "bootstrapTotalMaxChars": 50000}]}}))
    cfg.write_text(json.dumps(listed, indent=2), encoding="utf-8")
    ws, oc = _open(home)
    oc.write_own_settings(ws, {"bootstrapTotalMaxChars": 40000})
    assert json.loads(cfg.read_text(encoding="utf-8"))["agents"]["list"][0]["bootstrapTotalMaxChars"] == 40000


def test_no_write_when_nothing_changes(tmp_path):
    home, cfg = _home(tmp_path, HAND)
    st = os.stat(cfg)
    ws, oc = _open(home)
    done = oc.write_own_settings(ws, {"bootstrapMaxChars": 6000, "bootstrapTotalMaxChars": 60000,
                                      "dreaming.enabled": True, "dreaming.frequency": " 0 3 * * * "})
    assert done.changed == () and "nothing written" in done.said()
    after = os.stat(cfg)
    assert (after.st_ino, after.st_mtime_ns) == (st.st_ino, st.st_mtime_ns)


@pytest.mark.parametrize("key, value, words", [
    ("bootstrapMaxChars", 0, "must be a whole number ≥ 1, got 0"),
    ("bootstrapMaxChars", "1.5", "must be a whole number ≥ 1, got 1.5"),
    ("bootstrapTotalMaxChars", 2 ** 53, "must be at most 9,007,199,254,740,991"),
    ("dreaming.enabled", "maybe", "must be true or false"),
    ("dreaming.frequency", "", "must be a non-empty string"),
    ("dreaming.frequency", "every night", "a cron expression has 5"),
    ("dreaming.frequency", "0 25 * * *", "outside 0-23"),
    ("agents.defaults.model", "x", "not one of the settings Dreamdesk writes here"),
])
def test_a_value_openclaw_would_refuse_is_refused_in_words_and_nothing_is_written(tmp_path, key, value, words):
    home, cfg = _home(tmp_path, HAND)
    before = cfg.read_bytes()
    ws, oc = _open(home)
    with pytest.raises((WorkspaceError, ValueError), match=words):
        oc.write_own_settings(ws, {"bootstrapMaxChars": 7000, key: value})
    assert cfg.read_bytes() == before


@pytest.mark.parametrize("text, words", [
    ('{"$include": "./more.json5", agents: {}}', r"has \$include directives: OpenClaw merges the files it names"),
    ("{agents: {defaults: {bootstrapMaxChars: 6000,}}", "is not valid JSON5"),
])
def test_a_config_dreamdesk_cannot_edit_safely_is_refused_in_words(tmp_path, text, words):
    home, cfg = _home(tmp_path, text)
    ws, oc = _open(home)
    assert oc.own_settings(ws).refused
    with pytest.raises(WorkspaceError, match=words + ".*nothing written"):
        oc.write_own_settings(ws, {"bootstrapMaxChars": 7000})
    assert cfg.read_text(encoding="utf-8") == text


def test_a_symlinked_config_and_another_memory_plugin_are_refused(tmp_path):
    home, cfg = _home(tmp_path, HAND)
    real = tmp_path / "dotfiles-openclaw.json"
    cfg.rename(real)
    cfg.symlink_to(real)
    ws, oc = _open(home)
    with pytest.raises(WorkspaceError, match="is a symlink or no regular file"):
        oc.write_own_settings(ws, {"bootstrapMaxChars": 7000})
    assert cfg.is_symlink() and real.read_text(encoding="utf-8") == HAND.replace("WS", str(home / "workspace"))
    cfg.unlink()
    cfg.write_text('{plugins: {slots: {memory: "lancedb"}}}', encoding="utf-8")
    ws, oc = _open(home)
    assert oc.own_settings(ws).refusal("bootstrapMaxChars", 7000) is None
    with pytest.raises(WorkspaceError, match="names lancedb, not memory-core"):
        oc.write_own_settings(ws, {"dreaming.enabled": False})


def test_the_file_keeps_its_mode_and_a_change_since_the_read_is_not_overwritten(tmp_path, monkeypatch):
    home, cfg = _home(tmp_path, HAND)
    os.chmod(cfg, 0o600)
    ws, oc = _open(home)
    oc.write_own_settings(ws, {"bootstrapMaxChars": 7000})
    assert os.stat(cfg).st_mode & 0o777 == 0o600
    theirs = cfg.read_text(encoding="utf-8").replace("// my OpenClaw", "// my OpenClaw, edited meanwhile")
    edit = ocw.set_value

    def openclaw_writes_meanwhile(text, path, value):
        cfg.write_text(theirs, encoding="utf-8")
        return edit(text, path, value)
    monkeypatch.setattr(ocw, "set_value", openclaw_writes_meanwhile)
    with pytest.raises(ConflictError, match="changed on disk since it was read; nothing was written"):
        oc.write_own_settings(ws, {"bootstrapMaxChars": 8000})
    assert cfg.read_text(encoding="utf-8") == theirs


def test_the_what_if_is_the_cut_openclaw_would_make_with_those_caps(tmp_path):
    """The preview of a cap equals what the sizes say once it is written (the same code)."""
    home, cfg = _home(tmp_path)
    ws, oc = _open(home)
    st = oc.own_settings(ws)
    for values in ({"bootstrapMaxChars": 9000}, {"bootstrapMaxChars": 3000}, {"bootstrapTotalMaxChars": 12000}):
        w = st.what_if(values)
        home2, _ = _home(tmp_path / str(len(list(tmp_path.iterdir()))))
        ws2, oc2 = _open(home2)
        oc2.write_own_settings(ws2, values)
        sizes = {f.path: f for f in assistant_of(ws2).sizes(ws2, ws2.config()).files}
        for f in w.detail["files"]:
            assert f["cut_then"] == len(sizes[f["path"]].cut), (values, f["path"])
            assert [e["line"] for e in f["entries_then"]] == [c.line for c in sizes[f["path"]].cut]
    w = st.what_if({"bootstrapMaxChars": 9000})
    assert "MEMORY.md (8,040 chars), cap 6,000 → 9,000: would fit whole (now: 17 entries in the cut)" in w.lines
    assert "USER.md (5,235 chars), cap 4,000: 17 entries in the cut, as now" in w.lines
    assert any(x.startswith("Dreaming's promotion budget for MEMORY.md: 6,000 → 9,000") for x in w.lines)
    w = st.what_if({"bootstrapMaxChars": 5000})
    memory = next(f for f in w.detail["files"] if f["path"] == "MEMORY.md")
    assert (memory["cut_now"], memory["cut_then"]) == (17, len(memory["entries_then"])) and memory["cut_then"] > 17
    assert any(line.endswith("(new): - Fact 32: the build server rack 32 runs nightly jobs and needs a reboot "
                             "every Sunday.") or "(new)" in line for line in w.details)


def test_the_what_if_of_dreaming_says_when_it_sweeps_next(tmp_path, monkeypatch):
    monkeypatch.setenv("DREAMDESK_TODAY", "2026-12-08")           # noon UTC
    home, _ = _home(tmp_path)
    ws, oc = _open(home)
    st = oc.own_settings(ws)
    (line,) = st.what_if({"dreaming.frequency": "0 4 * * *"}).lines
    assert line.startswith("Dreaming on, by 0 4 * * *: next sweep 2026-12-09 04:00 UTC. OpenClaw's Gateway reads it")
    assert st.what_if({"dreaming.enabled": False}).lines[0].startswith("Dreaming off: no sweep runs")
    assert st.what_if({"dreaming.frequency": "banana"}).lines == ()      # refused: said by the form, not previewed
