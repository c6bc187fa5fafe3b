"""Build a snapshot repository the way nanobot does (its real layout, measured from its source):
`git init` in the workspace, nanobot's allow-list .gitignore, author `nanobot <nanobot@dream>`,
files staged by path, commits `init: nanobot memory store`, `dream: periodic memory
consolidation` (+ a `SOUL.md: +3 -1` summary) and `revert: undo <sha>`. Everything runs through
the git CLI, as nanobot's own process would."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

NANOBOT_GITIGNORE = "/*\n!memory/\n!SOUL.md\n!USER.md\n!memory/MEMORY.md\n!.gitignore\n"

INIT_SOUL = "I am Jenny.\n"
INIT_USER = "# User\n\n## Identity\n- Inès, data engineer in Ghent.\n"
INIT_MEMORY = "# Memory\n\n- The homelab runs Proxmox.\n"

# dream changes SOUL.md by +3 -1 and USER.md by +1 -0, as its summary says
DREAM_SOUL = "I am Jenny, a calm assistant.\nI answer first.\nI keep it short.\n"
DREAM_USER = INIT_USER + "- Runs three times a week.\n"


def git_env(name: str = "nanobot", email: str = "nanobot@dream") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
               GIT_COMMITTER_EMAIL=email, GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    return env


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, binary: bool = False):
    """Run the git CLI in `cwd`; returns stdout (str, or bytes with binary=True)."""
    proc = subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=cwd, capture_output=True,
                          env=env or git_env(), check=False)
    if proc.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout if binary else proc.stdout.decode("utf-8")


def head(cwd: Path) -> str:
    return git(cwd, "rev-parse", "HEAD").strip()


@dataclass
class NanobotRepo:
    root: Path
    init: str
    dream: str
    revert: str


def build_nanobot_repo(ws: Path) -> NanobotRepo:
    """Write the memory files and make nanobot's three commits in `ws` (created if needed).

    Also writes what nanobot keeps untracked: history.jsonl and both cursors."""
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "memory").mkdir(exist_ok=True)

    def write(rel: str, text: str) -> None:
        (ws / rel).write_bytes(text.encode("utf-8"))

    def commit(message: str) -> str:
        git(ws, "add", "--", "SOUL.md", "USER.md", "memory/MEMORY.md", ".gitignore")
        git(ws, "commit", "--quiet", "--no-verify", "-m", message)
        return head(ws)

    git(ws, "init", "--quiet")
    write(".gitignore", NANOBOT_GITIGNORE)
    write("SOUL.md", INIT_SOUL)
    write("USER.md", INIT_USER)
    write("memory/MEMORY.md", INIT_MEMORY)
    write("memory/history.jsonl", '{"cursor": 1, "timestamp": "2026-04-03 00:02", "content": "hello"}\n')
    write("memory/.cursor", "1")
    write("memory/.dream_cursor", "0")
    init = commit("init: nanobot memory store")

    write("SOUL.md", DREAM_SOUL)
    write("USER.md", DREAM_USER)
    write("memory/.dream_cursor", "1")
    dream = commit("dream: periodic memory consolidation\n\nSOUL.md: +3 -1\nUSER.md: +1 -0\n\n"
                   "```diff\n-I am Jenny.\n+I am Jenny, a calm assistant.\n```")

    write("SOUL.md", INIT_SOUL)
    write("USER.md", INIT_USER)
    revert = commit(f"revert: undo {dream}")
    return NanobotRepo(ws, init, dream, revert)
