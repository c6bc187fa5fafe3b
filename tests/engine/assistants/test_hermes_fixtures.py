"""The Hermes fixture homes (tests/fixtures/hermes, built by Hermes's own code with
tests/interop/hermes/build_fixtures.py) are whole, and their oracles agree with each other and
with the files; no Hermes needed. Dreamdesk's reading of them is checked in test_hermes_memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interop.hermes.hermes import VERIFIED
from interop.hermes.homes import CONFIG_YAML, RECIPES
from interop.hermes.oracles import FIXTURES, HOME_PLACEHOLDER, files_of, load

HOMES = tuple(RECIPES)
SEP = "\n§\n"


@pytest.fixture(scope="module", params=HOMES)
def fixture(request) -> dict:
    return load(request.param) | {"name": request.param}


def test_the_stored_fixtures_are_the_recipes():
    assert sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) == sorted(HOMES)
    assert (FIXTURES / "README.md").is_file()


def test_manifest(fixture):
    m = fixture["manifest"]
    assert m["name"] == fixture["name"] and m["hermes-agent"] in VERIFIED
    assert m["steps"][0]["op"] == "read"          # every home starts as a Hermes start makes it
    assert "memories" not in m["empty_folders"] or fixture["name"] == "fresh"


def test_files_as_built(fixture):
    """Every file of the home is there with the bytes Hermes (or the recorded hand edit) left,
    and nothing else; no temp file of Hermes's writes is left over."""
    files, _ = files_of(fixture["home"])
    assert files == fixture["oracle"]["files"]
    assert not [k for k in files if Path(k).name.startswith(".mem_") or k.endswith(".tmp")]


def test_read_oracle_agrees_with_itself(fixture):
    """Hermes's entries, joined, are its count; its blocks, joined, are the prompt it built."""
    read = fixture["oracle"]["read"]
    for target in ("memory", "user"):
        assert read[target]["chars"] == (len(SEP.join(read[target]["entries"])) if read[target]["entries"] else 0)
        assert (read[target]["block"] is None) == (not read[target]["entries"])
    blocks = [read[t]["block"] for t in ("memory", "user") if read[t]["block"]]
    assert fixture["oracle"]["prompt"] == "\n\n".join(blocks)


def test_the_files_hold_what_hermes_read(fixture):
    """Where Hermes's guard is content, its file is exactly its entries joined (Hermes wrote it)."""
    read, guard = fixture["oracle"]["read"], fixture["oracle"]["guard"]
    for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        path = fixture["home"] / "memories" / name
        if not guard[target]["refused"] and read[target]["entries"]:
            assert path.read_bytes() == SEP.join(read[target]["entries"]).encode()
        assert path.exists() == (fixture["name"] != "fresh")


def test_over_limit_refusals_saved_the_file_as_it_was():
    """Each refused remove names the .bak Hermes saved; the stored .bak holds the file's bytes."""
    f = load("over-limit")
    refusals = [o["reply"] for o in f["oracle"]["ops"] if "drift_backup" in o["reply"]]
    assert [Path(r["drift_backup"]).name.split(".bak.")[0] for r in refusals] == ["MEMORY.md", "USER.md"]
    for r in refusals:
        assert r["drift_backup"].startswith(HOME_PLACEHOLDER + "/memories/")
        bak = f["home"] / "memories" / Path(r["drift_backup"]).name
        assert bak.read_bytes() == (bak.parent / bak.name.split(".bak.")[0]).read_bytes()
    assert f["oracle"]["guard"]["memory"] | {"error": "", "baks": []} == {
        "refused": True, "round_trips": True, "error": "", "baks": []}
    assert f["oracle"]["guard"]["user"]["round_trips"] is False


def test_configured_limits_came_from_the_hand_written_config():
    f = load("configured")
    assert (f["home"] / "config.yaml").read_text(encoding="utf-8") == CONFIG_YAML
    assert f["oracle"]["read"]["limits"] == {"memory": 1800, "user": 2000}
    assert {k: v["value"] for k, v in f["oracle"]["config"].items() if k.endswith("_limit")} == {
        "memory_char_limit": 1800, "user_char_limit": 2000}
    assert f["oracle"]["read"]["memory"]["chars"] > 1800 and not f["oracle"]["guard"]["memory"]["refused"]


def test_full_is_near_its_limits_and_shows_the_refusals():
    f = load("full")
    read = f["oracle"]["read"]
    assert 2200 - 20 < read["memory"]["chars"] <= 2200 and 1375 - 20 < read["user"]["chars"] <= 1375
    errors = [o["reply"].get("error", "") for o in f["oracle"]["ops"]]
    assert any(e.startswith("Memory at 2,191/2,200 chars. Adding this entry") for e in errors)
    assert "Blocked: content contains invisible unicode character U+200D (possible injection)." in errors
    assert any("§" in e for e in read["memory"]["entries"]) and any("\n" in e for e in read["user"]["entries"])


def test_oracles_name_no_build_folder(fixture):
    """Paths in the oracles are $HERMES_HOME, so the homes can be read from anywhere."""
    original = fixture["manifest"]["original_home"]
    for path in (FIXTURES / fixture["name"] / "oracle").iterdir():
        assert original not in path.read_text(encoding="utf-8") and "/tmp/" not in path.read_text(encoding="utf-8")
    assert json.dumps(fixture["manifest"]).count(original) == 1
