"""The OpenClaw fixture homes (tests/fixtures/openclaw, built by the real OpenClaw with
tests/interop/openclaw/build_fixtures.py) are whole and agree with the oracles stored beside
them; no Node needed. Dreamdesk's OpenClaw adapter is checked against these."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from interop.openclaw.driver import VERIFIED
from interop.openclaw.oracles import consolidation_history, project_context, tree_state

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"
HOMES = ("fresh", "dreamed", "over-cap", "over-total")
BOOTSTRAP_NAMES = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md")


def manifest(name: str) -> dict:
    return json.loads((FIXTURES / name / "manifest.json").read_text())


def oracle(name: str, rel: str):
    path = FIXTURES / name / "oracle" / rel
    return json.loads(path.read_text()) if rel.endswith(".json") else path.read_text(encoding="utf-8")


def state_db(name: str) -> sqlite3.Connection:
    """The fixture's state database, read without writing anything beside it: a WAL database
    opened with mode=ro alone still creates -wal/-shm, so immutable=1 too."""
    db = FIXTURES / name / "home" / "state" / "openclaw.sqlite"
    return sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)


def entries(name: str, namespace: str) -> list[dict]:
    with state_db(name) as con:
        rows = con.execute("SELECT value_json FROM plugin_state_entries WHERE plugin_id = 'memory-core' "
                           "AND namespace = ? ORDER BY entry_key", (namespace,)).fetchall()
    return [json.loads(r[0]) for r in rows]


@pytest.mark.parametrize("name", HOMES)
def test_manifest(name):
    m = manifest(name)
    assert m["name"] == name and m["openclaw"] in VERIFIED
    assert Path(m["original_home"]).name == ".openclaw" and m["built_on"] == m["days"]["D0"]


@pytest.mark.parametrize("name", HOMES)
def test_files_as_built(name):
    """Every file of the home is there with the bytes OpenClaw left, and nothing else is:
    no -wal/-shm/-journal beside a database, no .git."""
    home = FIXTURES / name / "home"
    files = {k: {"size": v["size"], "sha256": v["sha256"]} for k, v in tree_state(home).items()}
    assert files == oracle(name, "files.json")
    assert not [k for k in files if k.endswith(("-wal", "-shm", "-journal")) or "/.git/" in f"/{k}"]


@pytest.mark.parametrize("name", HOMES)
def test_state_database_reads_without_writing(name, tmp_path):
    """The state database opens read-only (the schema OpenClaw 2026.9.6 made: user_version 18,
    plugin_state_entries) and leaves no file beside it."""
    before = sorted(p.name for p in (FIXTURES / name / "home" / "state").iterdir())
    with state_db(name) as con:
        assert con.execute("PRAGMA user_version").fetchone() == (18,)
        cols = [r[1] for r in con.execute("PRAGMA table_info(plugin_state_entries)")]
        assert cols == ["plugin_id", "namespace", "entry_key", "value_json", "created_at", "expires_at"]
    assert sorted(p.name for p in (FIXTURES / name / "home" / "state").iterdir()) == before == ["openclaw.sqlite"]


def test_dreamed_state_namespaces():
    """The recall store and the MEMORY.md pre-images the notes name are in the dreamed home: at
    most 8 pre-images, each {createdAt, content, contentHash} with the content's sha256, and
    each the MEMORY.md a consolidating sweep started from."""
    recalls = entries("dreamed", "short-term-recall")
    assert recalls and all({"key", "path", "recallCount", "queryHashes"} <= set(r["value"]) for r in recalls)
    backups = [e["value"] for e in entries("dreamed", "dreaming-memory-backups")]
    assert 2 <= len(backups) <= 8
    for b in backups:
        assert set(b) == {"createdAt", "content", "contentHash"}
        assert hashlib.sha256(b["content"].encode()).hexdigest() == b["contentHash"]
    befores = [s["memory_before"] for s in oracle("dreamed", "sweeps.json")["sweeps"]]
    assert sorted(b["content"] for b in backups) == sorted(befores)


def test_dreamed_sweeps_oracle():
    """sweeps.json agrees with the stored DREAMS.md (one consolidation per sweep, in order,
    with its counts) and with MEMORY.md (the last sweep's result is the file as stored)."""
    home = FIXTURES / "dreamed" / "home" / "workspace"
    sweeps = oracle("dreamed", "sweeps.json")
    history = consolidation_history((home / "DREAMS.md").read_text(encoding="utf-8"))
    assert history == sweeps["history"]
    assert [(h["added"], h["merged"], h["superseded"]) for h in history] == [(1, 0, 0), (0, 1, 0)]
    assert sweeps["sweeps"][-1]["memory_after"] == (home / "MEMORY.md").read_text(encoding="utf-8")
    merged = sweeps["sweeps"][1]["memory_diff"]
    assert merged["removed"] == ["- The user prefers green tea in the afternoon."]


def test_dreamed_files_of_a_dreamed_home():
    """Daily notes plain and slugged, phase reports, USER.md directives active and superseded."""
    ws = FIXTURES / "dreamed" / "home" / "workspace"
    d = manifest("dreamed")["days"]
    notes = sorted(p.name for p in (ws / "memory").glob("*.md"))
    assert notes == sorted([f"{d['D2']}.md", f"{d['D1']}.md", f"{d['D0']}.md", f"{d['D0']}-standup.md",
                            f"{d['D1']}-retro.md"])
    assert all((ws / "memory" / "dreaming" / p / f"{d['D0']}.md").is_file() for p in ("light", "rem", "deep"))
    user = (ws / "USER.md").read_text(encoding="utf-8")
    assert "| status: superseded -->" in user and "| status: active -->" in user


@pytest.mark.parametrize("name", HOMES)
def test_project_context_oracle(name):
    """The captured Project Context is whole: its header, each bootstrap file of the home under
    its absolute path in OpenClaw's order, MEMORY.md among them where the home has one."""
    ctx = oracle(name, "project_context.txt")
    assert project_context(ctx + "\n<!-- /openclaw:attempt:STABLE -->") == ctx
    assert ctx.startswith("# Project Context\nLoaded project context:\n")
    ws = manifest(name)["original_home"] + "/workspace/"
    present = [n for n in BOOTSTRAP_NAMES if (FIXTURES / name / "home" / "workspace" / n).is_file()]
    heads = [line[len("## " + ws):] for line in ctx.splitlines() if line.startswith("## " + ws)]
    assert heads == present


def test_over_cap_cut_oracle():
    """In over-cap, MEMORY.md (over bootstrapMaxChars 6,000) and USER.md (over 4,000) arrive cut,
    with OpenClaw's marker naming what it kept of the file's length."""
    ws = FIXTURES / "over-cap" / "home" / "workspace"
    ctx = oracle("over-cap", "project_context.txt")
    assert json.loads((FIXTURES / "over-cap" / "home" / "openclaw.json").read_text())["agents"]["defaults"]["bootstrapMaxChars"] == 6000
    for name in ("MEMORY.md", "USER.md"):
        length = len((ws / name).read_text(encoding="utf-8").rstrip())
        assert f"[...truncated, read {name} for full content...]\n…(truncated {name}: kept " in ctx
        assert f" chars of {length})…" in ctx


def test_over_total_cut_oracle():
    """In over-total every file is under bootstrapMaxChars but together they pass
    bootstrapTotalMaxChars (10,000): MEMORY.md, last, is cut 75/25 to what the others left."""
    home = FIXTURES / "over-total" / "home"
    total = json.loads((home / "openclaw.json").read_text())["agents"]["defaults"]["bootstrapTotalMaxChars"]
    ctx = oracle("over-total", "project_context.txt")
    injected = ctx.split(f"## {manifest('over-total')['original_home']}/workspace/MEMORY.md\n", 1)[1]
    before = sum(len((home / "workspace" / n).read_text(encoding="utf-8").rstrip())
                 for n in ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"))
    assert total == 10000 and total - before - 1 <= len(injected) <= total - before
    memory = (home / "workspace" / "MEMORY.md").read_text(encoding="utf-8").rstrip()
    assert f"chars of {len(memory)})…" in injected and injected.startswith(memory[:100])


@pytest.mark.parametrize("name", HOMES)
def test_other_oracles_parse(name):
    status = oracle(name, "memory_status.json")
    assert isinstance(status, list) and status[0]["agentId"] == "main"
    if name == "dreamed":
        dry = oracle(name, "promote_dry.json")
        assert [c["path"] for c in dry["candidates"]] == [f"memory/{manifest(name)['days']['D1']}-retro.md"]
        assert oracle(name, "cron_job.json")["schedule"] == {"kind": "cron", "expr": "0 3 * * *"}
