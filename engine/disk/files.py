"""Safe file access: atomic writes, hash-checked edits, paths that stay inside the workspace,
and the advisory workspace lock."""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import changes, own_writes
from ..core.problems import ConflictError, UnsafePathError, WorkspaceError


MAX_READ = 256 * 1024 * 1024   # no workspace file Dreamdesk reads is anywhere near this


class NotRegularFile(OSError):
    """A FIFO, a device or a folder where a file was expected (reading it could hang)."""


def _open_regular(path: Path, limit: int) -> tuple[int, os.stat_result]:
    """A descriptor on a regular file no larger than `limit`, and its stat; else an OSError
    whose strerror says why (FIFOs, devices and folders would hang or never end)."""
    import stat as stat_mod
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            kind = "a folder" if stat_mod.S_ISDIR(st.st_mode) else "not a regular file"
            raise NotRegularFile(errno.EINVAL, f"{kind} (a FIFO, device or folder is never read)", str(path))
        if st.st_size > limit:
            raise NotRegularFile(errno.EFBIG, f"too large ({st.st_size:,} bytes)", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_chunks(path: Path, block: int = 1 << 20, limit: int = MAX_READ, offset: int = 0):
    """A workspace file from `offset` on, `block` bytes at a time (refused like read_bytes).
    The first item is the stat of the file read, taken once it is open."""
    fd, st = _open_regular(path, limit)
    try:
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
        yield st
        while chunk := os.read(fd, block):
            yield chunk
    finally:
        os.close(fd)


def read_tail(path: Path, offset: int, limit: int = MAX_READ) -> tuple[os.stat_result, bytes]:
    """The bytes of a workspace file from `offset` on, and the stat of the file they came from."""
    chunks = read_chunks(path, limit=limit, offset=offset)
    st = next(chunks)
    return st, b"".join(chunks)


def read_bytes(path: Path, limit: int = MAX_READ) -> bytes:
    """Path.read_bytes for workspace files: refuses FIFOs, devices and folders (which would hang
    or never end) and files over `limit`, with an OSError whose strerror says why."""
    return read_tail(path, 0, limit)[1]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; not possible on every platform (Windows), so best effort.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_file_mode() -> int:
    """0666 less the umask, as open() would give (mkstemp alone gives 0600)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o644


# Our temp files say whose they are, so one that a kill left behind can be told from anyone
# else's and swept (see sweep_stale_temps); nanobot's git would otherwise list it in memory/.
TMP_TAG = ".dreamdesk-"
STALE_TEMP_SECONDS = 300          # no atomic write of ours takes anywhere near this long
SECOND_LOOK_SECONDS = 0.05        # a writer's close-then-rename takes microseconds


def sweep_stale_temps(root: Path, now: float | None = None, folders: list[Path] | None = None) -> list[str]:
    """Remove temp files of ours whose writer is gone from the folders Dreamdesk writes in (the
    workspace, memory/ and its archive/ and dreams/, skills/<name>/; or the given `folders`).
    Returns their paths relative to root (others whole). Anyone else's files are never touched.

    Gone: no process has it open and it looks the same a moment later (a live atomic write
    holds its temp open until the close just before its rename), so a kill's leftover goes at
    once; where /proc cannot tell, only once older than STALE_TEMP_SECONDS."""
    import time
    from .processes import holders_of
    now = time.time() if now is None else now
    seen = {}
    for p in _our_temps(Path(root), folders):
        try:
            st = os.lstat(p)
        except OSError:
            continue
        old = now - st.st_mtime >= STALE_TEMP_SECONDS
        if old or holders_of(p) == []:
            seen[p] = (old, st.st_ino, st.st_mtime_ns)
    if any(not old for old, *_ in seen.values()):
        time.sleep(SECOND_LOOK_SECONDS)
    removed = []
    for p, (old, ino, mtime) in seen.items():
        try:
            st = os.lstat(p)
            if not old and ((st.st_ino, st.st_mtime_ns) != (ino, mtime) or holders_of(p) != []):
                continue
            os.unlink(p)
            removed.append(str(p.relative_to(root)) if p.is_relative_to(root) else str(p))
        except OSError:
            continue
    return removed


def _our_temps(root: Path, folders: list[Path] | None = None) -> list[Path]:
    if folders is None:
        folders = [root, root / "memory", root / "memory" / "archive", root / "memory" / "dreams"]
        try:
            folders += [d for d in (root / "skills").iterdir() if d.is_dir() and not d.is_symlink()]
        except OSError:
            pass
    found = []
    for d in folders:
        try:
            names = [n for n in os.listdir(d) if TMP_TAG in n and n.startswith(".") and n.endswith(".tmp")]
        except OSError:
            continue
        found += [d / n for n in names if os.path.isfile(d / n) and not os.path.islink(d / n)]
    return found


def atomic_write_bytes(path: Path, data: bytes, same_inode: int | None = None) -> None:
    """Write `data` to `path` so a reader sees the old file or the new one, never a mix.

    Temp file in the same directory, fsync, os.replace, fsync of the directory. The temp file
    is removed if anything fails, and the original is untouched in that case. An existing
    file's permission bits are kept. With `same_inode`, a file renamed over the name since the
    caller read it is a ConflictError and nothing is written.
    """
    path = Path(path)
    directory = path.parent
    make_dirs(directory)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{TMP_TAG}", suffix=".tmp", dir=directory)
    try:
        with own_writes.writing(path) as ours:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode if mode is not None else _new_file_mode())
            if _before_replace is not None:
                _before_replace(path)
            if same_inode is not None and _inode(path) != same_inode:
                raise ConflictError(path.name, "the file that was read", "a file put there since")
            left = own_writes.mark_of(os.lstat(tmp), data)     # the rename keeps size, mtime and inode
            os.replace(tmp, path)
            ours.left = left
        changes.note(path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(directory)


def make_dirs(directory: Path) -> None:
    """mkdir -p, each folder it creates marked as our own write (a watcher sees a new folder)."""
    missing = []
    d = Path(directory)
    while not os.path.isdir(d) and d != d.parent:
        missing.append(d)
        d = d.parent
    for d in reversed(missing):
        with own_writes.writing(d) as ours:
            try:
                os.mkdir(d)
            except FileExistsError:
                if not os.path.isdir(d):
                    raise
                continue                 # another writer made it just now: theirs
            ours.left = own_writes.look(d)


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def atomic_write_text(path: Path, text: str) -> None:
    # newline="" semantics: the text is written exactly as given (no \r\n translation).
    atomic_write_bytes(path, text.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class FileState:
    """A file as the caller saw it: its text and the hash of its bytes (None = did not exist)."""

    text: str
    hash: str | None
    exists: bool
    decode_error: str | None = None  # set when the bytes were not valid UTF-8


MISSING_HASH = "missing"


def read_state(path: Path) -> FileState:
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return FileState("", MISSING_HASH, False)
    try:
        return FileState(data.decode("utf-8"), content_hash(data), True)
    except UnicodeDecodeError as exc:
        return FileState(data.decode("utf-8", errors="replace"), content_hash(data), True,
                         f"not valid UTF-8 at byte {exc.start}")


def current_hash(path: Path) -> str:
    try:
        return content_hash(read_bytes(path))
    except FileNotFoundError:
        return MISSING_HASH


def checked_write_bytes(path: Path, data: bytes, expected_hash: str, display: str | None = None) -> str:
    """checked_write for bytes (a file that may hold bytes that are not UTF-8)."""
    return _checked_replace(Path(path), data, expected_hash, display or str(path))


class LateWrite(ConflictError):
    """Another program rewrote the file while Dreamdesk was replacing it: its version was put
    back, and Dreamdesk's write did not land."""

    def __init__(self, path: str, expected: str, actual: str | None):
        super().__init__(path, expected, actual)
        self.args = (f"{path} was rewritten by another program while Dreamdesk was writing it; that version is "
                     "kept and Dreamdesk's change did not land (do it again)",)


SETTLE_S = 0.02           # another writer's bytes unchanged this long count as done (a writer that
                          # opened the old file just before the rename writes within microseconds)
LATE_WAIT_S = 1.0         # the most we wait for it

# Tests set this to act at the worst moment: after the hash check, just before the rename.
_before_replace = None


def _checked_replace(path: Path, data: bytes, expected_hash: str, display: str) -> str:
    """Write `data` over a file that still holds the bytes the caller read, never losing another
    writer's bytes (the assistant writes memory files in place, without our lock).

    The old file stays open across the rename. Whatever lands in it after the hash check — an
    in-place rewrite or an append that raced the rename — is seen there afterwards: an append
    is carried over onto the new file; a rewrite is put back whole and LateWrite raised, so the
    caller reports a conflict instead of silently dropping it. A file replaced by rename in
    between (a different inode under the name) is a conflict, and nothing is written."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        if expected_hash != MISSING_HASH:
            raise ConflictError(display, expected_hash, MISSING_HASH) from None
        atomic_write_bytes(path, data)
        return content_hash(data)
    try:
        seen = _read_from(fd, 0)
        if content_hash(seen) != expected_hash:
            raise ConflictError(display, expected_hash, content_hash(seen))
        try:
            atomic_write_bytes(path, data, same_inode=os.fstat(fd).st_ino)
        except ConflictError:
            raise ConflictError(display, expected_hash, current_hash(path)) from None
        late = _settled_bytes(fd)
        if late == seen:
            return content_hash(data)
        if late.startswith(seen) and late.endswith(b"\n"):
            append_durably(path, late[len(seen):])          # their appended lines follow ours
            return current_hash(path)
        atomic_write_bytes(path, late)                       # theirs wins; ours is redone by the caller
        raise LateWrite(display, expected_hash, content_hash(late))
    finally:
        os.close(fd)


def _settled_bytes(fd: int) -> bytes:
    """The old file's bytes once no one has changed them for SETTLE_S (an in-place writer
    truncates first, then writes: the empty moment between is not its version). When no
    process holds the old file open for writing, what it holds now is final: no wait."""
    import time
    if not _open_for_writing(fd):
        return _read_from(fd, 0)
    now = _read_from(fd, 0)
    deadline = time.monotonic() + LATE_WAIT_S
    while True:
        time.sleep(SETTLE_S)
        again = _read_from(fd, 0)
        if again == now or time.monotonic() >= deadline:
            return again
        now = again


def _open_for_writing(fd: int) -> bool:
    """Whether any process may hold this (renamed-over, so nameless) file open for writing. Linux
    grants a read lease only when none does: taken and at once given back. Where a lease cannot be
    asked (another OS, a file system without leases, a file someone else owns), say it may."""
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except (ImportError, AttributeError, OSError):
        return True
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        pass
    return False


def remove(path: Path, missing_ok: bool = False) -> None:
    """Delete a file, noted in the job's change record like every write (the views read again)."""
    with own_writes.writing(path) as ours:
        try:
            os.unlink(path)
        except FileNotFoundError:
            if not missing_ok:
                raise
            return
        ours.left = own_writes.ABSENT
    changes.note(path)


