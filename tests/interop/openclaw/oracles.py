"""What OpenClaw itself said or did, kept as the oracles Dreamdesk's OpenClaw adapter is
checked against: the Project Context its model received, what each dreaming sweep changed,
and the state of every file (for "reading writes nothing")."""

from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path

PROJECT_CONTEXT = "# Project Context\n"
# OpenClaw closes the cache-stable part of the system prompt, whose last section is the
# Project Context, with this line (dist/builtin-openclaw-*.mjs, ATTEMPT_PROMPT_SECTION)
STABLE_END = "\n<!-- /openclaw:attempt:STABLE -->"
HISTORY = "## Memory Consolidation History"
SWEEP_HEAD = re.compile(r"^### (\d{4}-\d\d-\d\dT[\d:.]+Z)$", re.M)
COUNT = re.compile(r"^- (Added|Merged|Superseded): (\d+)$", re.M)


def project_context(system_prompt: str) -> str:
    """The "# Project Context" part of a system prompt, exactly as the model received it."""
    start = system_prompt.index(PROJECT_CONTEXT)
    end = system_prompt.index(STABLE_END, start)
    return system_prompt[start:end]


def consolidation_history(dreams: str) -> list[dict]:
    """DREAMS.md's consolidation history, one dict per sweep that reached it: its timestamp,
    the Added/Merged/Superseded counts (absent on a 'Rewrite skipped' sweep), its text."""
    at = dreams.find(HISTORY)
    if at < 0:
        return []
    body = dreams[at + len(HISTORY):]
    heads = list(SWEEP_HEAD.finditer(body))
    out = []
    for i, head in enumerate(heads):
        text = body[head.end():heads[i + 1].start() if i + 1 < len(heads) else len(body)]
        counts = {k.lower(): int(v) for k, v in COUNT.findall(text)}
        out.append({"at": head.group(1), **counts, "skipped": "- Rewrite skipped:" in text, "text": text.strip("\n")})
    return out


def line_diff(before: str, after: str) -> dict:
    """The non-blank lines a change removed from and added to a file, in order."""
    removed, added = [], []
    for op in difflib.ndiff(before.splitlines(), after.splitlines()):
        if op[:2] == "- " and op[2:].strip():
            removed.append(op[2:])
        elif op[:2] == "+ " and op[2:].strip():
            added.append(op[2:])
    return {"removed": removed, "added": added}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_state(root: Path) -> dict:
    """Every file under root (symlinks as their target text): size, mtime in ns, sha256."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = {"link": str(Path(path).readlink())}
        elif path.is_file():
            st = path.stat()
            out[rel] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256(path)}
    return out


ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
NUMBERS = re.compile(r"\b(score|avg|importance)([=: ]+)\d+(?:\.\d+)?")


def normalized(text: str, manifest: dict) -> str:
    """A text of a home with what differs between two builds of it replaced: the home's path,
    the build's dates, timestamps, and the recall scores (they age with the clock)."""
    text = text.replace(manifest["original_home"], "<HOME>").replace(manifest["original_user_home"], "<USER>")
    text = ISO_TIME.sub("<TIME>", text)
    for name, day in sorted(manifest["days"].items(), key=lambda kv: kv[0]):
        text = text.replace(day, f"<{name}>")
    return NUMBERS.sub(lambda m: f"{m.group(1)}{m.group(2)}<N>", text)
