"""The files a freedesktop desktop (GNOME, KDE, …) reads from the user's data folder to list
Dreamdesk in its menus and software centre: the desktop entry, the AppStream metainfo, and the
icon the entry names (Icon=dreamdesk) in the hicolor theme. `dreamdesk install-desktop` puts
them there; `--uninstall` takes exactly those away again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..disk.files import atomic_write_bytes
from ..core.problems import WorkspaceError
from ..core.resources import resource

APP_ID = "io.github.dreamdesk.Dreamdesk"
DESKTOP_ID = "dreamdesk.desktop"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)
# Marks the desktop entries install-desktop wrote: one without it is somebody's own (a copy
# edited by hand), which install leaves alone and uninstall never removes.
MARK = "X-Dreamdesk-Installed-By=dreamdesk install-desktop"


@dataclass(frozen=True)
class DesktopFile:
    target: str        # where it goes, relative to the data folder
    source: Path       # the file Dreamdesk ships


@dataclass
class Outcome:
    action: str                                          # "installed" or "removed"
    data_home: Path
    done: list[Path] = field(default_factory=list)       # installed, or removed
    absent: list[Path] = field(default_factory=list)     # uninstall: was not there
    foreign: list[Path] = field(default_factory=list)    # a desktop entry install-desktop did not write
    refreshed: list[str] = field(default_factory=list)   # the cache tools that ran
    command: list[str] | None = None                     # install: what the menu entry runs

    def to_json(self) -> dict:
        return {"data_home": str(self.data_home), self.action: [str(p) for p in self.done],
                "absent": [str(p) for p in self.absent], "foreign": [str(p) for p in self.foreign],
                "refreshed": self.refreshed,
                "exec": None if self.command is None else exec_value(self.command)}


def data_home() -> Path:
    """$XDG_DATA_HOME, else ~/.local/share (the spec says a relative $XDG_DATA_HOME is ignored)."""
    env = os.environ.get("XDG_DATA_HOME", "")
    return Path(env) if os.path.isabs(env) else Path.home() / ".local" / "share"


def desktop_files() -> list[DesktopFile]:
    shipped = [DesktopFile(f"applications/{DESKTOP_ID}", resource("desktop", DESKTOP_ID)),
               DesktopFile(f"metainfo/{APP_ID}.metainfo.xml", resource("desktop", f"{APP_ID}.metainfo.xml")),
               DesktopFile("icons/hicolor/scalable/apps/dreamdesk.svg", resource("icons", "dreamdesk.svg"))]
    return shipped + [DesktopFile(f"icons/hicolor/{n}x{n}/apps/dreamdesk.png",
                                  resource("icons", f"{n}x{n}", "dreamdesk.png")) for n in ICON_SIZES]


# -- what the menu entry runs ---------------------------------------------------------------
def launch_command() -> list[str]:
    """This Dreamdesk, started the way a desktop session can: by its interpreter's absolute path
    (a virtual environment's bin/ is rarely on the session's PATH), -P so that the folder the
    session starts in cannot shadow the package, and the folder holding the package on
    PYTHONPATH when the interpreter would not find this copy by itself (a checkout, a --target
    install). The bundle is its own program."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    command = [sys.executable, "-P", "-m", "dreamdesk"]
    import dreamdesk
    root = str(Path(dreamdesk.__file__).resolve().parent.parent)
    if _package_root_found_by(sys.executable) == root:
        return command
    return ["env", f"PYTHONPATH={root}", *command]