def append_durably(path: Path, data: bytes) -> None:
    """Append with O_APPEND (other appenders' lines never interleave inside ours, nor does a rename
    of ours ever drop theirs) and fsync before returning; the whole of `data`, however many
    write calls it takes."""
    with own_writes.writing(path) as ours:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        changes.note(path)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            ours.left = own_writes.mark_of(os.fstat(fd))    # (no digest: only our bytes are known)
            os.fsync(fd)
        finally:
            os.close(fd)


def replace_keeping_appends(path: Path, old: bytes, new: bytes) -> bool:
    """Atomically replace a file that holds `old` with `new`, for files another program writes
    without our lock (history.jsonl, session files). False, writing nothing, when the file no
    longer holds `old`.

    The old inode stays open across the rename. A writer that opened it before the rename
    writes there: lines it appended are carried over to the new file; if it rewrote the file
    instead (nanobot saves a session whole), its version is put back and False is returned, so
    the caller treats it as the conflict it is."""
    import time
    fd_old = os.open(path, os.O_RDONLY)
    try:
        if os.fstat(fd_old).st_size != len(old) or read_bytes(path) != old:
            return False
        atomic_write_bytes(path, new)
        late = _read_from(fd_old, len(old))
        deadline = time.monotonic() + 1.0
        while late and not late.endswith(b"\n") and time.monotonic() < deadline:
            time.sleep(0.02)                      # a line being written right now: let it finish
            late = _read_from(fd_old, len(old))
        if _read_at(fd_old, 0, len(old)) != old:
            # rewritten in place, not appended to: the other writer's file wins
            atomic_write_bytes(path, _read_from(fd_old, 0))
            return False
        if late:
            append_durably(path, late)
        return True
    finally:
        os.close(fd_old)


