"""The `dreamdesk` console script: no arguments or `open PATH` start the desktop app; every
other command is the engine's CLI (which never imports Qt)."""

from __future__ import annotations

import sys


OPEN_USAGE = "usage: dreamdesk open PATH [--new-window]"
OPEN_HELP = (f"{OPEN_USAGE}\n\nStart the desktop app on PATH: an assistant's home folder or its workspace "
             "folder.\nWithout arguments, `dreamdesk` reopens the last workspace (the demo on first start).\n"
             "While Dreamdesk runs, its window opens PATH instead and comes to the front (this command then "
             "ends);\n--new-window opens PATH in a new window of it.")
NEW_WINDOW = "--new-window"


def _not_a_workspace(path: str) -> str | None:
    """Why `path` cannot be opened, in words (None: it can). The engine check, without Qt."""
    from dreamdesk.engine.assistants import open_home
    from dreamdesk.engine.core.problems import WorkspaceError
    try:
        open_home(path)                  # as the window opens it (an OpenClaw home: its openclaw.json too)
    except WorkspaceError as exc:
        return str(exc)
    except OSError as exc:   # e.g. a folder we may not look into
        return f"{path}: {exc.strerror or exc}"
    return None


def _app_start(args: list[str]) -> bool:
    """The desktop app (not the CLI): no arguments, `open …`, or `--new-window` alone."""
    return not args or args[0] == "open" or args == [NEW_WINDOW]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not _app_start(args):
        from dreamdesk.engine.cli import main as cli_main
        return cli_main(args)
    if args[1:] in (["-h"], ["--help"]):
        print(OPEN_HELP)
        return 0
    new_window = NEW_WINDOW in args
    opening = bool(args) and args[0] == "open"
    rest = [a for a in args[1:] if a != NEW_WINDOW] if opening else []
    if opening and len(rest) != 1:
        print(f"dreamdesk open: {OPEN_USAGE}", file=sys.stderr)
        return 2
    path = rest[0] if rest else None
    if path is not None:
        problem = _not_a_workspace(path)
        if problem:   # before any window: a typo must not open (and remember) something else
            print(f"dreamdesk open: {problem}", file=sys.stderr)
            return 2
    if _handed_over(path, new_window):
        return 0
    import os
    if sys.platform.startswith("linux") and not any(
            os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
        # Qt would abort with a multi-line plugin error; say it in one line instead
        print("dreamdesk: no display (DISPLAY and WAYLAND_DISPLAY are unset); start it in a desktop session, "
              "or use the command line: dreamdesk --help", file=sys.stderr)
        return 1
    try:
        from dreamdesk.gui.app.app import run   # absolute: PyInstaller runs this file as __main__
    except ImportError as exc:   # no or broken Qt: say so; the CLI still works without it
        print(f"dreamdesk: cannot start the desktop app: {exc}", file=sys.stderr)
        return 1
    return run(path)


def _handed_over(path: str | None, new_window: bool) -> bool:
    """A Dreamdesk already running took the request (gui/app/single_instance.py): say what it does."""
    import os
    if os.environ.get("DREAMDESK_SMOKE"):      # a smoke start (gui/app/smoke.py) checks a start of its own
        return False
    from dreamdesk.gui.app.single_instance import hand_over
    if not hand_over(path, new_window):
        return False
    where = "a new window of" if new_window else "the window of"
    print(f"Opened {path} in {where} the Dreamdesk already running." if path else
          f"Dreamdesk is already running: {'opened a new window' if new_window else 'brought its window to the front'}.")
    return True


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
