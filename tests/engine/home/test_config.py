import json
import os

import pytest

from dreamdesk.engine.home import config as config_mod
from dreamdesk.engine.home.config import REVIEW_FLOOR, BelowFloorError, find_setting, load, noted_problems, set_value
from dreamdesk.engine.assistants.jenny import Jenny
from dreamdesk.engine.assistants.nanobot import Nanobot
from dreamdesk.engine.assistants.nanobot_config import RULES
from dreamdesk.engine.core.problems import WorkspaceError

D = "agents.defaults.dream."


def write(path, obj_or_text):
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_missing(tmp_path):
    cfg = load(tmp_path / "config.json")
    assert cfg.dream == {"enabled": True, "intervalH": 2, "memoryBudgetChars": 3000, "userBudgetChars": 3000,
                         "soulBudgetChars": 0, "reviewEveryRuns": 12, "schedule": "interval",
                         "activityThreshold": 50, "cooldownH": 8, "idleMinutes": 60, "passes.review": True,
                         "passes.consolidation": True, "passes.deduction": True, "passes.induction": True}
    assert cfg.get("idleCompactAfterMinutes") == 15
    assert cfg.get("maxMessages") == 120
    assert cfg.get("consolidationRatio") == 0.5
    assert [p.severity for p in cfg.problems] == ["info"]


def test_file_values_and_snake_case(tmp_path):
    p = write(tmp_path / "config.json", {"agents": {"defaults": {"dream": {"memory_budget_chars": 2500,
                                                                           "intervalH": 3.0}}}})
    cfg = load(p)
    assert cfg.get("memoryBudgetChars") == 2500
    assert cfg.get("intervalH") == 3 and isinstance(cfg.get("intervalH"), int)
    assert cfg.sources[D + "memoryBudgetChars"] == "file"
    assert cfg.budget_for("memory/MEMORY.md") == 2500
    assert cfg.budget_for("skills/x/SKILL.md") == 0


@pytest.mark.parametrize("key,value,needle", [
    ("intervalH", "two", 'intervalH must be a whole number ≥ 1 and ≤ 8760, got "two"'),
    ("intervalH", 0, "intervalH must be a whole number ≥ 1 and ≤ 8760, got 0"),
    ("intervalH", 1.5, "intervalH must be a whole number ≥ 1 and ≤ 8760, got 1.5; using the default 2"),
    ("memoryBudgetChars", -5, "memoryBudgetChars must be a whole number ≥ 0, got -5"),
    ("memoryBudgetChars", True, "memoryBudgetChars must be a whole number ≥ 0, got true"),
    ("userBudgetChars", 12.5, "userBudgetChars must be a whole number ≥ 0, got 12.5"),
    ("reviewEveryRuns", 0, "reviewEveryRuns must be a whole number ≥ 1, got 0"),
    ("enabled", "yes", 'enabled must be true or false, got "yes"'),
    ("schedule", "hourly", 'schedule must be one of interval, activity, got "hourly"'),
])
def test_bad_values_name_key_and_value_and_fall_back(tmp_path, key, value, needle):
    p = write(tmp_path / "config.json", {"agents": {"defaults": {"dream": {key: value}}}})
    cfg = load(p)
    setting = find_setting(key)
    assert cfg.values[setting.path] == setting.default
    assert cfg.sources[setting.path] == "invalid"
    errors = [str(x) for x in cfg.problems if x.severity == "error"]
    assert len(errors) == 1 and needle in errors[0], errors


def test_review_from_file_below_floor_is_accepted(tmp_path):
    # The file wins: a restored config with reviewEveryRuns 1 must load.
    p = write(tmp_path / "config.json", {"agents": {"defaults": {"dream": {"reviewEveryRuns": 1}}}})
    cfg = load(p)
    assert cfg.get("reviewEveryRuns") == 1 and not cfg.problems


@pytest.mark.parametrize("text,needle", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "top level must be a JSON object"),
])
def test_unparsable_config_reported_and_never_rewritten(tmp_path, text, needle):
    p = write(tmp_path / "config.json", text)
    cfg = load(p)
    assert not cfg.readable
    assert needle in str(cfg.problems[0])
    with pytest.raises(WorkspaceError, match="will not rewrite"):
        set_value(cfg, "intervalH", "3")
    assert p.read_text() == text