def _read_at(fd: int, offset: int, size: int) -> bytes:
    chunks = []
    while size > 0 and (chunk := os.pread(fd, min(size, 1 << 20), offset)):
        chunks.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_from(fd: int, offset: int) -> bytes:
    chunks = []
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def checked_write(path: Path, text: str, expected_hash: str, display: str | None = None) -> str:
    """Write `text` only if the file still has the bytes the caller last saw.

    `expected_hash` is FileState.hash from the caller's read (MISSING_HASH for a file that did
    not exist). Raises ConflictError and writes nothing otherwise. Returns the new hash.
    """
    return _checked_replace(Path(path), text.encode("utf-8"), expected_hash, display or str(path))


def resolve_inside(root: Path, rel: str | os.PathLike) -> Path:
    """The absolute path of `rel` under `root`, refusing anything that leads outside.

    Refuses absolute paths, `..` components and symlinks (of the file or of any folder on the
    way) whose target lies outside `root`. The file itself need not exist.
    """
    rel_str = os.fspath(rel)
    if not rel_str or "\x00" in rel_str:
        raise UnsafePathError(f"invalid path {rel_str!r}")
    p = Path(rel_str)
    if p.is_absolute() or rel_str.startswith(("/", "\\")) or (len(rel_str) > 1 and rel_str[1] == ":"):
        raise UnsafePathError(f"{rel_str}: absolute paths are not allowed")
    if any(part == ".." for part in p.parts) or "\\" in rel_str:
        raise UnsafePathError(f"{rel_str}: path leaves the workspace")
    target = root / p
    if _no_symlink_below(root, p.parts):
        return target        # no "..", no link on the way: inside by construction
    root_real = Path(os.path.realpath(root))
    real = Path(os.path.realpath(target))
    if real != root_real and root_real not in real.parents:
        raise UnsafePathError(f"{rel_str}: is a symlink leading outside the workspace ({real})")
    return target


