import json

from dreamdesk.engine.home.history import read_history
from dreamdesk.engine.assistants.prompt import (PENDING_MAX_ENTRIES, PENDING_MAX_TOKENS, build_prompt, has_real_content,
                           select_pending)
from dreamdesk.engine.core.tokens import estimate_tokens
from dreamdesk.engine.home.workspace import Workspace

NANOBOT_TEMPLATE = """# Long-term Memory

This file stores important information that should persist across sessions.

## User Information

(Important facts about the user)

## Preferences

(User preferences learned over time)

## Important Notes

(Things to remember)

---

*This file is automatically updated by nanobot when important information should be remembered.*
"""


def hist_lines(n, content="x", start=1):
    return "".join(json.dumps({"cursor": c, "timestamp": "2026-01-01 00:00", "content": content(c) if callable(content) else content}) + "\n"
                   for c in range(start, start + n))


def test_template_rule():
    assert not has_real_content("")
    assert not has_real_content(NANOBOT_TEMPLATE)
    assert not has_real_content("# Memory\n\n## Projects\n\n(none yet)\n")
    assert has_real_content(NANOBOT_TEMPLATE.replace("(Things to remember)", "- Uses PostgreSQL 16"))
    assert has_real_content("Plain paragraph of real content.")


def test_token_estimate():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("日本語") == 3          # 9 bytes -> 3 tokens


def test_parts_and_template_memory_not_injected(make_workspace):
    root = make_workspace({"SOUL.md": "I am Jenny.", "USER.md": "Maya", "AGENTS.md": "Rules",
                           "memory/MEMORY.md": NANOBOT_TEMPLATE,
                           "wikis/garden/AGENTS.md": "# Garden\nsummary: vegetables and soil notes\n",
                           "wikis/garden/wiki/index.md": "# Garden",
                           "wikis/travel/AGENTS.md": "# Travel wiki\n",
                           "memory/history.jsonl": hist_lines(3), "memory/.dream_cursor": "1"})
    ws = Workspace.open(root)
    pv = build_prompt(ws, ws.history(), 1)
    by = {p.name: p for p in pv.parts}
    assert [p.name for p in pv.parts] == ["SOUL.md", "USER.md", "AGENTS.md", "MEMORY.md", "Wikis", "Pending history"]
    assert by["MEMORY.md"].included is False and "untouched template" in by["MEMORY.md"].note
    assert by["MEMORY.md"].chars == 0
    assert "no budget" in by["AGENTS.md"].note
    assert by["Wikis"].text == ("## Wikis\n\n"
                                "- garden: vegetables and soil notes — wikis/garden/wiki/index.md\n"
                                "- travel: (no scope set) — wikis/travel/wiki/index.md\n")
    assert [e.cursor for e in pv.pending_shown] == [2, 3] and pv.pending_cut == 0
    assert pv.total_chars == sum(p.chars for p in pv.parts if p.included)
    assert by["SOUL.md"].tokens == estimate_tokens("I am Jenny.")


def test_wikis_block_is_independent_of_memory(make_workspace):
    root = make_workspace({"SOUL.md": "s", "wikis/a/AGENTS.md": "summary: A things"})
    pv = build_prompt(Workspace.open(root), read_history(root / "memory/history.jsonl"), 0)
    by = {p.name: p for p in pv.parts}
    assert not by["MEMORY.md"].included and by["Wikis"].included


def test_pending_capped_at_50_entries(make_workspace):
    root = make_workspace({"SOUL.md": "s", "memory/history.jsonl": hist_lines(80)})
    pv = build_prompt(Workspace.open(root), read_history(root / "memory/history.jsonl"), 10)
    assert pv.pending_total == 70
    assert [e.cursor for e in pv.pending_shown] == list(range(31, 81))
    assert pv.pending_cut == 20
    assert "20 older ones cut" in pv.parts[-1].note


def test_pending_capped_at_8000_tokens(make_workspace):
    big = "w" * 2000                     # ~500 tokens each once rendered
    root = make_workspace({"SOUL.md": "s", "memory/history.jsonl": hist_lines(30, big)})
    hist = read_history(root / "memory/history.jsonl")
    shown = select_pending(hist.entries)
    total = sum(estimate_tokens(f"[{e.timestamp}] {e.content}") for e in shown)
    assert total <= PENDING_MAX_TOKENS
    assert len(shown) < 30 and shown[-1].cursor == 30         # the newest are kept
    nxt = hist.entries[-len(shown) - 1]
    assert total + estimate_tokens(f"[{nxt.timestamp}] {nxt.content}") > PENDING_MAX_TOKENS
    assert len(shown) <= PENDING_MAX_ENTRIES


def test_nothing_pending(make_workspace):
    root = make_workspace({"SOUL.md": "s", "memory/history.jsonl": hist_lines(3), "memory/.dream_cursor": "3"})
    ws = Workspace.open(root)
    _, dream, _ = ws.cursors()
    pv = build_prompt(ws, ws.history(), dream)
    assert pv.pending_total == 0 and not pv.parts[-1].included