def test_bad_utf8_config(tmp_path):
    p = tmp_path / "config.json"
    p.write_bytes(b'{"a": "\xff"}')
    cfg = load(p)
    assert not cfg.readable and "UTF-8" in str(cfg.problems[0])


def test_round_trip_preserves_unknown_keys_order_and_spelling(tmp_path):
    original = {
        "channels": {"telegram": {"enabled": True, "token": "", "allowFrom": ["1"]}},
        "agents": {"defaults": {"model": "m", "dream": {"interval_h": 2, "extraThing": [1, {"x": None}]},
                                "unknownDefault": "ü"}},
        "providers": {"openrouter": {"apiKey": "sk-secret-123456", "apiBase": "https://x"}},
        "zeta": 1.25,
    }
    p = write(tmp_path / "config.json", original)
    cfg = set_value(load(p), "intervalH", "6")
    data = json.loads(p.read_text(encoding="utf-8"))
    expected = json.loads(json.dumps(original))
    expected["agents"]["defaults"]["dream"]["interval_h"] = 6
    assert data == expected
    assert list(data) == list(original)           # key order kept
    assert "intervalH" not in data["agents"]["defaults"]["dream"]  # spelling kept
    assert cfg.get("intervalH") == 6
    assert "ü" in p.read_text(encoding="utf-8")    # ensure_ascii=False


def test_set_creates_missing_nesting_and_file_mode(tmp_path):
    p = tmp_path / "config.json"
    cfg = set_value(load(p), "memoryBudgetChars", "2000", create_at=p)
    assert json.loads(p.read_text()) == {"agents": {"defaults": {"dream": {"memoryBudgetChars": 2000}}}}
    assert cfg.get("memoryBudgetChars") == 2000
    if os.name == "posix":
        assert (p.stat().st_mode & 0o777) == 0o600


def test_set_keeps_existing_mode(tmp_path):
    p = write(tmp_path / "config.json", {"providers": {}})
    p.chmod(0o640)
    set_value(load(p), "enabled", "false")
    assert (p.stat().st_mode & 0o777) == 0o640
    assert load(p).get("enabled") is False


@pytest.mark.parametrize("key,value,needle", [
    ("intervalH", "soon", "intervalH must be a whole number ≥ 1"),
    ("intervalH", "-1", "intervalH must be a whole number ≥ 1"),
    ("intervalH", "1.5", r"intervalH must be a whole number ≥ 1 and ≤ 8760, got 1.5$"),
    ("intervalH", "0.25", "intervalH must be a whole number ≥ 1 and ≤ 8760, got 0.25$"),
    ("idleCompactAfterMinutes", "2.5", "idleCompactAfterMinutes must be a whole number ≥ 0 and ≤ 525600, got 2.5$"),
    ("maxTokens", "0", "maxTokens must be a whole number ≥ 1, got 0$"),
    ("model", "", "model must be a non-empty string"),
    ("provider", "  ", "provider must be a non-empty string"),
    ("memoryBudgetChars", "1.5", "memoryBudgetChars must be a whole number"),
    ("enabled", "maybe", "enabled must be true or false"),
    ("schedule", "hourly", "schedule must be one of interval, activity"),
    ("noSuchKey", "1", "unknown config key"),
])
def test_set_validates_and_writes_nothing(tmp_path, key, value, needle):
    p = write(tmp_path / "config.json", {"agents": {}})
    before = p.read_bytes()
    with pytest.raises(WorkspaceError, match=needle):
        set_value(load(p), key, value)
    assert p.read_bytes() == before


def test_review_floor(tmp_path):
    p = write(tmp_path / "config.json", {})
    with pytest.raises(BelowFloorError) as info:
        set_value(load(p), "reviewEveryRuns", "3")
    assert "3,524 to 1,626" in str(info.value)
    assert json.loads(p.read_text()) == {}
    cfg = set_value(load(p), "reviewEveryRuns", "3", confirm_below_floor=True)
    assert cfg.get("reviewEveryRuns") == 3
    cfg = set_value(cfg, "reviewEveryRuns", str(REVIEW_FLOOR))  # back to 12 needs no confirmation
    assert cfg.get("reviewEveryRuns") == 12


