"""Helpers for tests (from test_prunes.py): build, BOM, FORMS, crlf, expected_rows, only_inserted."""

from __future__ import annotations

from dreamdesk.engine.text.entries import removed_entries
from dreamdesk.engine.text.textform import normalise
from helpers.nanobot_repo import NANOBOT_GITIGNORE
from helpers.nanobot_repo import git
from helpers.nanobot_repo import head
from pathlib import Path


BOM = "\ufeff".encode()


USER_V1 = "# User\n\n## Identity\n- Inès, data engineer in Ghent.\n- Has a cat named Miso.\n\n## Habits\n" \
          "- Runs three times a week.\n- Drinks oolong.\n  Loose leaf, never bags.\n"


MEMORY_V1 = "# Memory\n\n## Homelab\n- The homelab runs Proxmox.\n- Backups go to a NAS.\n\n## Work\n" \
            "- Ships on Fridays.\n\n```\nkubectl get pods\n```\n"


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def build(ws: Path, user_form=lambda t: t.encode(), memory_form=lambda t: t.encode()) -> list[str]:
    """nanobot's init plus three dream commits that remove real lines (and one that edits one)."""
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    git(ws, "init", "--quiet")
    (ws / ".gitignore").write_text(NANOBOT_GITIGNORE)
    (ws / "SOUL.md").write_text("I am Jenny.\n")
    shas = []

    def commit(user: str, memory: str, cursor: int, subject: str) -> None:
        (ws / "USER.md").write_bytes(user_form(user))
        (ws / "memory/MEMORY.md").write_bytes(memory_form(memory))
        (ws / "memory/.dream_cursor").write_text(str(cursor))
        git(ws, "add", "--", "SOUL.md", "USER.md", "memory/MEMORY.md", "memory/.dream_cursor", ".gitignore")
        git(ws, "commit", "--quiet", "--no-verify", "-m", subject)
        shas.append(head(ws))

    commit(USER_V1, MEMORY_V1, 0, "init: nanobot memory store")
    user2 = USER_V1.replace("- Has a cat named Miso.\n", "").replace("- Drinks oolong.\n  Loose leaf, never bags.\n",
                                                                      "- Drinks oolong, loose leaf.\n")
    commit(user2, MEMORY_V1, 4, "dream: periodic memory consolidation\n\nUSER.md: +1 -3")
    memory2 = MEMORY_V1.replace("- Backups go to a NAS.\n", "").replace("## Work\n- Ships on Fridays.\n\n", "")
    commit(user2, memory2, 9, "dream: periodic memory consolidation\n\nmemory/MEMORY.md: +0 -4")
    commit(user2 + "- Moved to Antwerp.\n", memory2, 9, "dream: periodic memory consolidation")
    return shas


def expected_rows(ws: Path, shas: list[str]) -> list[tuple[str, str, str, str | None]]:
    """What each commit's diff removed, by the entry rules, read with plain git."""
    out = []
    for parent, sha in zip(shas, shas[1:]):
        n = 0
        for path in ("USER.md", "memory/MEMORY.md"):
            old = normalise(git(ws, "show", f"{parent}:{path}", binary=True).decode())
            new = normalise(git(ws, "show", f"{sha}:{path}", binary=True).decode())
            for r in removed_entries(old, new):
                n += 1
                out.append((f"c-{sha[:12]}-{n}", path, r.entry.text, r.entry.heading))
    return out


def only_inserted(before: bytes, after: bytes) -> list[bytes]:
    """The lines `after` adds to `before`, asserting that it changes or drops none."""
    import difflib
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    assert all(op in ("equal", "insert") for op, *_ in ops), ops
    return [line for op, _, _, j1, j2 in ops if op == "insert" for line in b[j1:j2]]


FORMS = {"lf": (lambda t: t.encode(), lambda t: t.encode()),
         "crlf+bom": (lambda t: BOM + crlf(t).encode(), lambda t: crlf(t).encode())}
