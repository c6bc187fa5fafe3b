"""Issue 13's proof on homes nanobot-ai 0.3.5's own Dream wrote (LF, and USER.md with CRLF and
a BOM): `dreamdesk runs` lists exactly the assistant's commits with the entries each added and
removed and its .dream_cursor move, `dreamdesk archive` lists every entry a commit removed
from USER.md / MEMORY.md once, restoring each brings it back byte for byte and nanobot reads
the home afterwards, and none of the reading writes a byte.

The expectations are computed here with the git CLI (`git log`, `git show REV:PATH`) and the
whole-file entry rules (engine.entries.removed_entries), not with engine/versions/commit_log.py's
incremental walk, and for nanobot's three scripted runs also from the script's known edits."""

from __future__ import annotations

import difflib
import subprocess
from collections import Counter

import pytest

from dreamdesk.engine.text.entries import removed_entries
from dreamdesk.engine.home.workspace import Workspace

from .nanobot_checks import assert_nanobot_fine, dreamdesk, dreamdesk_json, memory_texts, tree_state
from .nanobot_dream_runs import RUNS

FORMS = ["lf", "crlf-bom"]
MEMORY_FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
ARCHIVED = ("USER.md", "memory/MEMORY.md")
CURSOR = "memory/.dream_cursor"
# what took a removed line's place in the scripted runs, where the entry rules tell it (an added
# entry under the same heading, similar enough); the script's other one-for-one edits (Hugo ->
# Zola, the talk, Lisbon -> Braga) are too dissimilar for the rules and show no replacement
# every entry the script's model rewrote in place (edit_file old -> new, or write_file) names what took
# its place, however different the words
REPLACED_BY = {"- Short replies": "- Short replies, in Portuguese",
               "- Blog moved to Zola": "- Blog moved to Zola, deployed on Fridays",
               "- Blog runs on Hugo": "- Blog moved to Zola",
               "- Writing a talk about tide tables": "- Gave the tide-table talk in June",
               "- Lives in Lisbon (since May)": "- Lives in Braga"}


def git(ws, *args) -> bytes:
    return subprocess.run(["git", *args], cwd=ws, capture_output=True, check=True).stdout


def text_at(ws, rev: str | None, path: str) -> str | None:
    """The file's text in a commit as an editor shows it (no BOM, LF); None where it is absent."""
    if rev is None:
        return None
    out = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ws, capture_output=True)
    if out.returncode:
        return None
    return out.stdout.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")


def expected_commits(ws) -> list[dict]:
    """Every commit that changed a memory file, newest first, with what git says it did."""
    log = git(ws, "log", "--format=%H %P", "--", *MEMORY_FILES, "skills").decode().splitlines()
    out = []
    for line in log:
        sha, *parents = line.split()
        parent = parents[0] if parents else None
        names = git(ws, "show", "--format=", "--name-only", "--no-renames", sha).decode().split()
        files = {}
        for path in [n for n in names if n in MEMORY_FILES or n.endswith("/SKILL.md")]:
            old, new = text_at(ws, parent, path) or "", text_at(ws, sha, path) or ""
            files[path] = {"removed": sorted((r.entry.text, r.replaced_by) for r in removed_entries(old, new)),
                           "added": sorted(r.entry.text for r in removed_entries(new, old))}
        cursor = [text_at(ws, rev, CURSOR) for rev in (parent, sha)]
        out.append({"sha": sha, "files": files, "all_files": sorted(names),
                    "cursor": [int(c) if c is not None else None for c in cursor]})
    return out


@pytest.fixture(params=FORMS)
def home(request, dreamed_copy):
    return dreamed_copy(request.param)


def test_runs_lists_exactly_nanobots_commits_with_their_entries_and_cursor_moves(home):
    ws = home.ws
    want = expected_commits(ws)
    runs = dreamdesk_json("runs", home)["runs"]
    assert [r["commit"] for r in runs] == [c["sha"] for c in want]
    assert {r["writer"] for r in runs} == {"assistant"} and {r["author"] for r in runs} == {"nanobot"}
    for run, c in zip(runs, want):
        shown = dreamdesk_json("runs", home, "show", c["sha"][:10])
        assert shown["writer"] == "assistant" and shown["sha"] == c["sha"]
        got = {f["path"]: {"removed": sorted((e["text"], e["replaced_by"]) for e in f["removed"]),
                           "added": sorted(e["text"] for e in f["added"])}
               for f in shown["files"] if f["path"] in c["files"]}
        assert got == c["files"], c["sha"]
        assert sorted(run["files"]) == sorted(p for p in c["all_files"] if p in c["files"] or p == CURSOR)
        assert (run["removed_count"], run["created_count"]) == (
            sum(len(f["removed"]) for f in c["files"].values()), sum(len(f["added"]) for f in c["files"].values()))
        assert [run["cursor"]["before"], run["cursor"]["after"]] == c["cursor"] == \
            [shown["cursor"]["before"], shown["cursor"]["after"]]
    # nanobot's three scripted Dream runs, newest first, against the edits the script made
    dreams = [r for r in runs if r["subject"] == "dream: periodic memory consolidation"]
    assert [r["commit"][:8] for r in dreams] == [r["sha"][:8] for r in reversed(home.runs) if r["sha"]]
    for run, script in zip(reversed(dreams), RUNS):
        shown = dreamdesk_json("runs", home, "show", run["commit"])
        files = {f["path"]: f for f in shown["files"]}
        for path in ARCHIVED:
            assert Counter((e["text"], e["replaced_by"]) for e in files[path]["removed"]) == \
                Counter((t, REPLACED_BY.get(t)) for t in script.removed.get(path, ())), (run["commit"], path)
            assert sorted(e["text"] for e in files[path]["added"]) == sorted(script.added.get(path, ()))
        assert run["cursor"]["after"] > run["cursor"]["before"]


