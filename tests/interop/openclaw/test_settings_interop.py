"""OpenClaw's memory settings as Dreamdesk writes them (issue 29 item 7), read back by OpenClaw
2026.9.6's own code: after each write its config loader (`openclaw config get`) gives the value
Dreamdesk wrote and `openclaw config validate` takes the file, whose bytes outside the changed
values are the user's, comments and all; what Dreamdesk refuses, OpenClaw's loader refuses too;
and the Gateway schedules its dreaming job by the frequency Dreamdesk wrote (croner reads it: the
loader does not check the expression). Slow: OpenClaw's CLI takes 4-8 s a call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamdesk.engine.assistants import assistant_of, open_home
from helpers.openclaw_homes import copy_home
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)

from .driver import OpenClawHome

pytestmark = pytest.mark.slow

CODEX = '"codex": {\n        "config": {\n          "sessionCatalog": {\n            "enabled": false\n          }\n        }\n      }'


def _by_hand(cfg: Path) -> str:
    """The fixture's openclaw.json as a person keeps it: comments, a trailing comma, single quotes."""
    text = cfg.read_text(encoding="utf-8")
    text = "// my OpenClaw, tidied by hand\n" + text.replace(
        '"bootstrapMaxChars": 6000\n', '"bootstrapMaxChars": 6000, // MEMORY.md kept getting cut\n').replace(
        '"mode": "merge",', "mode: 'merge', /* providers below */")
    cfg.write_text(text, encoding="utf-8")
    return text


def _write(home: Path, **values) -> None:
    ws = open_home(home)
    assistant_of(ws).write_own_settings(ws, {k.replace("__", "."): v for k, v in values.items()})


def _get(oc: OpenClawHome, path: str):
    return json.loads(oc.run("config", "get", path, "--json").stdout)


def test_openclaws_loader_reads_each_value_dreamdesk_wrote_and_the_rest_is_the_users(openclaw_launcher, tmp_path):
    home = copy_home("over-cap", tmp_path)
    oc = OpenClawHome(openclaw_launcher, tmp_path)
    cfg = home / "openclaw.json"
    text = _by_hand(cfg)
    assert oc.json("config", "validate", "--json")["valid"] is True          # OpenClaw takes the hand-kept file
    steps = [
        ({"bootstrapMaxChars": 9000}, "agents.defaults.bootstrapMaxChars", 9000,
         lambda t: t.replace('"bootstrapMaxChars": 6000,', '"bootstrapMaxChars": 9000,')),
        ({"bootstrapTotalMaxChars": 30000}, "agents.defaults.bootstrapTotalMaxChars", 30000,
         lambda t: t.replace("// MEMORY.md kept getting cut\n",
                             '// MEMORY.md kept getting cut\n      "bootstrapTotalMaxChars": 30000,\n')),
        ({"dreaming__enabled": False}, "plugins.entries.memory-core.config.dreaming.enabled", False,
         lambda t: t.replace(CODEX, CODEX + ',\n      "memory-core": {\n        "config": {\n          "dreaming": {\n'
                                           '            "enabled": false\n          }\n        }\n      }')),
        ({"dreaming__frequency": "30 4 * * 1-5"}, "plugins.entries.memory-core.config.dreaming.frequency",
         "30 4 * * 1-5", lambda t: t.replace('"enabled": false\n          }\n        }\n      }\n    }\n  },',
                                             '"enabled": false,\n            "frequency": "30 4 * * 1-5"\n          }\n'
                                             '        }\n      }\n    }\n  },')),
    ]
    for values, path, want, expected in steps:
        _write(home, **values)
        text = expected(text)
        assert cfg.read_text(encoding="utf-8") == text, path        # only the value (or its member) changed
        assert _get(oc, path) == want, path                          # OpenClaw's own loader reads it
    assert oc.json("config", "validate", "--json")["valid"] is True
    assert text.startswith("// my OpenClaw, tidied by hand\n") and "mode: 'merge', /* providers below */" in text


@pytest.mark.parametrize("value", ["0", "1.5"])
def test_a_cap_dreamdesk_refuses_openclaws_loader_refuses_too(openclaw_launcher, tmp_path, value):
    home = copy_home("over-cap", tmp_path)
    oc = OpenClawHome(openclaw_launcher, tmp_path)
    ws = open_home(home)
    assert assistant_of(ws).own_settings(ws).refusal("bootstrapMaxChars", float(value)) is not None
    cfg = home / "openclaw.json"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('"bootstrapMaxChars": 6000', f'"bootstrapMaxChars": {value}'),
                   encoding="utf-8")
    out = oc.run("config", "validate", "--json", check=False)
    got = json.loads(out.stdout[out.stdout.index("{"):])
    assert got["valid"] is False and [i["path"] for i in got["issues"]] == ["agents.defaults.bootstrapMaxChars"]


def test_the_gateway_schedules_its_dreaming_job_by_the_frequency_dreamdesk_wrote(openclaw_launcher, tmp_path):
    home = copy_home("over-cap", tmp_path)
    _by_hand(home / "openclaw.json")
    _write(home, dreaming__frequency="30 4 * * 1-5")
    oc = OpenClawHome(openclaw_launcher, tmp_path)
    with oc.gateway() as gw:
        job = gw.dreaming_job()
    assert job["schedule"]["kind"] == "cron" and job["schedule"]["expr"] == "30 4 * * 1-5"
    assert job.get("enabled", True) is True and job["state"].get("nextRunAtMs")
