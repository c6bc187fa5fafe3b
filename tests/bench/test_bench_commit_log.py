"""Benchmark (issue 13 §2): the commit log of a 5,000-commit nanobot history, first open (nothing
cached) and later opens (cache hit), against `git log` on the same repository, interleaved A,B,A,B.
Run with `python -m pytest -m bench tests/bench/test_bench_commit_log.py` (the table prints
without -s, with the machine and its load). Bounds: first open ≤ 2 s, a later open ≤ 200 ms, for
the commit log alone and for every prune (prunes.all_prunes: the log, its removals as archive
rows, folded with the archive)."""

import os
import platform
import random
import shutil
import statistics
import subprocess
import time

import pytest

from dreamdesk.engine.versions.commit_cache import cache_file
from dreamdesk.engine.versions.commit_log import CACHE_NAME, load_history
from dreamdesk.engine.recovery.prunes import all_prunes
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.disk.stat_memo import forget_all
from dreamdesk.engine.home.workspace import Workspace

pytestmark = pytest.mark.bench
COMMITS = 5000
ROUNDS = 5


def _files(rng: random.Random, n: int, what: str) -> list[str]:
    return [f"- {what} fact {i}: " + " ".join(rng.choice(["tea", "rain", "NAS", "Ghent", "runs", "cats", "code"])
                                             for _ in range(6)) for i in range(n)]


def build_history(ws, n: int = COMMITS, seed: int = 13) -> None:
    """nanobot-style commits through git fast-import: each edits USER.md or MEMORY.md (~3 KB:
    adds, removes or rewrites a line, under one of a few headings) and moves .dream_cursor."""
    rng = random.Random(seed)
    (ws / "memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    docs = {"USER.md": ["# User", "## Identity", "## Habits"], "memory/MEMORY.md": ["# Memory", "## Homelab", "## Work"]}
    items = {p: {h: _files(rng, 20, h) for h in heads[1:]} for p, heads in docs.items()}
    out, cursor, t = [], 0, 1_700_000_000

    def render(path: str) -> bytes:
        heads = docs[path]
        body = [heads[0], ""]
        for h in heads[1:]:
            body += [h] + items[path][h] + [""]
        return "\n".join(body).encode()

    for i in range(n):
        path = rng.choice(list(docs))
        h = rng.choice(docs[path][1:])
        lst = items[path][h]
        op = rng.random()
        if op < 0.4 or len(lst) < 10:
            lst.insert(rng.randrange(len(lst) + 1), _files(rng, 1, f"new {i}")[0])
        elif op < 0.75:
            lst.pop(rng.randrange(len(lst)))
        else:
            lst[rng.randrange(len(lst))] += " (updated)"
        while len("\n".join(lst)) > 1500:
            lst.pop(0)
        cursor += rng.randint(0, 3)
        who = "Dreamdesk <dreamdesk@localhost>" if i % 10 == 9 else "nanobot <nanobot@dream>"
        msg = b"dream: periodic memory consolidation\n"
        out.append(b"commit refs/heads/master\n")
        out.append(f"author {who} {t + i * 60} +0000\ncommitter {who} {t + i * 60} +0000\n".encode())
        out.append(b"data %d\n%s" % (len(msg), msg))
        for p, data in ((path, render(path)), ("memory/.dream_cursor", str(cursor).encode())):
            out.append(f"M 100644 inline {p}\ndata {len(data)}\n".encode() + data + b"\n")
        if i == 0:
            other = next(p for p in docs if p != path)
            data = render(other)
            out.append(f"M 100644 inline {other}\ndata {len(data)}\n".encode() + data + b"\n")
    subprocess.run(["git", "-C", str(ws), "fast-import", "--quiet"], input=b"".join(out), check=True)
    subprocess.run(["git", "-C", str(ws), "symbolic-ref", "HEAD", "refs/heads/master"], check=True)


def machine() -> str:
    """The machine and its load, said with the numbers (other work on the cores slows every row)."""
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.split()[-1]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load {load}, Python {platform.python_version()}, git {git}"


def test_commit_log_at_5000_commits_vs_git_log(tmp_path, capsys):
    ws_path = tmp_path / "ws"
    build_history(ws_path)
    ws = Workspace.open(ws_path)
    git_dir = SnapshotStore(ws).git_dir

    def git_log():
        subprocess.run(["git", f"--git-dir={git_dir}", "log", "--first-parent", "--raw", "--no-abbrev"],
                       capture_output=True, check=True)

    def first_open():
        forget()
        return load_history(ws)

    def forget():
        shutil.rmtree(cache_file(git_dir, CACHE_NAME).parent, ignore_errors=True)
        forget_all()                        # and every prune, kept in this process by HEAD (prunes.all_prunes)

    def timed(fn):
        t0 = time.perf_counter()
        result = fn()
        return time.perf_counter() - t0, result

    names = ("git log --first-parent --raw", "first open (no cache)", "later open (cache hit)",
             "every prune, first open", "every prune, later open")
    targets = {names[1]: 2.0, names[2]: 0.2, names[3]: 2.0, names[4]: 0.2}
    rounds: dict[str, list[float]] = {n: [] for n in names}
    load_before = machine()
    for _ in range(ROUNDS):                     # interleaved: A, B, C, D, E, A, B, C, D, E, ...
        rounds[names[0]].append(timed(git_log)[0])
        t, cold = timed(first_open)
        rounds[names[1]].append(t)
        assert cold.analysed == len(cold.records) > COMMITS * 0.99    # a few commits changed nothing
        t, warm = timed(lambda: load_history(ws))
        rounds[names[2]].append(t)
        assert warm.analysed == 0 and warm.git_calls == ["rev-parse"]
        forget()
        rounds[names[3]].append(timed(lambda: all_prunes(ws))[0])
        t, (_, prunes, _) = timed(lambda: all_prunes(ws))
        rounds[names[4]].append(t)
    base = statistics.median(rounds[names[0]])
    rows = [f"{'':<30} {'median':>9} {'min-max':>13} {'vs git log':>11} {'target':>9}"]
    for name, times in rounds.items():
        m = statistics.median(times)
        target = f"≤ {targets[name] * 1000:.0f} ms" if name in targets else ""
        rows.append(f"{name:<30} {m * 1000:>6.0f} ms {min(times) * 1000:>6.0f}-{max(times) * 1000:<4.0f}ms"
                    f" {m / base:>10.2f}x {target:>9}")
    removed = sum(len(r.removed()) for r in warm.records)
    with capsys.disabled():
        print(f"\ncommit log, {COMMITS:,} commits ({removed:,} entries removed in all, {len(prunes):,} prunes), "
              f"medians of {ROUNDS} interleaved rounds\nbefore: {load_before}\nafter:  {machine()}\n" + "\n".join(rows))
    for name, limit in targets.items():
        assert statistics.median(rounds[name]) <= limit, name
