"""Dreamdesk's restores (whole snapshot, one file, one hunk, their undo, an archived entry) on
a home nanobot made; then nanobot's own /dream-log names the restore as the latest memory
change and /dream-restore of it undoes exactly the restore (issue 10, item 9)."""


import pytest

from helpers.llm_server import turn
from .nanobot_checks import assert_nanobot_fine, dreamdesk, dreamdesk_json, memory_texts


def _init_sha(check: dict) -> str:
    first = check["git"]["log"][-1]
    assert first["subject"] == "init: nanobot memory store"
    return first["sha"]


def _dream_cursor(home) -> str:
    return (home.ws / "memory" / ".dream_cursor").read_text(encoding="utf-8")


RESTORES = {
    "whole": [],
    "file": ["--file", "USER.md"],
    "hunk": ["--hunk", "USER.md:1"],
}


@pytest.mark.parametrize("kind", list(RESTORES))
def test_restore_and_its_undo_are_read_back(nanobot, nanobot_home, kind):
    home = nanobot_home
    before = memory_texts(home.ws)
    res = dreamdesk_json("restore", home, _init_sha(home.baseline), *RESTORES[kind])
    assert res["files"] and "USER.md" in res["files"]
    assert memory_texts(home.ws) != before
    mid = assert_nanobot_fine(nanobot, home, home.baseline)
    assert mid["git"]["unstaged"] == [], f"restored files nanobot's git sees uncommitted: {mid['git']['unstaged']}"
    undo = dreamdesk_json("restore", home, "--undo", res["id"])     # the undo of exactly that restore
    assert undo["files"] == res["files"]
    assert memory_texts(home.ws) == before
    assert_nanobot_fine(nanobot, home, mid)


@pytest.mark.parametrize("kind", list(RESTORES))
def test_nanobot_dream_log_names_the_restore_and_dream_restore_undoes_only_it(nanobot, nanobot_home, kind):
    home = nanobot_home
    before = memory_texts(home.ws)
    cursor = _dream_cursor(home)
    res = dreamdesk_json("restore", home, _init_sha(home.baseline), *RESTORES[kind])
    restored = memory_texts(home.ws)
    head = nanobot.check(home)["git"]["log"][0]["sha"]
    assert res["commit"] and res["commit"].startswith(head)
    log = nanobot.dream_log(home)
    assert f"`{head}`" in log, f"nanobot's /dream-log does not name the restore {head} as the latest change:\n{log}"
    assert f"/dream-restore {head}" in log, log
    out = nanobot.dream_restore(home, head)
    assert out.startswith("Restored Dream memory"), out
    assert memory_texts(home.ws) == before, "nanobot's /dream-restore of the restore did not give back the files"
    assert restored != before
    assert _dream_cursor(home) == cursor, ".dream_cursor moved under nanobot's /dream-restore"
    assert_nanobot_fine(nanobot, home, home.baseline)


def test_archive_restore_is_read_back(nanobot, nanobot_home, llm_server):
    home = nanobot_home
    srv = llm_server([turn(("remove_fact", {"path": "USER.md", "text": "- Prefers dark mode"})),
                      turn(content="removed a stale preference")], default=turn(content="nothing to add"))
    rc, out, err = dreamdesk("dream", home, "--base-url", srv.url, "--model", "interop-model", "--json")
    assert rc == 0, err
    assert "Prefers dark mode" not in (home.ws / "USER.md").read_text(encoding="utf-8")
    mid = assert_nanobot_fine(nanobot, home, home.baseline)
    arc = dreamdesk_json("archive", home)
    ids = [e["id"] for e in arc["entries"] if "Prefers dark mode" in e["text"]]
    assert ids, arc
    res = dreamdesk_json("archive", "restore", home, ids[0])
    assert res["files"] == ["USER.md"]
    assert "Prefers dark mode" in (home.ws / "USER.md").read_text(encoding="utf-8")
    after = assert_nanobot_fine(nanobot, home, mid)
    assert after["git"]["unstaged"] == [], after["git"]["unstaged"]
    log = nanobot.dream_log(home)
    assert f"`{after['git']['log'][0]['sha']}`" in log, log
