"""The Hermes fixture homes, each built by Hermes's own code (driver.py) as a user's Hermes would
leave it, and the oracles Hermes gave: RECIPES[name](hermes, folder) -> BuiltHome. Only what a
person does by hand (a pasted paragraph, an edited config.yaml) is written here directly; every
memory write is Hermes's own (its memory tool: add, replace, remove, batch)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from .hermes import Hermes, memory_part

ZWJ = "\u200d"
CODER = f"\U0001F469{ZWJ}\U0001F4BB"          # woman technologist: two emoji joined by a ZWJ


@dataclass
class BuiltHome:
    name: str
    home: Path                    # the HERMES_HOME folder Hermes used
    today: str
    ops: list[dict] = field(default_factory=list)       # each memory-tool call and Hermes's reply
    hand_edits: list[str] = field(default_factory=list)
    oracles: dict = field(default_factory=dict)


def filler(n: int, words: str = "notes from the reading group on distributed systems and their "
           "failure modes kept for later review") -> str:
    """n characters of plain words, ending in a letter (Hermes strips what it stores)."""
    text = ""
    while len(text) < n:
        text += words + " "
    text = text[:n]
    return text[:-1] + "." if text[-1] == " " else text


def used(reply: dict) -> int:
    """The characters in use, from a Hermes reply's usage ("53% — 1,170/2,200 chars")."""
    return int(re.search(r"([\d,]+)/[\d,]+", reply["usage"]).group(1).replace(",", ""))


class Recipe:
    """The steps on one home, logged."""

    def __init__(self, hermes: Hermes, folder: Path, name: str):
        self.h = hermes
        self.built = BuiltHome(name, folder / "hermes-home", dt.date.today().isoformat())

    @property
    def home(self) -> Path:
        return self.built.home

    def session_start(self) -> dict:
        """What every start of Hermes does first: its config loader (which creates the home's
        folders) and the memory store's load."""
        return self.h("read", self.home)

    def memory(self, *ops: dict) -> list[dict]:
        replies = self.h.memory(self.home, *ops)
        self.built.ops.extend({"op": op, "reply": reply} for op, reply in zip(ops, replies))
        return replies

    def add(self, target: str, content: str) -> dict:
        return self.memory({"action": "add", "target": target, "content": content})[0]

    def fill_to(self, target: str, room_left: int, limit: int, last: dict) -> dict:
        """One more entry, sized so that `room_left` characters of the limit stay free."""
        return self.add(target, filler(limit - room_left - used(last) - 3))

    def hand_edit(self, rel: str, change, why: str) -> None:
        path = self.home / rel
        path.write_bytes(change(path.read_bytes() if path.exists() else b""))
        self.built.hand_edits.append(f"{rel}: {why}")

    def finish(self) -> BuiltHome:
        """The oracles, from Hermes reading the finished home (each on a copy of it)."""
        b = self.built
        volatile = self.h.system_prompt(self.home)
        b.oracles = {"read": self.h.read(self.home), "guard": self.h.guard(self.home),
                     "config": self.h.config(self.home), "ops": b.ops, "prompt": memory_part(volatile)}
        return b


MEMORY_NOTES = [
    "Project Tern lives in ~/code/tern; its tests run with `make check`, never with bare pytest.",
    "Deploy checklist for Tern:\n- bump the version in pyproject.toml\n- tag it as vX.Y.Z\n"
    "- the CI job `release` uploads the wheel",
    "The lease's § 4.2 caps rent increases at 3 %; the user cites it as §4.2 or as \"section 4.2\".",
    "Café Noé on Rue Oberkampf is where the user meets clients ☕🎻 — book the back room.",
]
USER_NOTES = [
    "Name: Ada Quist. Pronouns: she/her.",
    "Timezone Europe/Paris; works 9:00–17:30 and never on Wednesdays.",
    "Writing style:\n  - short sentences\n  - no exclamation marks\n  - British spelling (colour, organise)",
]


def fresh(h: Hermes, folder: Path) -> BuiltHome:
    """A first start of Hermes: its folders, SOUL.md, an empty memories/ folder."""
    r = Recipe(h, folder, "fresh")
    r.session_start()
    return r.finish()


