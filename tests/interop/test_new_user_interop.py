"""A new user's first steps on a nanobot home that was moved, or extracted from a copy made on
another machine (the original path no longer exists): Dreamdesk finds the sessions the way
nanobot binds them (`<workspace>/.nanobot/workspace-id`), opening writes nothing, compaction
and Dream work, and nothing is compacted twice (issue 10, item 5)."""

import shutil

import pytest

from helpers.llm_server import turn
from .nanobot_checks import (assert_nanobot_fine, compacted_twice, dreamdesk, dreamdesk_json, session,
                            tree_state)
from .conftest import Home

CHAT = "telegram:chat-1"


@pytest.fixture(params=["moved", "extracted"])
def relocated_home(request, nanobot, tmp_path) -> Home:
    old = tmp_path / "old-machine" / "home"
    made = nanobot.make_home(old)
    baseline = nanobot.check(old)
    new = tmp_path / "new-place" / "nanobot-home"
    new.parent.mkdir()
    if request.param == "moved":
        old.rename(new)
    else:
        shutil.copytree(old, new, symlinks=True)
        shutil.rmtree(old.parent)
    return Home(new, made, baseline)


def test_a_relocated_home_is_found_compacted_and_dreamed(nanobot, relocated_home, llm_server):
    home = relocated_home
    before = tree_state(home.path)
    st = dreamdesk_json("status", home)
    assert tree_state(home.path) == before, "opening the home wrote into it"
    keys = sorted(s["key"] for s in st["sessions"])
    assert CHAT in keys and "cli:direct" in keys, (
        f"Dreamdesk finds sessions {keys} in a {home.path.name} home; nanobot binds them through "
        ".nanobot/workspace-id")
    out = dreamdesk_json("compact", home)
    assert [(r["session"], r["messages"]) for r in out["results"]] == [(CHAT, 4)], out["results"]
    # nanobot starts in the new place: it follows workspace-id to the same sessions
    after = assert_nanobot_fine(nanobot, home, append=False)
    assert after["workspace_id"] == home.made["workspace_id"]
    assert session(after, CHAT)["last_archived"] == 4
    nanobot.archive(home)
    dreamdesk_json("compact", home)
    mid = assert_nanobot_fine(nanobot, home)
    assert not compacted_twice(mid, 12), f"compacted twice: {compacted_twice(mid, 12)}"
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Sister Ana visits in July",
                                         "section": "Identity", "sources": [5]})),
                      turn(content="ok")], default=turn(content="nothing to add"))
    rc, out, err = dreamdesk("dream", home, "--base-url", srv.url, "--model", "interop-model")
    assert rc == 0, err
    final = assert_nanobot_fine(nanobot, home, mid)
    assert final["history"]["unprocessed"] == [c for c in final["history"]["cursors"]
                                              if c > final["history"]["dream_cursor"]]
    assert not compacted_twice(final, 12)


def test_sessions_that_cannot_be_bound_are_reported(nanobot, relocated_home):
    home = relocated_home
    (home.ws / ".nanobot" / "workspace-id").unlink()       # the binding is lost, the sessions are there
    st = dreamdesk_json("status", home)
    assert st["sessions"] == []
    texts = " ".join(str(p) for p in st["problems"]).lower()
    assert "session" in texts, f"sessions exist under sessions/ but status says nothing: {st['problems']}"
