"""The Dream prompt (issue 17): each pass's instructions viewed and edited per workspace, kept in
Dreamdesk's state, the defaults one click away, the assistant's prompts/dream.md shown and used
for consolidation unless the person replaced it here, and a real run (the scripted loopback
model) telling each pass what the person wrote."""

import io
import json

import pytest

from conftest import pending_files, tree_state
from dreamdesk.engine.dream import prompt_edits
from dreamdesk.engine.cli import main
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.prompts import COMMON, PASSES
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn

MINE = "This is the CONSOLIDATION pass, my way: add only what the user said twice."


@pytest.fixture
def ws(make_workspace):
    root = make_workspace(pending_files("- Maya wants replies in Swedish", USER="# User\n\n- Name: Maya\n"))
    return Workspace.open(root)


def sources(root):
    return {p.name: p.source for p in prompt_edits.pass_prompts(root)}


def test_defaults_then_the_assistant_s_own_then_the_person_s_edit(ws):
    assert sources(ws.root) == dict.fromkeys(PASSES, "default")
    (ws.root / "prompts").mkdir()
    (ws.root / "prompts" / "dream.md").write_text("Fold history the assistant's way.\n")
    assert sources(ws.root)["consolidation"] == "prompts/dream.md"
    edited = prompt_edits.set_pass(ws.root, "consolidation", f"  {MINE}\n")
    assert (edited.source, edited.text) == ("edited", MINE) and edited.default == PASSES["consolidation"][1]
    assert prompt_edits.reset_pass(ws.root, "consolidation").source == "prompts/dream.md"
    # the default written back is no edit at all
    assert prompt_edits.set_pass(ws.root, "review", PASSES["review"][1] + "\n").source == "default"
    assert prompt_edits.load_edits(ws.root) == {}
    assert not any(p.name == prompt_edits.EDITS_NAME for p in ws.root.rglob("*"))     # never in the workspace


@pytest.mark.parametrize("name, text, needle", [
    ("bogus", "x", "not a Dream pass"), ("review", "  \n", "needs instructions"),
    ("review", "x" * (prompt_edits.MAX_CHARS + 1), f"at most {prompt_edits.MAX_CHARS:,}")])
def test_what_cannot_be_a_pass_s_instructions_is_said(ws, name, text, needle):
    with pytest.raises(WorkspaceError, match=needle):
        prompt_edits.set_pass(ws.root, name, text)


def test_a_run_tells_each_pass_what_the_person_wrote(ws, llm_server):
    prompt_edits.set_pass(ws.root, "consolidation", MINE)
    srv = llm_server([turn(content="nothing to add")])
    res = run_dream(ws, OpenAIClient(srv.url, "m", "sk-test", backoff=0.01, max_retries=1),
                    DreamOptions(passes={"deduction": False, "induction": False}))
    system = srv.requests[0]["messages"][0]["content"]
    assert system.startswith(COMMON) and system.endswith(MINE) and PASSES["consolidation"][1] not in system
    rec = records.load_run(ws, res.run_id)
    assert rec.prompt["edited"] == ["consolidation"] and rec.prompt["consolidation"] == "edited in Dreamdesk"


def test_an_unreadable_prompts_file_stops_a_run_before_anything_is_written(ws, llm_server):
    prompt_edits.edits_path(ws.root, create=True).write_text('{"passes": {"review": 3}}')
    before = tree_state(ws.root)
    srv = llm_server([turn(content="never asked")])
    with pytest.raises(WorkspaceError, match="does not hold instructions by pass"):
        run_dream(ws, OpenAIClient(srv.url, "m", "sk-test"), DreamOptions())
    assert tree_state(ws.root) == before and srv.requests == []


def test_cli_prompts_set_from_stdin_reset_and_json(ws, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(MINE))
    assert main(["prompts", str(ws.root), "--set", "consolidation", "-"]) == 0
    assert f"== consolidation (edited) ==\n{MINE}" in capsys.readouterr().out
    assert main(["prompts", str(ws.root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == COMMON and [p["pass"] for p in out["passes"]] == list(PASSES)
    assert out["passes"][1] == {"pass": "consolidation", "source": "edited", "text": MINE,
                                "default": PASSES["consolidation"][1]}
    assert main(["prompts", str(ws.root), "--reset", "consolidation"]) == 0
    assert "== consolidation (default) ==" in capsys.readouterr().out
    assert main(["prompts", str(ws.root), "--set", "review", "/nonexistent/file"]) == 2
    assert "cannot read /nonexistent/file" in capsys.readouterr().err


# -- the window: Dream → Edit Dream Prompts… ----------------------------------------------------
def test_the_dialog_edits_a_pass_restores_its_default_and_shows_the_rest_read_only(main_window, qtbot):
    from helpers.screens import grab
    win = main_window
    root = win.ws.root
    (root / "prompts").mkdir(exist_ok=True)
    (root / "prompts" / "dream.md").write_text("Fold history the assistant's way.\n")
    menu = next(a for a in win.actions() if a.text() == "Edit Dream &Prompts…")
    menu.trigger()
    dlg = next(w for w in win.findChildren(QDialog_()) if w.windowTitle() == "Dream prompts")
    qtbot.waitUntil(lambda: dlg.list.count() == 6, timeout=5000)
    labels = [dlg.list.item(i).text() for i in range(dlg.list.count())]
    assert labels == ["Rules every pass follows", "review (default)", "consolidation (prompts/dream.md)",
                      "deduction (default)", "induction (default)", "The assistant's own prompts/dream.md"]
    assert dlg.editor.toPlainText() == "Fold history the assistant's way." and not dlg.editor.isReadOnly()
    dlg.list.setCurrentRow(0)                                     # the shared rules: shown, never edited
    assert dlg.editor.toPlainText() == COMMON and dlg.editor.isReadOnly() and not dlg.save_button.isEnabled()
    dlg.list.setCurrentRow(3)                                     # deduction: edit and save
    dlg.editor.setPlainText("Look only for contradictions.")
    assert dlg.list.item(3).text() == "deduction (default) •" and dlg.save_button.isEnabled()
    grab(dlg, "dream-prompts.png")
    dlg.save_button.click()
    qtbot.waitUntil(lambda: dlg.list.item(3).text() == "deduction (edited)", timeout=5000)
    assert prompt_edits.load_edits(root) == {"deduction": "Look only for contradictions."}
    dlg.default_button.click()                                    # the default, one click away
    assert dlg.editor.toPlainText() == PASSES["deduction"][1]
    dlg.save_button.click()
    qtbot.waitUntil(lambda: dlg.list.item(3).text() == "deduction (default)", timeout=5000)
    assert prompt_edits.load_edits(root) == {}
    # an unsaved edit is asked about before the dialog closes
    dlg.editor.setPlainText("half a thought")
    asked = []
    dlg.ask_discard = lambda passes: asked.append(passes) or False
    dlg.reject()
    assert asked == [["deduction"]] and dlg.isVisible()
    dlg.ask_discard = lambda passes: True
    dlg.reject()
    assert not dlg.isVisible() and prompt_edits.load_edits(root) == {}


def QDialog_():
    from dreamdesk.gui.qt import QDialog
    return QDialog
