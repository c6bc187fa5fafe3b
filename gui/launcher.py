"""The `dreamdesk` console script: no arguments or `open PATH` start the desktop app; every
other command is the engine's CLI (which never imports Qt)."""

from __future__ import annotations

import sys


OPEN_USAGE = "usage: dreamdesk open PATH"
OPEN_HELP = (f"{OPEN_USAGE}\n\nStart the desktop app on PATH: an assistant's home folder or its workspace "
             "folder.\nWithout arguments, `dreamdesk` reopens the last workspace (the demo on first start).")


def _not_a_workspace(path: str) -> str | None:
    """Why `path` cannot be opened, in words (None: it can). The engine check, without Qt."""
    from dreamdesk.engine.problems import WorkspaceError
    from dreamdesk.engine.workspace import Workspace
    try:
        Workspace.open(path)
    except WorkspaceError as exc:
        return str(exc)
    except OSError as exc:   # e.g. a folder we may not look into
        return f"{path}: {exc.strerror or exc}"
    return None


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "open":
        if args[1:] in (["-h"], ["--help"]):
            print(OPEN_HELP)
            return 0
        if args and args[0] == "open" and len(args) != 2:
            print(f"dreamdesk open: {OPEN_USAGE}", file=sys.stderr)
            return 2
        if args:
            problem = _not_a_workspace(args[1])
            if problem:   # before any window: a typo must not open (and remember) something else
                print(f"dreamdesk open: {problem}", file=sys.stderr)
                return 2
        import os
        if sys.platform.startswith("linux") and not any(
                os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
            # Qt would abort with a multi-line plugin error; say it in one line instead
            print("dreamdesk: no display (DISPLAY and WAYLAND_DISPLAY are unset); start it in a desktop session, "
                  "or use the command line: dreamdesk --help", file=sys.stderr)
            return 1
        try:
            from dreamdesk.gui.app import run   # absolute: PyInstaller runs this file as __main__
        except ImportError as exc:   # no or broken Qt: say so; the CLI still works without it
            print(f"dreamdesk: cannot start the desktop app: {exc}", file=sys.stderr)
            return 1
        return run(args[1] if args else None)
    from dreamdesk.engine.cli import main as cli_main
    return cli_main(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