def full(h: Hermes, folder: Path) -> BuiltHome:
    """Both files filled by Hermes's memory tool close to their default limits: multi-line
    entries, `§` inside an entry's text, an emoji; a replace, a remove, a batch, a duplicate add
    (a no-op), and the adds Hermes refuses (over the limit, an invisible character)."""
    r = Recipe(h, folder, "full")
    r.session_start()
    for note in MEMORY_NOTES:
        r.add("memory", note)
    r.add("memory", "Temporary: the staging database is down until Friday.")
    r.memory({"action": "replace", "target": "memory", "old_text": "Project Tern lives",
              "content": MEMORY_NOTES[0].replace("`make check`", "`make check` (about 40 s)")},
             {"action": "remove", "target": "memory", "old_text": "staging database"},
             {"action": "add", "target": "memory", "content": MEMORY_NOTES[2]})
    last = r.add("memory", "Tern's changelog is docs/CHANGES.md, newest release first.")
    last = r.fill_to("memory", 9, 2200, last)
    r.add("memory", "One more fact that no longer fits.")
    r.add("memory", f"The user signs status updates with {CODER}.")
    r.memory({"target": "user", "operations": [
        {"action": "add", "content": USER_NOTES[0]}, {"action": "add", "content": USER_NOTES[1]},
        {"action": "add", "content": USER_NOTES[2]},
        {"action": "replace", "old_text": "Pronouns", "content": USER_NOTES[0] + " Prefers \"Ada\"."}]})
    last = r.add("user", "Reads replies on a phone: keep answers under 150 words.")
    r.fill_to("user", 4, 1375, last)
    return r.finish()


PASTED = ("\n\n## Pasted from the team wiki (by hand)\n\n"
          + "\n".join(f"- Step {i}: " + filler(60 + i) for i in range(1, 41)))


def over_limit(h: Hermes, folder: Path) -> BuiltHome:
    """Files Hermes's write guard refuses, made by hand edits on files Hermes wrote: MEMORY.md's
    last entry grew past the whole file's limit (a wiki page pasted under it), USER.md gained an
    entry after a blank line, so it no longer round-trips, with a zero-width joiner in it. Then
    Hermes's own remove on each: refused, and the .bak it saves."""
    r = Recipe(h, folder, "over-limit")
    r.session_start()
    for note in MEMORY_NOTES[:3]:
        r.add("memory", note)
    for note in USER_NOTES[:2]:
        r.add("user", note)
    r.hand_edit("memories/MEMORY.md", lambda b: b + PASTED.encode(),
                "a wiki page pasted under the last entry, no § before it")
    r.hand_edit("memories/USER.md", lambda b: b + f"\n\n§\nPrefers {CODER} pairing sessions.".encode(),
                "a new entry typed after a blank line, with an emoji holding a zero-width joiner")
    r.memory({"action": "remove", "target": "memory", "old_text": "Café Noé"},
             {"action": "remove", "target": "user", "old_text": "Timezone"},
             {"action": "add", "target": "memory", "content": "An add is checked against the limit only."})
    return r.finish()


CONFIG_YAML = """\
# Hermes settings, edited by hand.
# The memory limits are in characters, not tokens.

model:
  default: scripted-model   # never called in these fixtures

memory:
  memory_enabled: true
  user_profile_enabled: true
  # tighter than the default 2,200: forces consolidation sooner
  memory_char_limit: 1800
  user_char_limit: 2000     # the profile needs more room than the default 1,375
"""


def configured(h: Hermes, folder: Path) -> BuiltHome:
    """A config.yaml with comments and limits other than the defaults, written by hand after
    Hermes filled MEMORY.md under the default 2,200: MEMORY.md is now over its 1,800 (the
    prompt says 100%), yet Hermes still removes from it (no single entry is over the limit)
    and refuses adds; USER.md takes entries past the default 1,375 under its 2,000."""
    r = Recipe(h, folder, "configured")
    r.session_start()
    for note in MEMORY_NOTES:
        last = r.add("memory", note)
    r.fill_to("memory", 60, 2200, last)
    r.hand_edit("config.yaml", lambda b: CONFIG_YAML.encode(), "memory limits 1,800 and 2,000, with comments")
    r.memory({"action": "remove", "target": "memory", "old_text": "Café Noé"},
             {"action": "add", "target": "memory", "content": "Still over 1,800 after one remove."})
    for note in USER_NOTES:
        last = r.add("user", note)
    r.fill_to("user", 250, 2000, last)
    return r.finish()


RECIPES = {"fresh": fresh, "full": full, "over-limit": over_limit, "configured": configured}
