"""A first start of an installed Dreamdesk, checked from outside: the bundle's and the wheel's CI
steps (packaging/build_bundle.sh, packaging/ci_install_checks.sh) run it.

    python3 packaging/smoke_start.py [--resources-under DIR] [--png FILE] -- COMMAND...

COMMAND is how that Dreamdesk is started (dist/dreamdesk/dreamdesk, or a venv's bin/dreamdesk).
In a new, empty user folder it starts the app offscreen with DREAMDESK_SMOKE (gui/app/smoke.py): the
demo is copied, the window reads it and draws its charts, and the app quits with 0. Then
`COMMAND status <the demo copy> --json` must list the memory files. --resources-under: the app
must have read its resources from inside DIR (the bundle's own copy, not a checkout's).
Exit 0 and one line saying what was seen; else exit 1 and what went wrong."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TIMEOUT_S = 180        # the app gives up by itself after 90 s (gui/app/smoke.py); this is for a hang


class SmokeFailed(Exception):
    pass


def fresh_env(home: Path) -> dict[str, str]:
    """Offscreen, and every folder Dreamdesk writes to inside `home` (a first start, touching
    nothing of this machine's user: no settings, no keyring)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home),
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"),
                     ("XDG_CACHE_HOME", "cache"), ("DREAMDESK_STATE_DIR", "state/dreamdesk"),
                     ("DREAMDESK_LOG_DIR", "state/dreamdesk/log"), ("DREAMDESK_CACHE_DIR", "cache/dreamdesk")):
        env[var] = str(home / sub)
    return env


def run(command: list[str], env: dict[str, str], cwd: Path, what: str) -> str:
    try:
        proc = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SmokeFailed(f"{what} did not finish within {TIMEOUT_S} s") from None
    except OSError as exc:
        raise SmokeFailed(f"{what}: cannot run {command[0]}: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        raise SmokeFailed(f"{what} exited with {proc.returncode}:\n{proc.stderr.strip()}")
    return proc.stdout


def first_start(command: list[str], home: Path, png: str | None) -> dict:
    env = fresh_env(home)
    env["DREAMDESK_SMOKE"] = png or "1"
    out = run(command, env, home, "the first start")
    try:
        seen = json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise SmokeFailed(f"the first start printed no report:\n{out}") from None
    demo = home / "data" / "dreamdesk" / "demo"
    if seen["workspace"] != str(demo / "workspace"):
        raise SmokeFailed(f"the first start opened {seen['workspace']}, not the demo copy {demo}")
    if not (seen["shown"] and seen["gauges"] >= 3 and seen["charts"] >= 1 and seen["icon"]):
        raise SmokeFailed(f"the window is not all there: {seen}")
    return seen


def check_status(command: list[str], home: Path) -> list[str]:
    demo = home / "data" / "dreamdesk" / "demo"
    out = run(command + ["status", str(demo), "--json"], fresh_env(home), home, "dreamdesk status")
    files = [f["path"] for f in json.loads(out)["files"]]
    if not {"USER.md", "memory/MEMORY.md"} <= set(files):
        raise SmokeFailed(f"dreamdesk status on the demo copy lists {files}")
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resources-under", type=Path)
    parser.add_argument("--png", help="save the window to this PNG")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    if "/" in args.command[0]:          # a path: it runs from the new user folder
        args.command[0] = os.path.abspath(args.command[0])      # (not resolved: a venv python is a symlink)
    with tempfile.TemporaryDirectory(prefix="dreamdesk-smoke-") as tmp:
        home = Path(tmp)
        try:
            seen = first_start(args.command, home, args.png and str(Path(args.png).resolve()))
            if args.resources_under and not Path(seen["resources"]).is_relative_to(args.resources_under.resolve()):
                raise SmokeFailed(f"resources read from {seen['resources']}, not from {args.resources_under}")
            files = check_status(args.command, home)
        except SmokeFailed as exc:
            print(f"smoke start of {' '.join(args.command)}: FAILED: {exc}", file=sys.stderr)
            return 1
    print(f"smoke start of {' '.join(args.command)}: ok (demo copied and shown, {seen['charts']} chart series, "
          f"resources from {seen['resources']}{', frozen' if seen['frozen'] else ''}; status lists {len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
