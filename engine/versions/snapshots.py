"""Git-backed snapshots of the memory files (the real git, run as a process per command).

A Jenny-style home: `<workspace>/.git` with an allow-list .gitignore, files staged by path
(never `add -A` over the tree). When the workspace lies inside another repository, a separate
git dir `<workspace>/.dreamdesk/snapshots.git` is used and the user's repository is never
touched. The repository is created on the first snapshot, never on open.

A home whose assistant keeps a repository of its own there (nanobot): Dreamdesk's store is
`snapshots.git` in its state folder for the workspace, with the workspace as its work tree;
the assistant's commits are replayed into it and its own memory-file changes mirrored to the
assistant's repository, which holds nothing else of Dreamdesk's (engine/assistants/home_repo.py).
"""

from __future__ import annotations

import builtins              # SnapshotStore.list() shadows the builtin in the signatures after it
import logging
import os
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterator

from ..assistants import home_repo
from ..disk import changes, git_head, git_index, git_repair, own_writes
from ..assistants.home_repo import AssistantRepo
from ..text.diffs import FileDiff, diff_texts
from ..core.problems import WorkspaceError
from ..core.rules import CORE_FILES, SKILLS_DIR, is_memory_path, is_skill_name
from ..disk.stat_memo import LastUsed
from ..home.workspace import Workspace, record_versions

# What a snapshot holds. Nothing else is ever staged: not config.json, not sessions, not
# history.jsonl, not the other cursors or lock files.
TRACKED_FILES = (*CORE_FILES, "memory/.dream_cursor")
TRACKED_DIRS = ("memory/archive", "memory/dreams")
# From skills/ only each skill's SKILL.md: a skill folder may also hold scripts, .env files or
# tokens, and nothing that can hold a secret is ever snapshotted.
GITIGNORE = """\
# Dreamdesk / nanobot memory snapshots: an allow-list, everything else stays out.
/*
!.gitignore
!SOUL.md
!USER.md
!memory/
memory/*
!memory/MEMORY.md
!memory/.dream_cursor
!memory/archive/
!memory/dreams/
!skills/
skills/*
!skills/*/
skills/*/*
!skills/*/SKILL.md
"""
# The allow-list earlier Dreamdesk versions wrote (all of skills/): upgraded in place when found
# unchanged, so `git status` stops offering a skill's other files.
OLD_GITIGNORE = GITIGNORE.replace("skills/*\n!skills/*/\nskills/*/*\n!skills/*/SKILL.md\n", "")
# Our own temp files (engine.files: `.<name>.dreamdesk-<random>.tmp`) are never staged, even
# inside the folders that are snapshotted whole: a kill mid-write leaves one behind.
NEVER_STAGED = (":(exclude,glob)**/.*.dreamdesk-*.tmp",)
# git's words for a damaged repository (a torn or corrupt object): said as damage, with fsck
_BUSY_LOCK = re.compile(r"Unable to create '(.+\.lock)': File exists")
_DAMAGE_WORDS = ("corrupt", "unable to stream", "inflate", "bad object", "loose object", "unable to unpack")
# the git commands that move a ref: the Snapshots view has something new to show
_MOVES_HISTORY = frozenset({"commit", "update-ref", "reset", "checkout", "revert", "init", "tag", "fast-import"})
AUTHOR_NAME = "Dreamdesk"
AUTHOR_EMAIL = "dreamdesk@localhost"
_DIR_PREFIXES = tuple(d + "/" for d in TRACKED_DIRS)
# the last line `git commit` says when nothing is staged
_NOTHING_STAGED = ("nothing to commit", "no changes added to commit", "nothing added to commit")
# The last listings (by repository and limit), each with the HEAD stamp it was made at
_LISTINGS: LastUsed[tuple[tuple, list["Snapshot"]]] = LastUsed()

log = logging.getLogger(__name__)


_GIT_FOUND: set[str | None] = set()      # PATHs git was found on (looking costs a stat per folder)


def _git_on(path: str | None) -> bool:
    if path not in _GIT_FOUND:
        import shutil
        if shutil.which("git", path=path) is None:
            return False
        _GIT_FOUND.add(path)
    return True