def _removals(want: list[dict]) -> list[tuple[str, str, str]]:
    """(commit, file, text) of every entry a commit removed from USER.md or MEMORY.md."""
    return [(c["sha"], path, text) for c in want for path in ARCHIVED
            for text, _ in c["files"].get(path, {}).get("removed", [])]


def test_archive_lists_every_entry_each_commit_removed_once(home):
    removals = _removals(expected_commits(home.ws))
    entries = dreamdesk_json("archive", home)["entries"]
    keys = [(e["file"], e["text"]) for e in entries]
    assert len(keys) == len(set(keys)), "an entry is listed twice"
    assert sorted(set(keys)) == sorted({(f, t) for _, f, t in removals})
    by_key = {(e["file"], e["text"]): e for e in entries}
    for sha, path, text in removals:
        e = by_key[(path, text)]
        assert e["known_from"] == "commit" and sha in [c["commit"] for c in e["commits"]], e
        assert {c["writer"] for c in e["commits"]} == {"assistant"}
    for e in entries:    # an entry's commits are exactly those that removed it, each once
        assert sorted(c["commit"] for c in e["commits"]) == sorted(
            s for s, f, t in removals if (f, t) == (e["file"], e["text"]))
    dark = by_key[("USER.md", "- Prefers dark mode")]
    assert dark["commit"].startswith(home.runs[0]["sha"]) and dark["heading"] == "## Preferences"


def _inserted(before: bytes, after: bytes) -> list[bytes]:
    """The lines `after` adds to `before`, failing if it changes or drops any."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    assert all(op[0] == "insert" for op in ops), f"the restore changed lines it did not add: {ops}"
    return [line for _, _, _, j1, j2 in ops for line in b[j1:j2]]


def _check_restored(entry: dict, before: bytes, after: bytes) -> None:
    """Only the entry (and, where its section had gone too, its heading and blank lines) was
    added, each line ending as the file's lines do; the BOM stays."""
    eol = b"\r\n" if b"\r\n" in before else b"\n"
    assert after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")
    added = _inserted(before, after)
    assert added and all(line.endswith(eol) and not line[:-len(eol)].endswith(b"\r") for line in added), added
    words = [line.decode("utf-8").rstrip("\r\n") for line in added if line.strip()]
    lines = entry["text"].split("\n")
    assert words[-len(lines):] == lines, (entry["id"], words)
    assert words[:-len(lines)] in ([], [entry["heading"]]), (entry["id"], words)


def test_restoring_every_pruned_entry_brings_each_back_and_nanobot_reads_the_home(nanobot, home):
    ws = home.ws
    entries = dreamdesk_json("archive", home)["entries"]
    before_all = nanobot.check(home)
    last = None
    for e in entries:
        before, texts = (ws / e["file"]).read_bytes(), memory_texts(ws)
        rc, out, err = dreamdesk("archive", home, "--restore", e["id"])
        assert rc == 0, err
        after = (ws / e["file"]).read_bytes()
        if "already holds this entry" in err:
            # only a heading whose section an earlier restore brought back with its first entry
            assert after == before and e["text"].startswith("#") and e["text"].encode() in before, e
            continue
        _check_restored(e, before, after)
        last = (texts, e)
    after_list = dreamdesk_json("archive", home)["entries"]
    assert all(e["back"] for e in after_list), [e["id"] for e in after_list if not e["back"]]
    user = (ws / "USER.md").read_bytes()
    assert user.startswith(b"\xef\xbb\xbf# User Profile\r\n") if home.form == "crlf-bom" else b"\r" not in user
    check = assert_nanobot_fine(nanobot, home, before_all)
    assert check["git"]["unstaged"] == [], check["git"]["unstaged"]
    # nanobot's /dream-log names the last restore as the latest change; /dream-restore undoes it alone
    head = check["git"]["log"][0]["sha"]
    log = nanobot.dream_log(home)
    assert f"`{head}`" in log and f"/dream-restore {head}" in log, log
    texts_before_last, entry = last
    assert entry["text"] in memory_texts(ws)[entry["file"]]
    assert nanobot.dream_restore(home, head).startswith("Restored Dream memory")
    assert memory_texts(ws) == texts_before_last
    assert_nanobot_fine(nanobot, home, check)


def test_reading_a_dreamed_home_writes_nothing_in_it(home):
    """Runs, each run's detail, the archive, usage, pins and status, twice (the second time from
    Dreamdesk's cache): the whole home stays byte- and mtime-identical, nanobot's usage store
    (SQLite, -wal and -shm as nanobot left them) included."""
    assert Workspace.open(home.path).root == home.ws
    assert (home.path / "llm_usage.sqlite3").exists()
    before = tree_state(home.path)
    for _ in range(2):
        runs = dreamdesk_json("runs", home)["runs"]
        for r in runs:
            dreamdesk_json("runs", home, "show", r["commit"])
        assert dreamdesk_json("archive", home)["entries"]
        assert dreamdesk_json("usage", home)["state"] == "recorded"
        assert dreamdesk_json("pins", home)["pins"] == []
        for args in (["runs", home], ["archive", home], ["usage", home], ["pins", home], ["status", home]):
            rc, _, err = dreamdesk(*args)
            assert rc == 0, (args, err)
    assert tree_state(home.path) == before