def test_set_refuses_when_parent_is_not_an_object(tmp_path):
    p = write(tmp_path / "config.json", {"agents": {"defaults": {"dream": "off"}}})
    with pytest.raises(WorkspaceError, match="dream is not an object"):
        set_value(load(p), "enabled", "true")


def test_set_refuses_when_file_changed_since_read(tmp_path):
    # The funnel re-reads the file, so a change between load and set is kept, not overwritten.
    p = write(tmp_path / "config.json", {"a": 1})
    cfg = load(p)
    write(p, {"a": 2})
    set_value(cfg, "intervalH", "4")
    assert json.loads(p.read_text())["a"] == 2


def test_find_setting_forms():
    assert find_setting("reviewEveryRuns").path == D + "reviewEveryRuns"
    assert find_setting("dream.reviewEveryRuns").path == D + "reviewEveryRuns"
    assert find_setting("agents.defaults.dream.enabled").path == D + "enabled"
    assert find_setting("review_every_runs").path == D + "reviewEveryRuns"
    with pytest.raises(WorkspaceError):
        find_setting("budget")


def test_providers_mask_keys(tmp_path):
    p = write(tmp_path / "config.json", {"providers": {"openrouter": {"apiKey": "sk-or-v1-abcdef987654",
                                                                      "apiBase": "https://openrouter.ai/api/v1"},
                                                       "local": {"apiKey": ""}}})
    cfg = load(p)
    provs = cfg.providers()
    assert provs["openrouter"]["apiKey"].startswith("sk-") and "abcdef987" not in provs["openrouter"]["apiKey"]
    assert provs["local"]["apiKey"] == ""
    assert "abcdef987654" not in json.dumps(cfg.to_json())


def test_setting_table_matches_spec_defaults():
    # spec section 1: the defaults Dreamdesk must read
    assert {s.name: s.default for s in config_mod.SETTINGS if s.path.startswith(D)} == {
        "enabled": True, "intervalH": 2, "memoryBudgetChars": 3000, "userBudgetChars": 3000,
        "soulBudgetChars": 0, "reviewEveryRuns": 12, "schedule": "interval", "activityThreshold": 50,
        "cooldownH": 8, "idleMinutes": 60, "review": True, "consolidation": True, "deduction": True,
        "induction": True}


# -- every value Dreamdesk writes is one the assistant accepts (issue 10.3) -------------------
# nanobot 0.3.5's schema (nanobot/config/schema.py), transcribed: DreamConfig and AgentDefaults.
# Its nested models ignore unknown keys on load (pydantic's default extra="ignore"); the root
# Config (a BaseSettings) forbids them, so Dreamdesk never writes a top-level key.
NANOBOT_035 = {
    D + "enabled": ("bool", None),
    D + "intervalH": ("int", 1),                                  # interval_h: int = Field(2, ge=1)
    "agents.defaults.idleCompactAfterMinutes": ("int", 0),        # session_ttl_minutes, ge=0
    "agents.defaults.contextWindowTokens": ("int", None),
    "agents.defaults.maxTokens": ("int", None),
    "agents.defaults.model": ("str", None),
    "agents.defaults.provider": ("str", None),
}


def _nanobot_takes(path, value):
    kind, minimum = NANOBOT_035[path]
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not (value == value and abs(value) != float("inf") and value.is_integer()):
        return False
    return minimum is None or value >= minimum


def _probes(s):
    """Values around every edge of a setting's range, and of every type."""
    vals = [True, False, "", " ", "x", "auto", "yes", "off", "3", " 3", "3.0", "1.5", "-1", None, [], {},
            float("nan"), float("inf"), 10 ** 30, -(10 ** 30)]
    for edge in (s.minimum, s.maximum, 0, 1, 2):
        if edge is not None:
            vals += [edge, edge - 1, edge + 1, edge - 0.5, edge + 0.5, edge - 0.01, edge + 0.01, float(edge)]
    return vals + [0.25, 1.5, 2.5, 720.5]


