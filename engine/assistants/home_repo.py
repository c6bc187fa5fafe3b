"""The assistant's own git repository in its workspace (nanobot's `<workspace>/.git`), seen from
Dreamdesk's snapshot store in Dreamdesk's state folder.

nanobot commits four memory files to that repository and shows every `dream:` commit in it to
its user (`/dream-log`), offering to revert it (`/dream-restore`). Dreamdesk shares it without
growing it: its own snapshots (skills, its archive, its run records, and the memory files too)
are commits of a repository of its own, whose work tree is the workspace, and nanobot's
repository only ever receives

- a commit of nanobot's own files when a Dreamdesk snapshot changed them (a "mirror", with the
  same message, so nanobot's `/dream-log` shows a restore as the latest memory change and its
  `/dream-restore` can take it back),
- once, on the first write to a home an earlier Dreamdesk filled, a commit that takes
  Dreamdesk's files out of nanobot's index (they stay on disk and in both histories),
- the local exclude lines that keep Dreamdesk's folders in memory/ out of its `git status`.

nanobot's own commits come the other way: each is replayed into Dreamdesk's store (same
message, author and time; the memory files as nanobot committed them), so Dreamdesk's views
read one timeline from one repository. A replay that changes nothing there (a mirror of ours
coming back) is skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..disk import git_head, git_index

# where Dreamdesk remembers the assistant commit its store has caught up with
SEEN_FILE = "dreamdesk-assistant-head"
RELEASE_SUBJECT = "snapshot: Dreamdesk's own files leave the assistant's repository (Dreamdesk)"
_NULL = "0" * 40


@dataclass(slots=True)
class Replay:
    """One commit of the assistant's, as Dreamdesk's store takes it."""
    sha: str
    author: str           # `Name <email> <unix> <tz>`, as git's raw date gives it
    committer: str
    message: bytes
    changes: dict[str, tuple[str, str | None]] = field(default_factory=dict)   # path -> (mode, blob or None)


class AssistantRepo:
    """nanobot's repository: the files it tracks, the commits Dreamdesk has not taken in yet."""

    def __init__(self, root: Path, files: tuple[str, ...], hidden: tuple[str, ...]):
        self.root = Path(root)
        self.git_dir = self.root / ".git"
        self.files = files                      # what the assistant commits (and nothing else goes in)
        self.hidden = hidden                    # exclude lines for Dreamdesk's folders in memory/

    def exists(self) -> bool:
        return os.path.isfile(os.path.join(self.git_dir, "HEAD"))

    def head(self) -> str | None:
        """Its HEAD commit from the files git keeps it in (None: none yet, or not told)."""
        if not self.exists():
            return None
        sha = git_head.resolve(self.git_dir)
        return None if sha in (None, _NULL) else sha

    def foreign_paths(self) -> list[str]:
        """Paths in its index that it does not track: an earlier Dreamdesk's snapshots put them
        there (skills, memory/archive, memory/dreams)."""
        indexed = git_index.index_paths(self.git_dir) or []
        return [p for p in indexed if p not in self.files]

    # -- the exclude file -------------------------------------------------------------
    def exclude_missing(self) -> bool:
        try:
            text = (self.git_dir / "info" / "exclude").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        have = set(text.splitlines())
        return any(line not in have for line in self.hidden)

    def exclude_text(self) -> str | None:
        """The exclude file with Dreamdesk's lines added at its end (None: nothing to add)."""
        from .nanobot_git import EXCLUDE_HEADER
        path = self.git_dir / "info" / "exclude"
        try:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            text = ""
        have = set(text.splitlines())
        missing = [line for line in self.hidden if line not in have]
        if not missing:
            return None
        if text and not text.endswith("\n"):
            text += "\n"
        if EXCLUDE_HEADER not in have:
            missing.insert(0, EXCLUDE_HEADER)
        return text + "\n".join(missing) + "\n"


# -- reading the assistant's new commits ---------------------------------------------------------
LOG_FORMAT = "%x1e%H%x1f%an <%ae> %ad%x1f%cn <%ce> %cd%x1f%B%x1d"


