"""Build the Hermes fixture homes with Hermes's own code and store them, with the oracles Hermes
gave, in tests/fixtures/hermes/<name>/ (see the README there).

    DREAMDESK_HERMES_PYTHON=/path/to/hermes/venv/bin/python python tests/interop/hermes/build_fixtures.py [NAME ...]

Also used by the interop tests, which build the homes again and compare."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from interop.hermes.hermes import ENV_VAR, Hermes  # noqa: E402
from interop.hermes.homes import RECIPES, BuiltHome  # noqa: E402
from interop.hermes.oracles import FIXTURES, files_of, with_home_placeholder  # noqa: E402
from interop.openclaw.build_fixtures import dump  # noqa: E402  (the same JSON and text files)


def store(built: BuiltHome, dest: Path, hermes: Hermes, steps: list) -> dict:
    """One built home and its oracles in dest (replaced whole): home/ (every file Hermes left;
    git keeps no empty folder, so manifest.json lists them), oracle/, manifest.json."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(built.home, dest / "home", symlinks=True)
    for name, value in built.oracles.items():
        value = with_home_placeholder(value, built.home)
        dump(dest / "oracle" / (f"{name}.txt" if isinstance(value, str) else f"{name}.json"), value)
    files, empty = files_of(dest / "home")
    dump(dest / "oracle" / "files.json", files)
    manifest = {"name": built.name, "hermes-agent": hermes.version, "built_on": built.today,
                "original_home": str(built.home), "empty_folders": empty, "hand_edits": built.hand_edits,
                "steps": [{"op": s.op, "seconds": round(s.seconds, 2)} for s in steps]}
    dump(dest / "manifest.json", with_home_placeholder(manifest, built.home) | {"original_home": str(built.home)})
    return manifest


def build(hermes: Hermes, name: str, work: Path, out: Path) -> dict:
    first = len(hermes.steps)
    built = RECIPES[name](hermes, work / name)
    return store(built, out / name, hermes, hermes.steps[first:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[*RECIPES, []], default=[], metavar="NAME",
                        help=f"of {', '.join(RECIPES)} (default: all)")
    parser.add_argument("--out", type=Path, default=FIXTURES)
    args = parser.parse_args(argv)
    names = args.names or list(RECIPES)
    python = os.environ.get(ENV_VAR)
    if not python:
        print(f"set {ENV_VAR} to the Python of a venv with hermes-agent installed (.ci/run makes one)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hermes-fixtures-") as tmp, Hermes(python, Path(tmp) / "user") as hermes:
        for name in names:
            seconds = sum(s["seconds"] for s in build(hermes, name, Path(tmp), args.out)["steps"])
            print(f"{name}: {seconds:.1f} s of Hermes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