def test_the_table_knows_which_keys_are_nanobot_s():
    assert set(RULES) == set(NANOBOT_035)
    assert {s.path for s in config_mod.SETTINGS if s.shared} == set(NANOBOT_035)   # the contract's keys
    assert all(s.path.startswith("agents.defaults.") for s in config_mod.SETTINGS)


@pytest.mark.parametrize("setting", config_mod.SETTINGS, ids=lambda s: s.name)
def test_every_value_dreamdesk_writes_is_one_nanobot_takes(setting):
    accepted = [v for v in _probes(setting) if setting.check_write(v) is None]
    assert accepted or setting.kind in ("choice",), "the probes found no value at all"
    if setting.path in NANOBOT_035:
        refused_by_nanobot = [v for v in accepted if not _nanobot_takes(setting.path, v)]
        assert not refused_by_nanobot, refused_by_nanobot
        # the table's copy of the rule (pydantic's lax parsing) takes at least the strict shapes
        for v in _probes(setting):
            assert RULES[setting.path].check(v) is None or not _nanobot_takes(setting.path, v), v


def test_interval_is_whole_hours_and_the_refusal_writes_nothing(tmp_path):
    p = write(tmp_path / "config.json", {"agents": {"defaults": {"dream": {"intervalH": 2}}}})
    before = p.read_bytes()
    for bad in ("1.5", 1.5, "0.25", 0.5, "0"):
        with pytest.raises(WorkspaceError, match="intervalH must be a whole number ≥ 1") as info:
            config_mod.set_values(load(p), {"intervalH": bad}, note=Nanobot().config_note)
        assert p.read_bytes() == before
    assert "nanobot refuses to start" in str(info.value)      # nanobot's adapter's words, on a nanobot home
    assert set_value(load(p), "intervalH", "3.0").get("intervalH") == 3
    assert json.loads(p.read_text())["agents"]["defaults"]["dream"]["intervalH"] == 3   # an integer in JSON
    assert '"intervalH": 3\n' in p.read_text() or '"intervalH": 3,' in p.read_text()


def test_a_file_value_nanobot_refuses_is_reported_as_such_on_its_home_only(tmp_path):
    p = write(tmp_path / "config.json", {"agents": {"defaults": {"idleCompactAfterMinutes": 7.5}}})
    cfg = load(p)
    (err,) = [str(x) for x in noted_problems(cfg, Nanobot().config_note) if x.severity == "error"]
    assert "idleCompactAfterMinutes must be a whole number" in err and "nanobot refuses to start on it" in err
    (plain,) = [str(x) for x in noted_problems(cfg, Jenny().config_note) if x.severity == "error"]
    assert "idleCompactAfterMinutes must be a whole number" in plain and "nanobot" not in plain
    assert cfg.get("idleCompactAfterMinutes") == 15


def test_one_refused_value_in_a_batch_writes_nothing(tmp_path):
    p = write(tmp_path / "config.json", {"a": 1})
    before = p.read_bytes()
    with pytest.raises(WorkspaceError, match="intervalH"):
        config_mod.set_values(load(p), {"memoryBudgetChars": 2000, "intervalH": 1.5})
    assert p.read_bytes() == before


NANOBOT_PY = os.environ.get("DREAMDESK_NANOBOT_PYTHON")   # a python with nanobot-ai 0.3.5 (own venv)

_NB_PROBE = r'''
import json, sys, tempfile, pathlib
from nanobot.config.loader import load_config, save_config
from nanobot.config.errors import ConfigLoadError
out = []
for path, value in json.load(sys.stdin):
    d = pathlib.Path(tempfile.mkdtemp()); p = d / "config.json"
    node = data = {}
    parts = path.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    p.write_text(json.dumps(data))
    try:
        save_config(load_config(p), p)
    except ConfigLoadError:
        out.append(["refused", None]); continue
    node = json.loads(p.read_text())
    for part in parts:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    out.append(["loaded", node if node != {} else "dropped"])
print(json.dumps(out))
'''