def _no_symlink_below(root: Path, parts: tuple[str, ...]) -> bool:
    """True when no component of root/parts is a symlink (one lstat per component, where a full
    realpath also walks every folder above the workspace); a missing one ends the walk (nothing
    below it exists). False, for the full check, on a link or anything odd."""
    import stat
    cur = os.fspath(root)
    for part in parts:
        cur = os.path.join(cur, part)
        try:
            mode = os.lstat(cur).st_mode
        except FileNotFoundError:
            return True
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return False
    return True


def symlink_outside(root: Path, rel: str) -> str | None:
    """If `rel` is (or passes through) a symlink leading outside `root`, say where it leads."""
    try:
        resolve_inside(root, rel)
    except UnsafePathError:
        return os.path.realpath(Path(root) / rel)
    return None


class LockHeld(WorkspaceError):
    pass


class FileLock:
    """An advisory exclusive lock on a lock file (fcntl/msvcrt); released on close or exit.

    With timeout None or 0 it raises LockHeld at once when another process holds it; with a
    timeout it retries until then and raises LockHeld.
    """

    def __init__(self, path: Path, timeout: float | None = None, what: str = "lock"):
        self.path = Path(path)
        self.timeout = timeout
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> "FileLock":
        import time

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            try:
                _lock_fd(fd)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    os.close(fd)
                    raise
                if deadline is None or time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockHeld(f"{self.what} is held by another process ({self.path})") from None
                time.sleep(0.005)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            try:
                _unlock_fd(self._fd)
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> "FileLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock_fd(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock_fd(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def lock_is_held(path: Path) -> bool:
    """Does another holder have this FileLock right now? Reads only: a missing lock file is not
    created (False), and the probe lock on a read-only descriptor is released at once."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            _lock_fd(fd)
        except OSError as exc:
            return exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)
        _unlock_fd(fd)
        return False
    finally:
        os.close(fd)


__all__ = [
    "FileState", "FileLock", "LockHeld", "MISSING_HASH", "WorkspaceError", "atomic_write_bytes",
    "atomic_write_text", "checked_write", "content_hash", "current_hash", "read_state",
    "resolve_inside", "symlink_outside",
]