def parse_log(out: bytes) -> list[Replay]:
    """`git log --raw --format=LOG_FORMAT --date=raw` into replays (oldest first as asked)."""
    replays = []
    for chunk in out.split(b"\x1e")[1:]:
        head, _, raw = chunk.partition(b"\x1d")
        parts = head.split(b"\x1f", 3)
        if len(parts) != 4:
            continue
        sha, author, committer, message = parts
        r = Replay(sha.decode("ascii"), author.decode("utf-8", "surrogateescape"),
                   committer.decode("utf-8", "surrogateescape"), message.rstrip(b"\n") + b"\n")
        for line in raw.decode("utf-8", "surrogateescape").splitlines():
            if not line.startswith(":"):
                continue
            meta, _, path = line.partition("\t")
            bits = meta.split()
            if len(bits) < 5 or path.startswith('"'):
                continue            # a quoted path is no memory file
            new_mode, new_blob, status = bits[1], bits[3], bits[4]
            gone = status.startswith("D") or new_blob == _NULL
            r.changes[path] = (new_mode, None if gone else new_blob)
        replays.append(r)
    return replays


def fast_import_stream(ref: str, parent: str | None, replays: list[tuple[Replay, dict[str, tuple[str, str | None]]]],
                       blobs: dict[str, bytes], seen_note: str) -> bytes:
    """git fast-import commands making one commit per replay on `ref` (after `parent`), with
    the blobs inline so Dreamdesk's store never depends on the assistant's objects."""
    out: list[bytes] = []
    first = True
    for replay, changes in replays:
        message = replay.message + f"\n{seen_note}: {replay.sha}\n".encode()
        out.append(f"commit {ref}\nauthor {replay.author}\ncommitter {replay.committer}\n".encode())
        out.append(b"data %d\n" % len(message) + message + b"\n")
        if first and parent:
            out.append(f"from {parent}\n".encode())
        first = False
        for path, (mode, blob) in sorted(changes.items()):
            if blob is None:
                out.append(f"D {path}\n".encode())
            else:
                data = blobs[blob]
                out.append(f"M {mode} inline {path}\n".encode() + b"data %d\n" % len(data) + data + b"\n")
        out.append(b"\n")
    return b"".join(out)


_UNKNOWN = object()


def for_workspace(ws) -> AssistantRepo | None:
    """The assistant's own repository of this workspace, when its assistant keeps one there
    (nanobot), whether or not it has made it yet; None for a Jenny-style home, whose repository
    is Dreamdesk's own."""
    memo = getattr(ws, "_assistant_repo", _UNKNOWN)
    if memo is not _UNKNOWN:        # asked once per opened workspace: the signs read its files
        return memo
    from . import assistant_of
    try:
        assistant = assistant_of(ws)
    except Exception:        # an unreadable config says nothing about the assistant: the contract's home
        assistant = None
    repo = None
    if assistant is not None and assistant.repository_files is not None:
        repo = AssistantRepo(ws.root, assistant.repository_files, assistant.hidden_from_its_git)
    try:
        ws._assistant_repo = repo
    except AttributeError:
        pass
    return repo


def hide_own_files(ws) -> None:
    """Before Dreamdesk writes into memory/archive or memory/dreams: those folders named in the
    assistant's local exclude file, so its `git status` never lists them (a no-op once they
    are there). A .git we may not write leaves them listed, which loses nothing: logged."""
    repo = for_workspace(ws)
    if repo is None:
        return
    try:
        hide_in(repo)
    except OSError as exc:
        import logging
        logging.getLogger(__name__).warning("could not name Dreamdesk's folders in %s: %s",
                                            repo.git_dir / "info" / "exclude", exc)


def hide_in(repo: AssistantRepo) -> None:
    if not repo.exists() or not repo.exclude_missing():
        return
    text = repo.exclude_text()
    if text is not None:
        from ..disk.files import atomic_write_text
        (repo.git_dir / "info").mkdir(exist_ok=True)
        atomic_write_text(repo.git_dir / "info" / "exclude", text)
