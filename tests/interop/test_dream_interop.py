"""`dreamdesk dream` (a scripted loopback model editing USER.md), and a dry run then its apply,
on a home nanobot made: afterwards nanobot reads everything back right, and its own /dream-log
shows the run."""

from helpers.llm_server import turn
from .nanobot_checks import assert_nanobot_fine, dreamdesk, dreamdesk_json, memory_texts, tree_state

SCRIPT = [
    turn(("read_file", {"path": "USER.md"})),
    turn(("edit_file", {"path": "USER.md", "old_text": "- Short replies", "new_text": "- Short replies, no emoji"})),
    turn(("add_fact", {"path": "USER.md", "text": "Sister Ana visits in July", "section": "Identity",
                       "sources": [5]})),
    turn(content="Updated USER.md."),
]


def _model(srv):
    return ["--base-url", srv.url, "--model", "interop-model"]


def test_dream_then_nanobot_reads_and_logs_it(nanobot, nanobot_home, llm_server):
    home = nanobot_home
    srv = llm_server(SCRIPT, default=turn(content="nothing to add"))
    rc, out, err = dreamdesk("dream", home, *_model(srv), "--json")
    assert rc == 0, err
    res = __import__("json").loads(out)
    assert res["status"] == "completed", res
    user = (home.ws / "USER.md").read_text(encoding="utf-8")
    assert "Short replies, no emoji" in user and "Sister Ana visits in July" in user
    after = assert_nanobot_fine(nanobot, home, home.baseline)
    h = after["history"]
    assert h["dream_cursor"] == 6 and h["unprocessed"] == [], "nanobot's Dream would dream the batch again"
    assert after["git"]["log"][0]["subject"].startswith("dream:")
    log = nanobot.dream_log(home)
    assert after["git"]["log"][0]["sha"] in log and "`USER.md`" in log, log
    # nanobot's own next Dream commit lands on top of Dreamdesk's (same store, same layout)
    assert after["git"]["unstaged"] == [], f"files nanobot would commit under its next Dream: {after['git']['unstaged']}"


def test_dry_run_writes_nothing_and_its_apply_is_read_back(nanobot, nanobot_home, llm_server):
    from dreamdesk.engine.dream.run import DreamOptions, apply_preview, run_dream
    from dreamdesk.engine.llm import choose_model, make_client
    from dreamdesk.engine.home.workspace import Workspace

    home = nanobot_home
    srv = llm_server(SCRIPT, default=turn(content="nothing to add"))
    ws = Workspace.open(home.path)
    texts = memory_texts(home.ws)
    choice, key = choose_model(ws.config(), base_url=srv.url, model="interop-model")
    result = run_dream(ws, make_client(choice, key), DreamOptions(trigger="manual", dry_run=True))
    assert result.preview is not None and result.diffs
    assert memory_texts(home.ws) == texts
    mid = assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    assert mid["history"] == home.baseline["history"] and mid["git"]["log"] == home.baseline["git"]["log"]
    written = apply_preview(Workspace.open(home.path), result.preview)
    assert "USER.md" in written
    after = assert_nanobot_fine(nanobot, home, home.baseline)
    assert after["history"]["dream_cursor"] == 6
    assert after["git"]["log"][0]["subject"].startswith("dream:")
    assert "Sister Ana visits in July" in (home.ws / "USER.md").read_text(encoding="utf-8")


def test_a_failed_command_changes_nothing_nanobot_sees(nanobot, nanobot_home):
    home = nanobot_home
    before = tree_state(home.path)
    rc, out, err = dreamdesk("restore", home, "deadbeef")
    assert rc == 2, err
    assert tree_state(home.path) == before, "a failed command wrote into the home"
    assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    assert dreamdesk_json("status", home)["workspace"] == str(home.ws)
