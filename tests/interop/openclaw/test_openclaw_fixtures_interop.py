"""The stored fixture homes against homes the real OpenClaw builds now: where a build is
deterministic, the oracles must be the same, so an OpenClaw release that changes a format
(the prompt's Project Context, the truncation marker, the dreaming sections, the recall
store) fails here rather than in a user's home. Slow: about six minutes of OpenClaw's CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .homes import RECIPES
from .oracles import consolidation_history, normalized, project_context

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"


def load(bundle: Path) -> dict:
    return json.loads((bundle / "manifest.json").read_text())


def text(bundle: Path, rel: str) -> str:
    return normalized((bundle / rel).read_text(encoding="utf-8"), load(bundle))


def jnorm(bundle: Path, rel: str):
    return json.loads(text(bundle, rel))


@pytest.mark.parametrize("name", list(RECIPES))
def test_project_context_as_stored(rebuilt, name):
    """The Project Context OpenClaw sends for the home is the stored one (paths, dates, scores aside)."""
    assert text(rebuilt[name], "oracle/project_context.txt") == text(FIXTURES / name, "oracle/project_context.txt")


@pytest.mark.parametrize("name", list(RECIPES))
def test_same_files(rebuilt, name):
    """OpenClaw writes the same files into the home (dates aside), with the same bytes where
    nothing time-dependent is in them."""
    def files(bundle):
        return {normalized(k, load(bundle)): v for k, v in json.loads((bundle / "oracle/files.json").read_text()).items()}
    new, old = files(rebuilt[name]), files(FIXTURES / name)
    assert sorted(new) == sorted(old)
    same_bytes = {k for k in new if k.startswith("workspace/") and k.rsplit("/", 1)[-1] in
                  ("AGENTS.md", "SOUL.md", "IDENTITY.md", "BOOTSTRAP.md")}
    assert {k: new[k] for k in same_bytes} == {k: old[k] for k in same_bytes}


def test_sweeps_as_stored(rebuilt):
    """Each real sweep added, merged and superseded as the stored ones did, and changed the same
    MEMORY.md lines; DREAMS.md's history says so for the new home too."""
    new, old = jnorm(rebuilt["dreamed"], "oracle/sweeps.json"), jnorm(FIXTURES / "dreamed", "oracle/sweeps.json")
    counts = [{k: h.get(k) for k in ("added", "merged", "superseded", "skipped")} for h in new["history"]]
    assert counts == [{k: h.get(k) for k in ("added", "merged", "superseded", "skipped")} for h in old["history"]]
    assert [s["memory_diff"] for s in new["sweeps"]] == [s["memory_diff"] for s in old["sweeps"]]
    dreams = (rebuilt["dreamed"] / "home/workspace/DREAMS.md").read_text(encoding="utf-8")
    assert [h["added"] for h in consolidation_history(dreams)] == [h["added"] for h in new["history"]]


def test_promotions_as_stored(rebuilt):
    """`memory promote --apply` wrote the same section; the dry listing names the same candidates
    with the same recall counts and unique queries."""
    new, old = rebuilt["dreamed"], FIXTURES / "dreamed"
    assert jnorm(new, "oracle/promote_apply_diff.json") == jnorm(old, "oracle/promote_apply_diff.json")

    def listing(bundle):
        return [(c["key"], c["recallCount"], c["uniqueQueries"]) for c in jnorm(bundle, "oracle/promote_dry.json")["candidates"]]
    assert listing(new) == listing(old)


def test_dreaming_job_as_stored(rebuilt):
    keep = ("declarationKey", "name", "description", "schedule", "sessionTarget", "payload", "delivery")
    new, old = jnorm(rebuilt["dreamed"], "oracle/cron_job.json"), jnorm(FIXTURES / "dreamed", "oracle/cron_job.json")
    assert {k: new.get(k) for k in keep} == {k: old.get(k) for k in keep}


def test_project_context_holds_the_files(rebuilt):
    """The captured Project Context is the prompt's part the workspace files went into: each
    file under its cap appears whole under its absolute path (a check on the capture itself)."""
    bundle = rebuilt["dreamed"]
    ctx = (bundle / "oracle/project_context.txt").read_text(encoding="utf-8")
    ws = Path(load(bundle)["original_home"]) / "workspace"
    for name in ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"):
        body = (bundle / "home/workspace" / name).read_text(encoding="utf-8").rstrip()
        assert f"## {ws / name}\n{body}" in ctx
    assert project_context(f"x\n{ctx}\n<!-- /openclaw:attempt:STABLE -->\ny") == ctx
