"""`dreamdesk lint` on an OpenClaw home (issue 29 item 5): the junk OpenClaw's dreaming promoted,
its score metadata and what the prompt cut drops, in words and as JSON (each fix's edits: the entry
and its own marker lines), with nothing written."""

from __future__ import annotations

import json

from conftest import tree_state
from dreamdesk.engine.cli import main
from helpers.openclaw_homes import COMMAND, COMMAND_MARKER, copy_home, with_promoted_junk
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_lint_json_names_openclaws_kinds_and_each_fixs_edits(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DREAMDESK_TODAY", "2026-12-07")
    home = with_promoted_junk(copy_home("dreamed", tmp_path))
    before = tree_state(home)
    code, out, err = run(capsys, "lint", home, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert {k: n for k, n in got["counts"].items() if n} == {"shell-command": 1, "raw-candidate": 1,
                                                            "score-metadata": 2}
    [cmd] = [f for f in got["findings"] if f["kind"] == "shell-command"]
    assert (cmd["id"], cmd["action"], cmd["fix"], cmd["precision"]) == ("shell-command:MEMORY.md:22", "fix", "remove",
                                                                        1.0)
    assert [(e["start_line"], e["text"].split(" [score=")[0], e["to"]) for e in cmd["edits"]] == [
        (22, COMMAND, None), (21, COMMAND_MARKER, None)]
    score = [f for f in got["findings"] if f["kind"] == "score-metadata"]
    assert [f["id"] for f in score] == ["score-metadata:MEMORY.md:13", "score-metadata:MEMORY.md:25"]
    assert all("[score=" not in f["rewrite_to"] and "<!-- importance:" in f["rewrite_to"] for f in score)
    assert tree_state(home) == before                    # lint reads only


def test_lint_in_words_on_a_home_over_its_caps(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DREAMDESK_TODAY", "2026-12-07")
    code, out, _ = run(capsys, "lint", copy_home("over-cap", tmp_path))
    assert code == 0
    assert ("MEMORY.md line 36  in-cut\n    - Fact 34: the build server rack 34 keeps its spare disks in drawer 6, "
            "labelled with the asset tag R…\n    OpenClaw's prompt cut drops it: MEMORY.md is 8,040 characters, over "
            "its per-file cap of 6,000, and the model sees only the first 75 % and the last 25 %\n    review: it is a "
            "fact, so no fix removes it: make room (remove what the other findings name, or shorten the file by hand) "
            "or raise bootstrapMaxChars in Settings → Memory\n") in out
    assert out.rstrip().endswith("107 findings (83 similar, 24 in-cut), as of 2026-12-07")
    assert "<!-- observed" not in out