def _is_our_temp(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.startswith(".") and ".dreamdesk-" in name and name.endswith(".tmp")


def _snapshotted(path: str) -> bool:
    """Inside what a snapshot stages (before the skills/ and temp-file rules narrow it)."""
    return path in TRACKED_FILES or path == ".gitignore" or path.startswith(_DIR_PREFIXES + (SKILLS_DIR + "/",))


_HELD: dict[str, list] = {}          # lock path -> [FileLock, depth] held by this process
_HELD_GUARD = threading.RLock()


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Dreamdesk's store beside an assistant's repository, for one writer at a time across
    processes (a file lock in the state folder) and re-entrant within this one: a snapshot
    takes in the assistant's commits while it holds it."""
    from ..disk.files import FileLock
    key = os.fspath(path)
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is None:
            held = _HELD[key] = [FileLock(path, timeout=30.0, what="Dreamdesk's snapshot store").acquire(), 0]
        held[1] += 1
        try:
            yield
        finally:
            held[1] -= 1
            if held[1] == 0:
                del _HELD[key]
                held[0].release()


class SnapshotError(WorkspaceError):
    """Git failed (no git binary, a locked index, a corrupt repository...). Working files are
    never touched by a failing snapshot operation."""


class NoGit(SnapshotError):
    """This machine has no git program: snapshots cannot exist at all (not a passing failure)."""


# A restore's commit starts with "dream:" so that the assistant's own /dream-log names it as the
# latest memory change and its /dream-restore <sha> undoes exactly that restore (nanobot 0.3.5
# lists and reverts only commits whose subject starts with "dream:"). Earlier Dreamdesk
# versions wrote `restore: ...`; both read as restores.
RESTORE_PREFIX = "dream: restore "
# the trailer that names, in a replay of an assistant's commit, that commit's own sha
ASSISTANT_TRAILER = "Assistant-Commit"


def restore_subject(what: str) -> str:
    return f"{RESTORE_PREFIX}{what} (Dreamdesk)"


def kind_of(subject: str, author: str = "") -> str:
    s = subject.strip()
    if s.startswith("snapshot: before dream"):
        return "pre-dream"
    if s.startswith(RESTORE_PREFIX):
        return "restore"
    for prefix in ("snapshot", "dream", "restore", "edit", "init", "revert"):
        if s.startswith(prefix + ":"):
            return prefix
    return "other"


@dataclass(slots=True)
class Snapshot:
    sha: str
    time: int                 # unix seconds (committer time)
    author: str
    subject: str
    kind: str
    files: dict[str, tuple[int, int]] = field(default_factory=dict)   # path -> (+lines, -lines)

    @property
    def short(self) -> str:
        return self.sha[:8]

    def to_json(self) -> dict:
        return {"sha": self.sha, "time": self.time, "author": self.author, "subject": self.subject,
                "kind": self.kind, "files": {p: {"added": a, "removed": r} for p, (a, r) in self.files.items()}}


@dataclass(frozen=True, slots=True)
class SizePoint:
    sha: str
    time: int
    chars: int | None         # None: the file was not in that snapshot


def _inside_other_repo(root: Path) -> bool:
    for parent in Path(os.path.realpath(root)).parents:
        if (parent / ".git").exists():
            return True
    return False


class SnapshotStore:
    def __init__(self, ws: Workspace):
        self.ws = ws
        own = ws.root / ".git"
        self.assistant: AssistantRepo | None = None     # the assistant's own repository, beside ours
        self.apart = ws.layout.apart       # the layout's memory files, stored in Dreamdesk's state folder
        shared = None if self.apart else home_repo.for_workspace(ws)
        if self.apart:
            from ..core.state import workspace_state_dir
            self.git_dir = workspace_state_dir(ws.root) / "snapshots.git"
            self.separate = True
        elif shared is not None and (own.is_dir() or not _inside_other_repo(ws.root)):
            from ..core.state import workspace_state_dir
            self.assistant = shared
            self.git_dir = workspace_state_dir(ws.root) / "snapshots.git"
            self.separate = True
        elif own.is_dir() or (not own.exists() and not _inside_other_repo(ws.root)):
            self.git_dir = own
            self.separate = False
        else:
            self.git_dir = ws.root / ".dreamdesk" / "snapshots.git"
            self.separate = True
        self._blob_cache: dict[str, bytes] = {}     # raw: a file need not be valid UTF-8
        self.notes: list[str] = []                   # repairs made on the way (said to the user)
        self._base_env: dict[str, str] | None = None

    # -- plumbing -------------------------------------------------------------------------
    def exists(self) -> bool:
        """Is there a history to show? Beside an assistant's repository, its commits count
        before Dreamdesk's store has taken them in (the first read does)."""
        return self._made() or (self.assistant is not None and self.assistant.head() is not None)

    def _made(self) -> bool:
        return (self.git_dir / "HEAD").is_file()

    def _env(self) -> dict[str, str]:
        """git's environment: ours without GIT_* (a caller's GIT_DIR must not redirect it), with
        Dreamdesk as the writer. Made once per store (walking os.environ costs more than the
        rest of a call), a copy each time."""
        if self._base_env is None:
            env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
            env.update(GIT_AUTHOR_NAME=AUTHOR_NAME, GIT_AUTHOR_EMAIL=AUTHOR_EMAIL,
                       GIT_COMMITTER_NAME=AUTHOR_NAME, GIT_COMMITTER_EMAIL=AUTHOR_EMAIL,
                       GIT_TERMINAL_PROMPT="0", LC_ALL="C")
            self._base_env = env
        return dict(self._base_env)

    def _git(self, *args: str, binary: bool = False, ok_codes: tuple[int, ...] = (0,), plain: bool = False,
             merged: bool = False, git_dir: Path | None = None, stdin: bytes | None = None):
        """Run git on this store (or on the repository `git_dir`, with the same work tree);
        returns stdout (str, or bytes)."""
        status, out, err = self._run(args, binary=binary, plain=plain, merged=merged, git_dir=git_dir, stdin=stdin)
        if status not in ok_codes:
            raise self._failure(args[0], err or "", status)
        return out

    def _run(self, args, binary: bool = False, plain: bool = False, merged: bool = False,
             git_dir: Path | None = None, stdin: bytes | None = None):
        """git's exit status, stdout and stderr (`merged`: both, for commands whose output is
        words, not data, given as one text twice). Through gitpython, the project's git layer:
        measured, its own work is ~0.07 ms of a ~1 ms git process."""
        env = self._env()
        if not _git_on(env.get("PATH")):
            raise NoGit("git is not installed (snapshots need the git program)")
        os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
        try:
            import git
        except ImportError as exc:  # pragma: no cover - a declared dependency
            raise SnapshotError(f"gitpython is not available ({str(exc).splitlines()[0]})") from None
        where = [] if plain else [f"--git-dir={git_dir or self.git_dir}", f"--work-tree={self.ws.root}"]
        cmd = ["git", *where, "-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", "commit.gpgsign=false",
               "-c", f"core.hooksPath={os.devnull}", "-c", "core.fsmonitor=false", *args]
        try:
            if stdin is not None:       # data to feed (fast-import, cat-file --batch)
                import subprocess
                proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=self.ws.root, check=False)
                status, out, err = proc.returncode, proc.stdout, proc.stderr
            else:
                status, out, err = git.Git(str(self.ws.root)).execute(
                    cmd, env=env, with_extended_output=True, with_exceptions=False,
                    stdout_as_string=False, strip_newline_in_stdout=False)
        except git.GitCommandNotFound:
            raise NoGit("git is not installed (snapshots need the git program)") from None
        except OSError as exc:
            raise SnapshotError(f"git could not run ({exc})") from None
        if status == 0 and args and args[0] in _MOVES_HISTORY:
            # a ref moved: the timeline has something new (git updates a ref last, so a failed
            # command moved none); a store outside the workspace is still the workspace's history
            changes.note(self.ws.root / ".git" if self.assistant else (git_dir or self.git_dir))
        err = err.decode("utf-8", "surrogateescape") if isinstance(err, bytes) else err
        if merged:
            text = out.decode("utf-8", "surrogateescape") + err
            return status, text, text
        return status, out if binary else out.decode("utf-8", "surrogateescape"), err

    def _failure(self, what: str, stderr: str, status: int) -> SnapshotError:
        """One line from git's stderr: its own reason (the fatal:/error: line, not the hints), or
        that the repository is damaged and how to find out more."""
        lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
        why = next((ln for ln in lines if ln.startswith(("fatal:", "error:"))), lines[-1] if lines else None)
        log.warning("snapshot repository %s: git %s failed (exit %s): %s", self.git_dir, what, status, why)
        busy = next((m for ln in lines if (m := _BUSY_LOCK.search(ln))), None)
        if busy:
            lock = Path(busy.group(1))
            # a git started in the work tree works in its .git (ours or the assistant's)
            tree = self.ws.root if (self.ws.root / ".git") in lock.parents else None
            return SnapshotError(f"git {what} could not start: {git_repair.busy_lock_words(lock, tree)}")
        if any(w in ln for ln in lines for w in _DAMAGE_WORDS):
            return SnapshotError(f"the snapshot repository {self.display} is damaged ({why.split(':', 1)[-1].strip()}); "
                                 f"git --git-dir={self.git_dir} fsck says what is wrong; the memory files are not "
                                 "affected")
        return SnapshotError(f"git {what} failed: {why or f'exit {status}'}")

    @property
    def display(self) -> str:
        if self.assistant:
            return f"Dreamdesk's snapshot store ({self.git_dir})"
        return ".dreamdesk/snapshots.git" if self.separate else ".git"

    def check(self) -> None:
        """Raise SnapshotError, saying how to fix it, when the repository is half-made (reads
        never repair: opening writes nothing). Beside an assistant's repository, first take in
        the commits it made since (into Dreamdesk's store, in Dreamdesk's state folder)."""
        why = git_repair.half_made(self.git_dir)
        if why:
            raise SnapshotError(f"the snapshot repository {self.display} is half-made ({why}), as an interrupted "
                                f"git init leaves it; the next snapshot repairs it, or run: "
                                f"git --git-dir={self.git_dir} init")
        if self.assistant is not None and self.assistant.head() not in (None, self._seen()):
            with exclusive(self._lock_path()):
                if not self._made():
                    self._create()
                self._import_assistant()

    def _ensure(self) -> None:
        git_repair.sweep_init_temps(self.git_dir.parent)
        if git_repair.half_made(self.git_dir):
            self._repair()
        if self._made():
            cleared = git_repair.clear_stale_locks(self.git_dir, work_tree=None if self.separate else self.ws.root)
            if cleared:
                self.notes.append(f"cleared {', '.join(cleared)} that an interrupted git left in {self.display}")
            self._upgrade_ignore()
            if not self.separate and not (self.ws.root / ".gitignore").exists() and self._unborn():
                self._write_ignore()         # a kill between our init and this left it out
        else:
            self._create()
        if self.assistant is not None:
            self._share()

    def _unborn(self) -> bool:
        """No commit yet: from HEAD's files when they can tell, else from git."""
        said = git_head.unborn(self.git_dir)
        return self.head() is None if said is None else said

    def _create(self) -> None:
        """git init into a temp folder beside the repository, then one rename: a kill leaves no
        repository or a whole one, never a half-made one."""
        import secrets
        import shutil
        parent = self.git_dir.parent
        parent.mkdir(parents=True, exist_ok=True)
        tmp = parent / f".{self.git_dir.name}{git_repair.INIT_TMP_TAG}{secrets.token_hex(4)}"
        try:
            self._init_at(tmp)
            if self.separate:
                info = tmp / "info"
                info.mkdir(exist_ok=True)
                # apart: every path is staged by name (--force), nothing else is ever seen
                (info / "exclude").write_text("*\n" if self.apart else GITIGNORE, encoding="utf-8")
            try:
                with own_writes.writing(self.git_dir) as ours:
                    os.rename(tmp, self.git_dir)
                    ours.left = own_writes.look(self.git_dir)
            except OSError:
                if not self.git_dir.is_dir():
                    raise SnapshotError(f"could not create the snapshot repository {self.display}") from None
                # someone (the assistant's own git init) made it meanwhile: use theirs
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if self.apart:
            pass                     # in Dreamdesk's state folder: no repository of the user's sees it
        elif self.separate and self.assistant is None:
            # keep the user's repository from seeing .dreamdesk/ as untracked
            from ..disk.files import atomic_write_text
            atomic_write_text(parent / ".gitignore", "*\n")
        elif not (self.ws.root / ".gitignore").exists():
            self._write_ignore()

    def _init_at(self, git_dir: Path) -> None:
        # a bare init plus core.bare=false is exactly the .git folder of a normal repository
        # (git refuses --work-tree on init, so the work tree is given on every later call)
        self._git("init", "--quiet", "--bare", str(git_dir), plain=True)
        for key, value in (("core.bare", "false"), ("core.logallrefupdates", "true")):
            self._git(f"--git-dir={git_dir}", "config", key, value, plain=True)

    def _write_ignore(self) -> None:
        from ..disk.files import atomic_write_text
        atomic_write_text(self.ws.root / ".gitignore", GITIGNORE)

    def _repair(self) -> None:
        """A half-made repository: re-run init in place when it holds nothing (so nothing can be
        lost), else refuse with the command that fixes it."""
        why = git_repair.half_made(self.git_dir)
        if not git_repair.holds_nothing(self.git_dir):
            raise SnapshotError(f"the snapshot repository {self.display} is damaged ({why}) and holds commits, so "
                                f"Dreamdesk leaves it alone; git --git-dir={self.git_dir} fsck says what is wrong")
        if not git_repair.settled(self.git_dir):
            raise SnapshotError(f"the snapshot repository {self.display} is being created by another program "
                                "right now; try again in a moment")
        for name in ("HEAD.lock", "config.lock", "index.lock"):
            try:
                os.unlink(self.git_dir / name)       # an init that died holding them: nobody else can
            except OSError:
                pass
        self._init_at(self.git_dir)
        self.notes.append(f"repaired the snapshot repository {self.display}, which an interrupted git init had "
                          f"left half-made ({why})")

    def _upgrade_ignore(self) -> None:
        from ..disk.files import atomic_write_text
        target = self.git_dir / "info" / "exclude" if self.separate else self.ws.root / ".gitignore"
        old = OLD_GITIGNORE.encode()
        try:      # (its size first: a snapshot asks every time, reading costs more than a stat)
            if os.stat(target).st_size in (len(old), len(old) + old.count(b"\n")) and \
                    target.read_text(encoding="utf-8") == OLD_GITIGNORE:
                atomic_write_text(target, GITIGNORE)
        except (OSError, UnicodeDecodeError):
            pass     # not ours, or not there: left as it is

    def _index(self) -> list[str]:
        """Every path the index holds: read from the file, or (one this reader cannot vouch
        for) from one `git ls-files`."""
        paths = git_index.index_paths(self.git_dir)
        if paths is None:
            paths = [p for p in self._git("ls-files", "-z").split("\0") if p]
        return paths

    @staticmethod
    def _to_unstage(indexed: list[str]) -> list[str]:
        """What an earlier version committed and no snapshot may hold: files under skills/
        besides SKILL.md (a .env, scripts; the working files stay, older commits keep them) and
        temp files of interrupted writes (memory/dreams/…)."""
        return [p for p in indexed if (p.startswith(SKILLS_DIR + "/") and not is_memory_path(p))
                or (p.startswith(_DIR_PREFIXES) and _is_our_temp(p))]

    def _paths_to_stage(self, indexed: list[str]) -> list[str]:
        if self.apart:
            return self._layout_paths(indexed)
        root = os.fspath(self.ws.root) + os.sep      # strings: a pathlib join costs more than the stat
        paths = [p for p in TRACKED_FILES if os.path.lexists(root + p)]
        paths += [d for d in TRACKED_DIRS if os.path.isdir(root + d)]
        skills = root + SKILLS_DIR
        if os.path.isdir(skills) and not os.path.islink(skills):   # git refuses paths beyond a symlink
            with os.scandir(skills) as found:
                paths += sorted(f"{SKILLS_DIR}/{d.name}/SKILL.md" for d in found
                                if is_skill_name(d.name) and d.is_dir(follow_symlinks=False)
                                and os.path.isfile(f"{d.path}/SKILL.md"))
        if not self.separate and os.path.exists(root + ".gitignore"):
            paths.append(".gitignore")
        # tracked files that vanished from the work tree: stage their removal
        seen = set(paths)
        paths += [p for p in indexed if _snapshotted(p) and p not in seen and not os.path.exists(root + p)
                  and (not p.startswith(SKILLS_DIR + "/") or is_memory_path(p))]
        return paths

    def _layout_paths(self, indexed: list[str]) -> list[str]:
        """The layout's memory files Dreamdesk may write (as they are now, or their removal):
        another program's own files beside them (OpenClaw's dream diary) are never held."""
        layout, root = self.ws.layout, os.fspath(self.ws.root) + os.sep
        paths = [p for p, _ in layout.memory_paths(self.ws.root) if layout.writable(p) and os.path.isfile(root + p)]
        seen = set(paths)
        return paths + [p for p in indexed if p not in seen and layout.writable(p) and not os.path.exists(root + p)]

    def head(self) -> str | None:
        if not self.exists():
            return None
        self.check()
        return self._head_sha()

    def _head_sha(self) -> str | None:
        if not self._made():
            return None
        out = self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok_codes=(0, 1)).strip()
        return out or None

    def resolve(self, rev: str) -> str:
        """The snapshot `rev` names, by its public sha (an assistant's commit by its own)."""
        self.check()
        if not self._made():
            raise SnapshotError("this workspace has no snapshots yet")
        if not rev or rev.startswith("-"):
            raise SnapshotError(f"not a snapshot: {rev!r}")
        local = self._local(rev)
        out = self._git("rev-parse", "--verify", "--quiet", f"{local}^{{commit}}", ok_codes=(0, 1)).strip()
        if not out:
            raise SnapshotError(f"no snapshot {rev!r} in this workspace")
        return self.public(out)

    # -- an assistant's commits go by their own names --------------------------------------
    def _aliases(self) -> tuple[dict[str, str], dict[str, str]]:
        """(the assistant's sha -> its replay here, replay -> the assistant's sha), kept while
        HEAD stays where it was."""
        if self.assistant is None or not self._made():
            return {}, {}
        stamp = git_head.head_stamp(self.git_dir)
        key = f"aliases\0{os.path.realpath(self.git_dir)}"
        kept = _LISTINGS.get(key)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return kept[1]
        out = self._git("log", "--format=%H%x1f%(trailers:key=Assistant-Commit,valueonly,separator=)",
                        f"--grep=^{ASSISTANT_TRAILER}: ", ok_codes=(0, 128))
        fwd: dict[str, str] = {}
        for line in out.splitlines():
            ours, _, theirs = line.partition("\x1f")
            if len(theirs.strip()) == 40:
                fwd[theirs.strip()] = ours
        maps = (fwd, {v: k for k, v in fwd.items()})
        if stamp is not None:
            _LISTINGS.put(key, (stamp, maps))
        return maps

    def public(self, sha: str) -> str:
        """The name a person sees: an assistant's commit's own sha for its replay here."""
        return self._aliases()[1].get(sha, sha) if self.assistant is not None else sha

    def _local(self, rev: str) -> str:
        """This repository's name for `rev`: an assistant's sha (or a prefix of one, as its
        /dream-log shows them) becomes its replay here."""
        if self.assistant is None:
            return rev
        fwd = self._aliases()[0]
        if rev in fwd:
            return fwd[rev]
        if 4 <= len(rev) < 40 and all(c in "0123456789abcdef" for c in rev.lower()):
            hits = [ours for theirs, ours in fwd.items() if theirs.startswith(rev.lower())]
            if len(hits) == 1:
                return hits[0]
        return rev

    # -- writing ------------------------------------------------------------------------
    def snapshot(self, message: str, with_summary: bool = False) -> str | None:
        """Commit the tracked set as it is now; None when nothing changed since the last one.
        Beside an assistant's repository, its own files are then committed there too (a mirror,
        under the same subject) when they differ from what it holds."""
        if self.assistant is None:
            return self._snapshot(message, with_summary)
        with exclusive(self._lock_path()):
            self._ensure()
            # the assistant's files go to its repository first, so that our commit can name
            # that commit: both then go by one sha, the one the assistant's /dream-log shows
            mirror = self._mirror(message.strip())
            made = self._snapshot(message, with_summary, ensured=True,
                                  trailer=f"{ASSISTANT_TRAILER}: {mirror}" if mirror else None)
            if mirror:
                self._import_assistant()     # (its replay changes nothing here: only marked as seen)
            return (mirror or made) if made else None

    def _snapshot(self, message: str, with_summary: bool = False, ensured: bool = False,
                  trailer: str | None = None) -> str | None:
        """Commit the tracked set as it is now; None when nothing changed since the last one.

        Two git processes: `add` of exactly the memory paths, then `commit`, which refuses when
        nothing is staged (no separate diff); the new sha is read from HEAD's reflog (the line
        by Dreamdesk from the HEAD before, no rev-parse). git's own ref update checks HEAD is
        still the parent it read, so racing the assistant's commit fails, never loses it. A
        summary adds one `diff`; files an earlier version committed add one `rm`."""
        if not ensured:
            self._ensure()
        indexed = self._index()
        paths = self._paths_to_stage(indexed)
        stale = self._to_unstage(indexed)
        if stale:
            self._git("rm", "--cached", "--quiet", "--ignore-unmatch", "--", *stale, merged=True)
        if paths:      # (our temp files can only come in through a folder staged whole)
            folders = NEVER_STAGED if any(p in TRACKED_DIRS for p in paths) else ()
            self._git("add", "--force", "--all", "--", *paths, *folders, merged=True)
        msg = message.strip()
        if with_summary:
            summary = self.staged_summary()
            if not summary:
                return None
            msg += "\n\n" + summary
        if trailer:
            msg += "\n\n" + trailer
        before, since = git_head.resolve(self.git_dir), int(time.time())
        status, out, _ = self._run(("commit", "--quiet", "--no-verify", "--untracked-files=no",
                                    "--allow-empty-message", "-m", msg), merged=True)
        if status == 0:
            made = before and git_head.moved_by(self.git_dir, before, f"{AUTHOR_NAME} <{AUTHOR_EMAIL}>", since)
            return made or self.head()        # no reflog to say (logAllRefUpdates off): ask git
        if status == 1 and out.strip().rsplit("\n", 1)[-1].startswith(_NOTHING_STAGED):
            return None
        raise self._failure("commit", out, status)

    def staged_summary(self) -> str:
        """`SOUL.md: +3 -1` lines for what is staged (nanobot's summary style; against the
        empty tree before the first commit, as git's own diff --cached does)."""
        out = self._git("diff", "--cached", "--numstat")
        lines = []
        for row in out.splitlines():
            parts = row.split("\t")
            if len(parts) == 3:
                lines.append(f"{parts[2]}: +{parts[0]} -{parts[1]}")
        return "\n".join(lines)

    # -- reading ------------------------------------------------------------------------
    def list(self, limit: int | None = None) -> list[Snapshot]:
        """Newest first, with per-file +/- line counts; kept while HEAD stays where it was
        (git_head's stamp), so listing again runs no git at all."""
        self.check()
        if not self._made():
            return []
        stamp = git_head.head_stamp(self.git_dir)
        key = f"{os.path.realpath(self.git_dir)}\0{limit}"
        kept = _LISTINGS.get(key)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return list(kept[1])
        snaps = self._log(limit)
        if stamp is not None:        # the stamp from before the log: a HEAD moved meanwhile lists again
            _LISTINGS.put(key, (stamp, snaps))
        return list(snaps)

    def _log(self, limit: int | None) -> builtins.list[Snapshot]:
        if self.head() is None:
            return []
        args = ["log", "--format=%x1e%H%x1f%ct%x1f%an%x1f%s", "--numstat", "--no-renames"]
        if limit:
            args.append(f"-n{int(limit)}")
        out = self._git(*args)
        snaps: list[Snapshot] = []
        for chunk in out.split("\x1e")[1:]:
            head, _, rest = chunk.partition("\n")
            sha, ct, author, subject = (head.split("\x1f") + ["", "", "", ""])[:4]
            snap = Snapshot(self.public(sha), int(ct or 0), author, subject, kind_of(subject, author))
            for row in rest.splitlines():
                parts = row.split("\t")
                if len(parts) == 3:
                    a = int(parts[0]) if parts[0].isdigit() else 0
                    r = int(parts[1]) if parts[1].isdigit() else 0
                    snap.files[parts[2]] = (a, r)
            snaps.append(snap)
        return snaps

    def tree(self, rev: str) -> dict[str, str]:
        """path -> blob sha of the files in a snapshot."""
        out = self._git("ls-tree", "-r", "-z", "--full-tree", self._local(rev))
        files = {}
        for item in out.split("\0"):
            if not item:
                continue
            meta, _, path = item.partition("\t")
            parts = meta.split()
            # a symlink's blob is its target path, not the file's text: never treat it as one
            if len(parts) == 3 and parts[1] == "blob" and parts[0] != "120000":
                files[path] = parts[2]
        return files

    def blob_text(self, sha: str) -> str:
        """A blob for showing (bytes that are not UTF-8 become U+FFFD); restores use blob_bytes."""
        return self.blob_bytes([sha])[sha].decode("utf-8", errors="replace")

    def blob_texts(self, shas: builtins.list[str]) -> dict[str, str]:
        return {s: b.decode("utf-8", errors="replace") for s, b in self.blob_bytes(shas).items()}

    def blob_bytes(self, shas: builtins.list[str]) -> dict[str, bytes]:
        """Many blobs in one `git cat-file --batch` pass."""
        return self._cat_blobs(shas, self.git_dir)

    def _cat_blobs(self, shas: builtins.list[str], git_dir: Path) -> dict[str, bytes]:
        todo = [s for s in dict.fromkeys(shas) if s not in self._blob_cache]
        if todo:
            import subprocess
            cmd = ["git", f"--git-dir={git_dir}", "cat-file", "--batch"]
            try:
                proc = subprocess.run(cmd, input=("\n".join(todo) + "\n").encode(), capture_output=True,
                                      env=self._env(), check=False)
            except OSError as exc:
                raise SnapshotError(f"git could not run ({exc})") from None
            if proc.returncode:
                raise self._failure("cat-file", proc.stderr.decode(errors="replace"), proc.returncode)
            data = proc.stdout
            pos = 0
            for sha in todo:
                nl = data.index(b"\n", pos)
                header = data[pos:nl].split()
                if len(header) < 3 or header[1] == b"missing":
                    raise SnapshotError(f"object {sha} is missing from the snapshot repository")
                size = int(header[2])
                self._blob_cache[sha] = data[nl + 1:nl + 1 + size]     # (a blob's name is its content)
                pos = nl + 1 + size + 1
        return {s: self._blob_cache[s] for s in shas}

    def file_at(self, rev: str, path: str) -> str | None:
        blob = self.tree(rev).get(path)
        return None if blob is None else self.blob_text(blob)

    def memory_files_at(self, rev: str) -> dict[str, str]:
        return {p: b.decode("utf-8", errors="replace") for p, b in self.memory_bytes_at(rev).items()}

    def memory_bytes_at(self, rev: str) -> dict[str, bytes]:
        tree = self.tree(rev)
        wanted = {p: b for p, b in tree.items() if self.ws.layout.writable(p)}
        blobs = self.blob_bytes(list(wanted.values()))
        return {p: blobs[b] for p, b in wanted.items()}

    def working_memory_files(self) -> dict[str, str]:
        out = {}
        for mf in self.ws.memory_files():
            if not self.ws.layout.writable(mf.path):
                continue                   # another program's own file (OpenClaw's dream diary): never held
            state, _ = self.ws.read_file(mf.path)
            if state.exists:
                out[mf.path] = state.text
        return out

    def diff(self, rev_a: str, rev_b: str | None = None,
             paths: builtins.list[str] | None = None) -> builtins.list[FileDiff]:
        """Memory-file diffs from snapshot `rev_a` to `rev_b` (None: the working files)."""
        a = self.memory_files_at(self.resolve(rev_a))
        b = self.memory_files_at(self.resolve(rev_b)) if rev_b else self.working_memory_files()
        return _compare(a, b, paths)

    def changes_made(self, rev: str) -> builtins.list[FileDiff]:
        """What snapshot `rev` itself changed in the memory files: from the snapshot before it (its
        first parent) to it; the first snapshot, from no files. Its list row counts these lines."""
        local = self._local(self.resolve(rev))
        parent = self._git("rev-parse", "--verify", "--quiet", f"{local}^1", ok_codes=(0, 1)).strip()
        return _compare(self.memory_files_at(parent) if parent else {}, self.memory_files_at(local), None)

    def size_history(self) -> dict[str, builtins.list[SizePoint]]:
        """Each memory file's character count at every snapshot, oldest first, from one
        `git log --raw` pass plus one `cat-file --batch` pass (no checkouts)."""
        if self.head() is None:
            return {}
        out = self._git("log", "--reverse", "--format=%x1e%H%x1f%ct", "--raw", "--no-abbrev", "--no-renames",
                        "-m", "--first-parent")
        commits: list[tuple[str, int, dict[str, str | None]]] = []
        for chunk in out.split("\x1e")[1:]:
            head, _, rest = chunk.partition("\n")
            sha, ct = head.split("\x1f")
            changes: dict[str, str | None] = {}
            for row in rest.splitlines():
                if not row.startswith(":"):
                    continue
                meta, _, path = row.partition("\t")
                parts = meta.split()
                if self.ws.layout.writable(path) and len(parts) >= 5:
                    gone = parts[4].startswith("D") or parts[1] == "120000"   # deleted, or a symlink
                    changes[path] = None if gone else parts[3]
            commits.append((sha, int(ct), changes))
        blobs = [b for _, _, ch in commits for b in ch.values() if b]
        texts = self.blob_texts(blobs)
        paths = sorted({p for _, _, ch in commits for p in ch}, key=_path_order)
        current: dict[str, str | None] = {}
        history: dict[str, list[SizePoint]] = {p: [] for p in paths}
        for sha, ct, changes in commits:
            current.update(changes)
            for path in paths:
                blob = current.get(path)
                history[path].append(SizePoint(self.public(sha), ct, len(texts[blob]) if blob else None))
        return history

    # -- beside the assistant's own repository (nanobot) ------------------------------------
    def _lock_path(self) -> Path:
        return self.git_dir.parent / "locks" / "snapshots.lock"

    def _seen(self) -> str | None:
        """The assistant commit this store has taken in (None: none yet)."""
        try:
            return (self.git_dir / home_repo.SEEN_FILE).read_text(encoding="ascii").strip() or None
        except (OSError, UnicodeDecodeError):
            return None

    def _importable(self, path: str) -> bool:
        """What a first look at the assistant's history takes from its commits: everything a
        snapshot of ours holds (an earlier Dreamdesk committed its archive and skills there)."""
        return (_snapshotted(path) and path != ".gitignore" and not _is_our_temp(path)
                and (not path.startswith(SKILLS_DIR + "/") or is_memory_path(path)))

    def _import_assistant(self) -> None:
        """Replay, oldest first, the assistant's commits since the one last taken in: its
        message, author and times, its memory files as it committed them (after the first
        look, only the files it tracks). One that changes nothing here is skipped: a mirror of
        ours coming back. Two git processes in the assistant's repository, two in ours."""
        a = self.assistant
        head, seen = a.head(), self._seen()
        if head is None or head == seen:
            return
        args = ["log", "--first-parent", "--diff-merges=first-parent", "--reverse", "--no-renames", "--no-abbrev",
                "--raw", "--date=raw", f"--format={home_repo.LOG_FORMAT}", head]
        status, out, err = self._run((*args, f"^{seen}") if seen else tuple(args), binary=True, git_dir=a.git_dir)
        if status and seen:       # the commit we knew is gone (its history was rewritten): read it all again
            status, out, err = self._run(tuple(args), binary=True, git_dir=a.git_dir)
        if status:
            raise self._failure("log", err or "", status)
        keep = self._importable if seen is None else (lambda p: p in TRACKED_FILES)
        ours = self._head_sha()
        current = dict(self.tree(ours)) if ours else {}
        planned = []
        for replay in home_repo.parse_log(out):
            changes = {p: (mode, blob) for p, (mode, blob) in replay.changes.items()
                       if keep(p) and mode not in ("120000", "160000") and current.get(p) != blob}
            if changes:
                for p, (_mode, blob) in changes.items():
                    current.pop(p, None) if blob is None else current.__setitem__(p, blob)
                planned.append((replay, changes))
        if planned:
            wanted = [b for _r, ch in planned for _m, b in ch.values() if b]
            blobs = self._cat_blobs(wanted, a.git_dir)
            stream = home_repo.fast_import_stream(self._branch(), ours, planned, blobs, ASSISTANT_TRAILER)
            self._git("fast-import", "--quiet", stdin=stream)
        from ..disk.files import atomic_write_text
        atomic_write_text(self.git_dir / home_repo.SEEN_FILE, head + "\n")

    def _branch(self) -> str:
        try:
            head = (self.git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            head = ""
        return head[5:].strip() if head.startswith("ref: refs/") else "refs/heads/master"

    def _share(self) -> None:
        """Before a write: the assistant's commits taken in; its repository cleared of what an
        earlier Dreamdesk put in its index (one commit it accepts; the files stay on disk and in
        both histories); Dreamdesk's folders named in its exclude file."""
        a = self.assistant
        self._import_assistant()
        if not a.exists():
            return
        cleared = git_repair.clear_stale_locks(a.git_dir, work_tree=self.ws.root)
        if cleared:
            self.notes.append(f"cleared {', '.join(cleared)} that an interrupted git left in the assistant's .git")
        home_repo.hide_in(a)
        foreign = a.foreign_paths()
        if foreign:
            self._git("rm", "--cached", "-r", "--quiet", "--ignore-unmatch", "--", *foreign,
                      git_dir=a.git_dir, merged=True)
            self._commit_in(a.git_dir, home_repo.RELEASE_SUBJECT)
            self.notes.append(f"took Dreamdesk's own files ({len(foreign)}) out of the assistant's repository; "
                              "they stay on disk and in Dreamdesk's snapshots")
            self._import_assistant()

    def _mirror(self, message: str) -> str | None:
        """The assistant's own files committed to its repository when they differ from what it
        holds, under the same message; its sha (None: nothing to commit). A busy repository is
        left for the next snapshot."""
        a = self.assistant
        if not a.exists():
            return None
        root = os.fspath(self.ws.root) + os.sep
        indexed = set(git_index.index_paths(a.git_dir) or [])
        paths = [p for p in a.files if p != ".gitignore" and (os.path.lexists(root + p) or p in indexed)]
        try:
            if paths:
                self._git("add", "--all", "--", *paths, git_dir=a.git_dir, merged=True)
            return a.head() if self._commit_in(a.git_dir, message) else None
        except SnapshotError as exc:
            self.notes.append(f"the assistant's repository was not updated ({exc}); the next snapshot does it")
            return None

    def _commit_in(self, git_dir: Path, message: str) -> bool:
        status, out, _ = self._run(("commit", "--quiet", "--no-verify", "--untracked-files=no",
                                    "--allow-empty-message", "-m", message), merged=True, git_dir=git_dir)
        if status == 0:
            return True
        if status == 1 and out.strip().rsplit("\n", 1)[-1].startswith(_NOTHING_STAGED):
            return False
        raise self._failure("commit", out, status)


def _path_order(path: str) -> tuple[int, str]:
    order = {"SOUL.md": 0, "USER.md": 1, "memory/MEMORY.md": 2}
    return (order.get(path, 3), path)


def _compare(a: dict[str, str], b: dict[str, str], paths: list[str] | None) -> list[FileDiff]:
    """The memory files that differ between two sets of texts, in the views' file order."""
    names = sorted(set(a) | set(b), key=_path_order)
    if paths:
        names = [n for n in names if n in paths]
    diffs = [diff_texts(a.get(n), b.get(n), n) for n in names]
    return [d for d in diffs if d.changed]


def _first_recorded(ws: Workspace, rel: str, iso: str) -> str | None:
    """Workspace.recorded_after from this store: the oldest snapshot committed after `iso` that
    holds `rel` (one git log, one blob read; nothing when no store exists yet)."""
    store = SnapshotStore(ws)
    try:
        if not store.exists() or store.head() is None:
            return None
        since = datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
        rows = store._git("log", "--reverse", "--format=%H %ct", "--", rel).split("\n")
        for sha, _, ct in (r.partition(" ") for r in rows if r):
            text = store.file_at(sha, rel) if int(ct) >= int(since) else None
            if text is not None:
                return text
    except (SnapshotError, ValueError):
        return None
    return None


record_versions(_first_recorded)
