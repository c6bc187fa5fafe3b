"""The /new and /reset prelude Dreamdesk previews (startup_prelude) equals, byte for byte, the one
OpenClaw 2026.9.6 really sent its model in real turns (issue 28, "How it is proven"). Bare `/new`
and `/reset` only acknowledge the reset without a model turn (docs/gateway/config-agents/
workspace-and-bootstrap.md); OpenClaw's reply pipeline (dist/get-reply-*.mjs) prepends the prelude
when a reset does start one: `/reset soft` (action "reset") and a reset trigger the config adds
(`session.resetTriggers`, action "new": a new session whose first message is empty). Both are sent
by OpenClaw's terminal UI through the Gateway, from a sender allowed to reset.

Slow (about a minute and a half of OpenClaw's CLI); skipped with one line without the toolchain,
a failure in CI."""

from __future__ import annotations

import datetime as dt
import json
import os
import re

import pytest

from dreamdesk.engine.assistants.openclaw_prelude import HEADER, TRUNCATED, startup_prelude

from .driver import Gateway
from .homes import start
from .model import OpenClawModel, text_of

pytestmark = pytest.mark.slow

NEW_TRIGGER = "/fresh"
# the bare reset prompt that follows the prelude in the same user message (get-reply-*.mjs,
# BARE_SESSION_RESET_PROMPT_BASE), and the time line OpenClaw ends it with
RESET_PROMPT = "\n\nA new session was started via /new or /reset."
REFERENCE_UTC = re.compile(r"^Reference UTC: (\d{4}-\d\d-\d\d \d\d:\d\d) UTC$", re.M)
LONG = "- The Apollo launch checklist: vendor sign-off, storage driver patch, rollback drill.\n" * 20


def notes(today: dt.date) -> dict[str, str]:
    """Notes around today: yesterday's two over maxFileChars (1,200) and past the total (2,800)
    together; today's with two slugged ones; one older and one dated tomorrow, outside the two
    days (if the turn comes after midnight, tomorrow's long one is in and still cut)."""
    d = {n: (today + dt.timedelta(days=n)).isoformat() for n in range(-2, 2)}
    return {f"memory/{d[-2]}.md": "# Older\n\n- Not in the window.\n",
            f"memory/{d[-1]}.md": f"# {d[-1]}\n\n{LONG}",
            f"memory/{d[-1]}-offsite.md": f"# Offsite\n\n{LONG}",
            f"memory/{d[0]}.md": f"# {d[0]}\n\n- Storage driver patch landed; ```code``` quoted.\n",
            f"memory/{d[0]}-standup.md": "- Stand-up: the user prefers green tea in the afternoon.\n",
            f"memory/{d[0]}-retro.md": "# Retro\n\n- On-call moves to a weekly handover on Mondays.\n",
            f"memory/{d[1]}.md": f"# {d[1]}\n\n{LONG}"}


def sent_prelude(model: OpenClawModel, before: int) -> tuple[str, float]:
    """The prelude in the user message of the one turn since `before`, and the time OpenClaw
    stamped on that message (its minute, in milliseconds)."""
    bodies = model.bodies()[before:]
    assert len(bodies) == 1, f"expected one real turn, the model got {len(bodies)}"
    users = [text_of(m) for m in bodies[0]["messages"] if m.get("role") == "user"]
    text = next((u for u in reversed(users) if HEADER[0] in u), None)   # the history may hold an earlier one
    assert text is not None, f"no startup prelude in the turn's user messages: {users!r}"
    start = text.index(HEADER[0])
    stamp = REFERENCE_UTC.search(text, start)
    assert stamp is not None, "no 'Reference UTC' line after the prelude"
    when = dt.datetime.strptime(stamp.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=dt.timezone.utc)
    return text[start:text.index(RESET_PROMPT, start)], when.timestamp() * 1000


def reset_turn(gw: Gateway, model: OpenClawModel, command: str) -> tuple[str, float]:
    """`command` sent from OpenClaw's terminal UI; waits for the model's reply on its screen."""
    before = len(model.bodies())
    reply = f"Reply to {command} number {before}."
    model.reply = reply
    try:
        gw.tui_message(command, until=lambda screen: reply in screen)
    finally:
        model.reply = "Noted."
    return sent_prelude(model, before)


def test_the_prelude_openclaw_sent_in_real_reset_turns_is_dreamdesks(openclaw_launcher, openclaw_model, tmp_path):
    oc = start(openclaw_launcher, tmp_path / "user", openclaw_model)
    oc.run("config", "set", "--batch-json", json.dumps([
        {"path": "agents.defaults.userTimezone", "value": "UTC"},
        {"path": "session.resetTriggers", "value": ["/new", "/reset", NEW_TRIGGER]}]))
    # the first-run ritual done (its last step deletes BOOTSTRAP.md): while it is pending a reset
    # gets the bootstrap prompt instead of the prelude
    (oc.workspace / "BOOTSTRAP.md").unlink()
    for i, (rel, text) in enumerate(notes(dt.datetime.now(dt.timezone.utc).date()).items()):
        path = oc.write(rel, text)
        os.utime(path, (1_796_500_000 + i, 1_796_500_000 + i))  # slugged notes: newest first by mtime
    with oc.gateway() as gw:
        turns = [reset_turn(gw, openclaw_model, NEW_TRIGGER), reset_turn(gw, openclaw_model, "/reset soft")]
    config = json.loads((oc.home / "openclaw.json").read_text(encoding="utf-8"))
    for prelude, now_ms in turns:
        assert prelude == startup_prelude(oc.workspace, config, now_ms)
        assert TRUNCATED in prelude
