"""The `dreamdesk` console script: no arguments or `open PATH` start the desktop app; every
other command is the engine's CLI (which never imports Qt)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "open":
        if args and args[0] == "open" and len(args) != 2:
            print("dreamdesk open: usage: dreamdesk open PATH", file=sys.stderr)
            return 2
        import os
        if sys.platform.startswith("linux") and not any(
                os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
            # Qt would abort with a multi-line plugin error; say it in one line instead
            print("dreamdesk: no display (DISPLAY and WAYLAND_DISPLAY are unset); start it in a desktop session, "
                  "or use the command line: dreamdesk --help", file=sys.stderr)
            return 1
        try:
            from gui.app import run   # absolute: PyInstaller runs this file as __main__
        except ImportError as exc:   # no or broken Qt: say so; the CLI still works without it
            print(f"dreamdesk: cannot start the desktop app: {exc}", file=sys.stderr)
            return 1
        return run(args[1] if args else None)
    from engine.cli import main as cli_main
    return cli_main(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
