"""`dreamdesk config set` on a config.json nanobot wrote: every value Dreamdesk writes is one
nanobot accepts (issue 10, item 3), and when nanobot's own save drops Dreamdesk's keys,
Dreamdesk says so (item 4)."""

import json

import pytest

from .nanobot_checks import assert_nanobot_fine, dreamdesk, dreamdesk_json

DREAM = ("agents", "defaults", "dream")


def _dream_block(home) -> dict:
    d = json.loads((home.path / "config.json").read_text(encoding="utf-8"))
    for k in DREAM:
        d = d[k]
    return d


@pytest.mark.parametrize("key,value", [("intervalH", "1.5"), ("intervalH", "0.5"), ("intervalH", "0")])
def test_a_value_nanobot_rejects_is_refused(nanobot, nanobot_home, key, value):
    home = nanobot_home
    cfg = home.path / "config.json"
    before = cfg.read_bytes()
    rc, out, err = dreamdesk("config", "set", home, key, value)
    assert rc == 2, f"exit {rc}: {out}{err}"
    assert err.strip() and len(err.strip().splitlines()) == 1, err
    assert cfg.read_bytes() == before
    assert_nanobot_fine(nanobot, home, home.baseline, append=False)


@pytest.mark.parametrize("key,value,nanobot_reads", [
    ("intervalH", "3", ("dream", "intervalH", 3)),
    ("enabled", "false", ("dream", "enabled", False)),
    ("idleCompactAfterMinutes", "30", ("idleCompactAfterMinutes", None, 30)),
    ("memoryBudgetChars", "2500", None),
    ("reviewEveryRuns", "20", None),
])
def test_values_dreamdesk_writes_nanobot_loads(nanobot, nanobot_home, key, value, nanobot_reads):
    home = nanobot_home
    rc, out, err = dreamdesk("config", "set", home, key, value)
    assert rc == 0, err
    after = assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    if nanobot_reads:
        a, b, want = nanobot_reads
        got = after["config"][a][b] if b else after["config"][a]
        assert got == want


def test_keys_nanobot_drops_on_its_own_save_are_reported(nanobot, nanobot_home):
    home = nanobot_home
    wrote = {"memoryBudgetChars": 2500, "userBudgetChars": 2800, "reviewEveryRuns": 20}
    for k, v in wrote.items():
        assert dreamdesk("config", "set", home, k, v)[0] == 0
    assert all(_dream_block(home)[k] == v for k, v in wrote.items())
    assert nanobot.save_config(home)["ok"]             # nanobot's onboard --refresh / its settings
    kept = _dream_block(home)
    assert not set(wrote) & set(kept), f"nanobot 0.3.5 is known to drop these keys; it kept {kept}"
    assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    st = dreamdesk_json("status", home)
    texts = [json.dumps(p, ensure_ascii=False) for p in st["problems"]]
    for k, v in wrote.items():
        assert any(k in t and str(v) in t for t in texts), (
            f"no problem names the lost {k} = {v}; problems: {st['problems']}")
    # reading never rewrites: nanobot's config stays as nanobot saved it
    assert _dream_block(home) == kept
