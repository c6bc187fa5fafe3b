"""engine/assistants/hermes_home.py's reading of config.yaml against Hermes's own: for each
config, the limits Hermes's memory tool takes outside a session (load_on_disk_store), and the
memory part of the system prompt a session builds (the inspection agent of `hermes prompt-size`)
against hermes_memory.prompt_block with the limits and switches Dreamdesk read — empty where
Hermes injects nothing. Slow: a session's prompt takes ~0.2 s each (2 s for the first)."""

from __future__ import annotations

import pytest

from dreamdesk.engine.assistants import hermes_home as hh
from dreamdesk.engine.assistants import hermes_memory as hm

from .hermes import memory_part
from .homes import CONFIG_YAML

pytestmark = pytest.mark.slow

CONFIGS = {
    "none": None, "hand-written": CONFIG_YAML, "comments only": "# nothing set\n",
    "empty section": "memory:\n", "yaml 1.1 numbers": "memory:\n  memory_char_limit: 0x400\n  user_char_limit: 1:30\n",
    "quoted number": 'memory:\n  memory_char_limit: "3000"\n', "decimal": "memory:\n  memory_char_limit: 2300.0\n",
    "no dot": "memory:\n  user_char_limit: 1e3\n", "boolean": "memory:\n  user_char_limit: true\n",
    "text": "memory:\n  memory_char_limit: lots\n", "null limit": "memory:\n  memory_char_limit:\n",
    "zero": "memory:\n  memory_char_limit: 0\n", "memory off": "memory:\n  memory_enabled: no\n",
    "profile off": "memory:\n  user_profile_enabled: false\n", "quoted false": "memory:\n  memory_enabled: 'false'\n",
    "not a mapping": "memory: 5\n",
    "repeated": "memory:\n  user_char_limit: 10\n  user_char_limit: 900\n", "broken": "memory: [\n",
    "a list": "- memory\n",
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_settings_as_hermes_reads_them(hermes, tmp_path, name):
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_bytes(hm.serialize(["one", "two"]))
    (home / "memories" / "USER.md").write_bytes(hm.serialize(["Ada"]))
    if CONFIGS[name] is not None:
        (home / "config.yaml").write_text(CONFIGS[name], encoding="utf-8")
    ours = hh.read_settings(home, env={}, managed=None)
    assert ours.limits == hermes.read(home)["limits"]
    expected = "" if ours.prompt_limits is None else hm.prompt_block(["one", "two"], ["Ada"], ours.prompt_limits, ours.enabled)
    assert memory_part(hermes.system_prompt(home)) == expected
    assert bool(ours.problems) == (name in ("quoted number", "decimal", "no dot", "boolean", "text", "null limit",
                                            "zero", "not a mapping", "broken", "a list"))
