"""What "nanobot is fine" means after a Dreamdesk write, checked with nanobot's own code, and
a way to run Dreamdesk's CLI in-process."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

from dreamdesk.engine.cli import main as dreamdesk_main
from conftest import tree_state  # noqa: F401  (re-exported for the interop tests)

LOCKISH = re.compile(r"(\.lock$|\.tmp$|~$|\.dreamdesk|journal)", re.I)


def dreamdesk(*args) -> tuple[int, str, str]:
    """`dreamdesk ARGS...` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = dreamdesk_main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


def dreamdesk_json(*args) -> dict:
    rc, out, err = dreamdesk(*args, "--json")
    assert rc == 0, f"dreamdesk {' '.join(map(str, args))} exited {rc}: {err}"
    return json.loads(out)


def session(check: dict, key: str) -> dict:
    found = [s for s in check["sessions"] if s["key"] == key]
    assert found, f"nanobot finds no session {key!r}; it finds {[s['key'] for s in check['sessions']]}"
    return found[0]


def problems_of(after: dict, before: dict | None = None) -> list[str]:
    """Everything nanobot would trip over in `after` (and what changed for the worse since
    `before`), as sentences."""
    bad: list[str] = []
    if not after["config"]["ok"]:
        bad.append(f"nanobot refuses the config: {after['config']['error']}")
    if after.get("warnings"):
        bad.append(f"nanobot warned while reading the home: {after['warnings']}")
    h = after["history"]
    cur = h["cursors"]
    if any(b <= a for a, b in zip(cur, cur[1:])):
        bad.append(f"history cursors are not strictly increasing: {cur}")
    if h["lines"] != len(cur):
        bad.append(f"nanobot reads {len(cur)} of the {h['lines']} history lines (the rest it drops)")
    top = max(cur, default=0)
    if h["next_cursor"] != max(top, int(h["cursor_file"] or 0)) + 1 or h["next_cursor"] != top + 1:
        bad.append(f"nanobot's next cursor is {h['next_cursor']}, not {top} + 1 "
                   f"(.cursor holds {h['cursor_file']!r})")
    if not after["git"]["initialized"] or not after["git"]["log"]:
        bad.append("nanobot's git store lists no commits")
    stray = [p for p in after["git"]["untracked"] if LOCKISH.search(p)]
    if stray:
        bad.append(f"lock/temp files nanobot's git sees as untracked: {stray}")
    if before is not None:
        new = sorted(set(after["git"]["untracked_memory"]) - set(before["git"]["untracked_memory"]))
        if new:
            bad.append(f"new untracked files in memory/ (nanobot's `git status` shows them): {new}")
        lost = sorted(set(before["history"]["cursors"]) - set(cur))
        if lost:
            bad.append(f"history entries nanobot no longer reads: cursors {lost}")
        keys_before = {s["key"] for s in before["sessions"]}
        keys_after = {s["key"] for s in after["sessions"]}
        if keys_before - keys_after:
            bad.append(f"sessions nanobot no longer finds: {sorted(keys_before - keys_after)}")
        shas = [c["sha"] for c in after["git"]["log"]]
        gone = [c for c in before["git"]["log"] if c["sha"] not in shas]
        if gone:
            bad.append(f"commits gone from nanobot's git log: {gone}")
    return bad


def assert_nanobot_fine(nanobot, home, before: dict | None = None, *, append: bool = True) -> dict:
    """nanobot loads the config, finds the sessions, reads every history entry once with
    strictly increasing cursors, lists its git log, sees nothing new untracked in memory/, and
    its next append gets max + 1. Returns nanobot's check (taken before that append)."""
    after = nanobot.check(home)
    bad = problems_of(after, before)
    assert not bad, "nanobot after Dreamdesk's write:\n  " + "\n  ".join(bad)
    if append:
        top = max(after["history"]["cursors"], default=0)
        got = nanobot.append_history(home, "- interop probe: nanobot appends after Dreamdesk")
        assert got == top + 1, f"nanobot's next append got cursor {got}, not {top + 1}"
    return after


def entries_holding(check: dict, text: str) -> list[int]:
    """The cursors of the history entries whose content holds `text` (a message's words)."""
    pat = re.compile(re.escape(text) + r"(?!\d)")
    return [c for c, body in zip(check["history"]["cursors"], check["history"]["contents"]) if pat.search(body)]


def compacted_twice(check: dict, n_messages: int) -> dict[int, list[int]]:
    """Chat messages (`<role> message N about`) found in more than one history entry."""
    twice = {}
    for i in range(1, n_messages + 1):
        role = "user" if i % 2 == 1 else "assistant"
        hits = entries_holding(check, f"{role} message {i} about")
        if len(hits) > 1:
            twice[i] = hits
    return twice


def memory_texts(ws: Path) -> dict[str, str]:
    return {rel: (ws / rel).read_text(encoding="utf-8") for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md")}