@pytest.mark.skipif(not NANOBOT_PY, reason="DREAMDESK_NANOBOT_PYTHON not set (a python with nanobot-ai 0.3.5)")
def test_nanobot_s_own_loader_takes_every_value_dreamdesk_writes():
    """The transcription above, checked against nanobot's own loader and saver."""
    import subprocess
    cases = []
    for s in config_mod.SETTINGS:
        for v in _probes(s):
            if isinstance(v, float) and not (v == v and abs(v) != float("inf")):
                continue   # not JSON
            if s.check_write(v) is None or (s.path in RULES and v is not None):
                cases.append((s.path, v))
    res = subprocess.run([NANOBOT_PY, "-c", _NB_PROBE], input=json.dumps(cases), capture_output=True,
                         text=True, timeout=300, check=True)
    for (path, value), (verdict, kept) in zip(cases, json.loads(res.stdout.strip().splitlines()[-1])):
        s = config_mod.BY_PATH[path]
        if s.check_write(value) is None:
            assert verdict == "loaded", (path, value)          # nothing Dreamdesk writes stops nanobot
        if path not in RULES:
            assert kept == "dropped", (path, value)            # its saves drop Dreamdesk's own keys
        else:
            # the adapter's copy of nanobot's rule is exact: "nanobot refuses to start on it" is
            # said when, and only when, it does
            assert (verdict == "loaded") == (RULES[path].check(value) is None), (path, value, verdict)


# -- what Dreamdesk wrote is remembered, and its loss is said (issue 10.4) ----------------------
NANOBOT_DREAM_KEYS = {"enabled", "intervalH", "cron", "modelOverride"}
NANOBOT_DEFAULTS_KEYS = {"workspace", "modelPreset", "model", "provider", "maxTokens", "contextWindowTokens",
                         "temperature", "idleCompactAfterMinutes", "dream", "timezone"}


def nanobot_save(path):
    """What nanobot 0.3.5's own save does to the keys under agents.defaults: the ones its
    schema does not know are gone (the interop suite checks this against nanobot itself)."""
    raw = json.loads(path.read_text())
    d = raw["agents"]["defaults"]
    for k in list(d):
        if k not in NANOBOT_DEFAULTS_KEYS:
            del d[k]
    for k in list(d.get("dream", {})):
        if k not in NANOBOT_DREAM_KEYS:
            del d["dream"][k]
    path.write_text(json.dumps(raw, indent=2))


@pytest.fixture
def home(make_workspace, tmp_path):
    from dreamdesk.engine.home.workspace import Workspace
    root = make_workspace({"SOUL.md": "s"}, root=tmp_path / "home" / "workspace")
    write(tmp_path / "home" / "config.json", {"agents": {"defaults": {"model": "m", "dream": {"enabled": True}}},
                                              "channels": {"x": 1}})
    return Workspace.open(root.parent)


def lost(ws):
    return {x.path: x.value for x in config_mod.lost_settings(ws.root, ws.config())}


def test_opening_and_reading_write_no_state(home, private_state):
    from dreamdesk.engine.overview.status import read_status
    read_status(home)
    assert lost(home) == {} and config_mod.remembered(home.root) == {}
    assert not (private_state / "workspaces").exists()


def test_a_key_nanobot_dropped_is_named_with_its_value_and_reapplied_in_one_write(home):
    from dreamdesk.engine.overview.status import read_status
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    config_mod.write_settings(home, {"reviewEveryRuns": 6}, confirm_below_floor=True)
    config_mod.write_settings(home, {"passes.induction": False})
    config_mod.write_settings(home, {"intervalH": 4})
    assert lost(home) == {}
    nanobot_save(home.config_path)
    assert lost(home) == {D + "memoryBudgetChars": 2500, D + "reviewEveryRuns": 6, D + "passes.induction": False}
    st = read_status(home)
    assert st.config.get("memoryBudgetChars") == 3000          # the defaults are in force now ...
    msgs = [p.message for p in st.problems if p.severity == "warning"]
    assert any("memoryBudgetChars = 2500, which Dreamdesk wrote, is gone" in m and "default 3000" in m
               for m in msgs), msgs                            # ... and that is said
    assert {x["key"]: x["value"] for x in st.to_json()["lost_settings"]} == lost(home)
    before = home.config_path.read_bytes()
    read_status(home)
    assert home.config_path.read_bytes() == before             # reading never re-applies
    cfg, done = config_mod.reapply(home)
    assert [x.path for x in done] == [D + "memoryBudgetChars", D + "reviewEveryRuns", D + "passes.induction"]
    assert cfg.get("memoryBudgetChars") == 2500 and cfg.get("reviewEveryRuns") == 6
    assert cfg.get("passes.induction") is False and cfg.get("intervalH") == 4
    raw = json.loads(home.config_path.read_text())
    assert raw["channels"] == {"x": 1} and raw["agents"]["defaults"]["model"] == "m"   # the rest kept
    assert lost(home) == {} and config_mod.reapply(home)[1] == []