def _package_root_found_by(python: str) -> str | None:
    """Where `python` finds dreamdesk in a session's environment (no PYTHONPATH, the home folder)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import dreamdesk, pathlib; print(pathlib.Path(dreamdesk.__file__).resolve().parent.parent)"
    try:
        proc = subprocess.run([python, "-P", "-c", probe], capture_output=True, text=True, env=env,
                              cwd=Path.home() if Path.home().is_dir() else "/", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


_RESERVED = set(' \t\n"\'\\><~|&;$*?#()`')


def exec_value(command: list[str]) -> str:
    """The Exec value for `command`, quoted as the Desktop Entry spec asks: an argument with a
    reserved character in double quotes (", `, $ and \\ escaped in them), % doubled, and then
    every backslash escaped once more, as in any string value."""
    def quote(arg: str) -> str:
        if not _RESERVED.intersection(arg):
            return arg
        return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'
    return _escaped(" ".join(quote(a).replace("%", "%%") for a in command))


def entry_text(template: str, command: list[str]) -> str:
    """The shipped entry with its Exec line naming `command`, TryExec naming the program (menus
    hide the entry once it is gone) and the mark that says install-desktop wrote it."""
    lines = template.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Exec="))
    program = next((a for a in command if os.path.isabs(a)), None)    # past `env VAR=…`
    lines[at:at + 1] = [f"Exec={exec_value(command)}"] + ([f"TryExec={_escaped(program)}"] if program else []) + [MARK]
    return "\n".join(lines) + "\n"


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\")


# -- install and uninstall ------------------------------------------------------------------
def _ours(path: Path) -> bool:
    """Whether an existing desktop entry may be replaced or removed: install-desktop wrote it."""
    try:
        return MARK in path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False


def install(home: Path | None = None, command: list[str] | None = None) -> Outcome:
    home = _checked(home or data_home())
    out = Outcome("installed", home, command=command or launch_command())
    for f in desktop_files():
        path = out.data_home / f.target
        data = f.source.read_bytes()
        if f.target.endswith(".desktop"):
            if path.exists() and not _ours(path):
                out.foreign.append(path)
                continue
            data = entry_text(data.decode("utf-8"), out.command).encode("utf-8")
        atomic_write_bytes(path, data)
        out.done.append(path)
    out.refreshed = refresh_caches(out.data_home)
    return out


def uninstall(home: Path | None = None) -> Outcome:
    out = Outcome("removed", _checked(home or data_home()))
    for f in desktop_files():
        path = out.data_home / f.target
        if not path.is_file():
            out.absent.append(path)
            continue
        if f.target.endswith(".desktop") and not _ours(path):
            out.foreign.append(path)
            continue
        path.unlink()
        out.done.append(path)
        _remove_empty_folders(path.parent, out.data_home)
    out.refreshed = refresh_caches(out.data_home)
    return out


def _remove_empty_folders(folder: Path, home: Path) -> None:
    """The folders install made for its files (hicolor/16x16/apps, …), once nothing is left in them."""
    while folder != home and home in folder.parents:
        try:
            folder.rmdir()
        except OSError:      # not empty (somebody else's files): it stays, and so do its parents
            return
        folder = folder.parent


# The caches these tools keep are rebuilt only where they already exist: a desktop reads the
# folders without them, and one made here would be left behind by uninstall.
CACHE_TOOLS = (("update-desktop-database", "applications", "mimeinfo.cache", ["-q"]),
               ("gtk-update-icon-cache", "icons/hicolor", "icon-theme.cache", ["-q", "-t", "-f"]))


def refresh_caches(home: Path) -> list[str]:
    ran = []
    for tool, folder, cache, flags in CACHE_TOOLS:
        exe = shutil.which(tool)
        if exe and (home / folder / cache).is_file():
            try:
                subprocess.run([exe, *flags, str(home / folder)], capture_output=True, timeout=120)
            except (OSError, subprocess.TimeoutExpired):
                continue     # a stale cache: the desktop finds the files at its next rebuild
            ran.append(tool)
    return ran


def _checked(home: Path) -> Path:
    """A system whose desktop reads no freedesktop files, or a data folder that is a file, is said in words."""
    if sys.platform in ("win32", "darwin"):
        raise WorkspaceError("install-desktop is for Linux and BSD desktops (freedesktop menus); on this "
                             "system start Dreamdesk with the dreamdesk command")
    if home.exists() and not home.is_dir():
        raise WorkspaceError(f"{home} is not a folder: set XDG_DATA_HOME to a folder (or unset it)")
    return home
