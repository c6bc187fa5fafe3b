"""Stand-ins for nanobot's bundled templates in the default tests: the engine knows the real
ones only by digest (tests/interop checks those against the installed nanobot), so these tests
swap in the digests of made-up texts with the same shape."""

from __future__ import annotations

import pytest

from dreamdesk.engine.assistants import nanobot_templates

SOUL = "# Soul\n\nI am a stand-in template soul.\n\n## Core Principles\n\n- Be brief.\n"
TEMPLATES = {
    "AGENTS.md": "# Agent Instructions\n\nA stand-in for nanobot's AGENTS.md template.\n",
    "SOUL.md": SOUL,
    "legacy/SOUL.md": SOUL + "\n## Execution Rules\n\n- Act on single-step tasks at once.\n",
    "USER.md": "# User Profile\n\n- **Name**: (your name)\n",
    "memory/MEMORY.md": "# Long-term Memory\n\n## User Information\n\n(Important facts about the user)\n",
}


@pytest.fixture
def fake_templates(monkeypatch):
    monkeypatch.setattr(nanobot_templates, "DIGESTS",
                        {n: nanobot_templates.digest(t) for n, t in TEMPLATES.items()})
    monkeypatch.setattr(nanobot_templates, "LINE_DIGESTS",
                        {n: frozenset(nanobot_templates.line_digest(line) for line in TEMPLATES[n].splitlines()
                                      if line.strip()) for n in ("USER.md", "memory/MEMORY.md")})
    return TEMPLATES
