"""Mutation testing of the engine's rules with mutmut: the one command (README, "Mutation testing").

    python tests/mutation/run_mutmut.py [--tree DIR] [--max-children N] [--module engine/recovery/pins.py ...]

mutmut names a mutant after its file's path and switches it on by its module's name, so a file's
path must be its module's: engine/recovery/pins.py is imported as dreamdesk.engine.recovery.pins (pyproject's
package-dir), which mutmut cannot follow. This lays out a tree as the package is installed
(dreamdesk/engine, dreamdesk/gui, dreamdesk/resources, beside tests/, resources/ and
pyproject.toml, whose [tool.mutmut] says what is mutated and which tests run), runs `mutmut run`
there on the mutants of the rules' functions (RULES), and prints each module's score and its
surviving mutants (`mutmut show NAME` in the tree shows one). Nothing is written in the
repository; the tree is made anew each time.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAYOUT = {"dreamdesk/__init__.py": "dreamdesk/__init__.py", "dreamdesk/__main__.py": "dreamdesk/__main__.py",
          "dreamdesk/engine": "engine", "dreamdesk/gui": "gui", "dreamdesk/resources": "resources",
          "resources": "resources", "tests": "tests", "pyproject.toml": "pyproject.toml"}
# The rules issue 26 names, by module: their functions' mutants are run ("*": every function;
# "Class.method" for a method). Functions that only format or list are left out.
RULES = {
    "engine/recovery/pins.py": ["is_present", "pin_states", "pin_alerts", "pinned_texts"],
    "engine/dream/tools.py": ["Sandbox._unpinned", "Sandbox._commit"],        # the sandbox's guard
    "engine/dream/write_scope.py": ["*"],
    "engine/dream/run.py": ["run_pass"],                                      # the token ceiling
    "engine/home/token_ceiling.py": ["*"],
    "engine/versions/commit_log.py": ["watched", "_load", "_cached", "_Walk.extends", "_Walk.run", "_Walk.records",
                             "_Walk._analyse", "_Walk._file", "_blob", "_text", "_cursor", "assistant_runs",
                             "CommitRecord.removed", "CommitRecord.added", "CommitRecord.changed_memory"],
    "engine/disk/files.py": ["_checked_replace", "_settled_bytes", "_open_for_writing"],   # the late-write check
    "engine/recovery/restore.py": ["_entry_to_undo", "plan_undo", "undo_restore", "_write_back"],
    "engine/disk/git_repair.py": ["*"],
    "engine/disk/processes.py": ["*"],
}
CAUGHT = ("killed", "timeout", "segfault")      # the tests did not pass with the mutant in
SEP = "\u01c1"                  # mutmut's separator in a method's name: x\u01c1Class\u01c1method
_RESULT = re.compile(r"^\s*(\S+?)__mutmut_\d+: (.+)$")


def mutant_patterns(modules: list[str] | None = None) -> list[str]:
    """RULES (of `modules` only, when named) as mutmut's names for their mutants (fnmatch
    patterns `mutmut run` takes)."""
    out = []
    for path, functions in RULES.items():
        if modules and path not in modules:
            continue
        module = "dreamdesk." + path.removesuffix(".py").replace("/", ".")
        for f in functions:
            cls, _, name = f.rpartition(".")
            out.append(f"{module}.*" if f == "*" else
                       f"{module}.x{SEP}{cls}{SEP}{name}__mutmut_*" if cls else f"{module}.x_{name}__mutmut_*")
    return out


def build_tree(tree: Path) -> None:
    shutil.rmtree(tree, ignore_errors=True)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for dest, src in LAYOUT.items():
        source, target = REPO / src, tree / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=junk)
        else:
            shutil.copy2(source, target)


def module_of(function_key: str) -> str:
    """dreamdesk.engine.recovery.pins.x_is_present -> engine/recovery/pins.py (a method's key reads .x<SEP>Class...)."""
    module = re.split(rf"\.x(?:_|{SEP})", function_key, maxsplit=1)[0]
    return module.removeprefix("dreamdesk.").replace(".", "/") + ".py"


def scores(tree: Path, mutmut: str, patterns: list[str]) -> tuple[dict[str, Counter], dict[str, list[str]]]:
    out = subprocess.run([mutmut, "results", "--all", "true"], cwd=tree, capture_output=True, text=True,
                         check=True).stdout
    counts: dict[str, Counter] = defaultdict(Counter)
    survivors: dict[str, list[str]] = defaultdict(list)
    for line in out.splitlines():
        m = _RESULT.match(line)
        if m:
            name, status = line.strip().rsplit(": ", 1)
            if not any(fnmatch.fnmatchcase(name, p) for p in patterns):
                continue
            counts[module_of(m.group(1))][status] += 1
            if status not in CAUGHT:
                survivors[module_of(m.group(1))].append(f"{name} ({status})")
    return counts, survivors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=Path(tempfile.gettempdir()) / "dreamdesk-mutmut")
    ap.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--module", action="append", choices=sorted(RULES), help="only this module's rules (repeatable)")
    args = ap.parse_args(argv)
    mutmut = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or shutil.which("mutmut")
    if mutmut is None:
        print("mutmut is not installed here: pip install mutmut", file=sys.stderr)
        return 2
    build_tree(args.tree)
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen"}
    patterns = mutant_patterns(args.module)
    with open(args.tree / "mutmut-run.log", "wb") as log:
        run = subprocess.run([mutmut, "run", "--max-children", str(args.max_children), *patterns],
                             cwd=args.tree, env=env, stdout=log, stderr=subprocess.STDOUT)
    if run.returncode:
        print(f"mutmut run failed ({run.returncode}); see {args.tree / 'mutmut-run.log'}", file=sys.stderr)
        return run.returncode
    counts, survivors = scores(args.tree, mutmut, patterns)
    print(f"{'module':32} caught/total  (a test failed, timed out or crashed)")
    for module in sorted(counts):
        c = counts[module]
        total, caught = sum(c.values()), sum(n for status, n in c.items() if status in CAUGHT)
        print(f"{module:32} {caught:4}/{total:<4}  {100 * caught / total:5.1f} %   ({c['survived']} survived)")
    for module in sorted(survivors):
        print(f"\n{module}: not caught")
        print("\n".join("  " + s for s in survivors[module]))
    print(f"\n(see one: cd {args.tree} && mutmut show NAME)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