def test_a_value_changed_in_the_file_is_not_lost_and_the_file_wins_on_the_next_write(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    raw = json.loads(home.config_path.read_text())
    raw["agents"]["defaults"]["dream"]["memoryBudgetChars"] = 4000       # the person, by hand
    home.config_path.write_text(json.dumps(raw))
    assert lost(home) == {}
    assert config_mod.remembered(home.root)[D + "memoryBudgetChars"] == 2500   # not until Dreamdesk writes
    config_mod.write_settings(home, {"userBudgetChars": 2000})
    assert config_mod.remembered(home.root) == {D + "memoryBudgetChars": 4000, D + "userBudgetChars": 2000}
    nanobot_save(home.config_path)
    assert lost(home) == {D + "memoryBudgetChars": 4000, D + "userBudgetChars": 2000}


def test_a_key_still_lost_stays_remembered_through_other_writes(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    nanobot_save(home.config_path)
    config_mod.write_settings(home, {"intervalH": 5})
    assert lost(home) == {D + "memoryBudgetChars": 2500}


def test_setting_the_default_through_dreamdesk_forgets_the_key(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500, "soulBudgetChars": 900})
    config_mod.write_settings(home, {"memoryBudgetChars": 3000})
    assert config_mod.remembered(home.root) == {D + "soulBudgetChars": 900}
    nanobot_save(home.config_path)
    assert lost(home) == {D + "soulBudgetChars": 900}


def test_forget_touches_no_config(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500, "cooldownH": 3})
    nanobot_save(home.config_path)
    before = home.config_path.read_bytes()
    assert config_mod.forget(home, ["memoryBudgetChars"]) == [D + "memoryBudgetChars"]
    assert lost(home) == {D + "cooldownH": 3}
    assert config_mod.forget(home) == [D + "cooldownH"] and lost(home) == {}
    assert config_mod.forget(home) == []
    assert home.config_path.read_bytes() == before


def test_a_refused_write_remembers_nothing(home):
    with pytest.raises(WorkspaceError):
        config_mod.write_settings(home, {"intervalH": 1.5})
    assert config_mod.remembered(home.root) == {}


def test_a_config_that_cannot_be_read_loses_nothing_and_is_not_reapplied(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    home.config_path.write_text("{broken")
    assert lost(home) == {}
    with pytest.raises(WorkspaceError, match="will not rewrite"):
        config_mod.reapply(home)
    assert home.config_path.read_text() == "{broken"


def test_a_deleted_config_lost_everything_and_reapply_creates_it(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    home.config_path.unlink()
    from dreamdesk.engine.home.workspace import Workspace
    ws = Workspace.open(home.root.parent)
    assert lost(ws) == {D + "memoryBudgetChars": 2500}
    config_mod.reapply(ws)
    assert json.loads(home.config_path.read_text()) == {"agents": {"defaults": {"dream": {"memoryBudgetChars": 2500}}}}


def test_remembered_state_lives_outside_the_workspace(home, private_state, tmp_path):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    files = [p for p in private_state.rglob("*") if p.is_file()]
    assert any(p.name == config_mod.WRITTEN_NAME for p in files)
    assert not [p for p in (tmp_path / "home").rglob("*") if "written" in p.name]


def test_a_damaged_memory_of_writes_is_read_as_none_and_replaced(home):
    config_mod.write_settings(home, {"memoryBudgetChars": 2500})
    state = config_mod._written_path(home.root)
    state.write_text("{not json")
    assert config_mod.remembered(home.root) == {} and lost(home) == {}
    config_mod.write_settings(home, {"userBudgetChars": 2000})
    assert config_mod.remembered(home.root) == {D + "userBudgetChars": 2000}
