"""`dreamdesk serve --watch`: the real command, real watchdog, a real second process rewriting
USER.md; every removed entry archived once (with the commit when one lands), nothing without it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.home.config import set_value
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import build_nanobot_repo, git, head
from helpers.serve_process import Serve

USER = "# User\n\n## Identity\n- Inès, data engineer in Ghent.\n\n## Preferences\n- Tea.\n- Cycling.\n- Sci-fi.\n"


def rewrite_in_another_process(root: Path, drop: list[str], commit: str | None = None) -> None:
    """The assistant's side: an atomic save of USER.md without `drop`, then maybe its commit."""
    code = ("import sys, os; p = os.path.join(sys.argv[1], 'USER.md'); t = open(p, encoding='utf-8').read()\n"
            "for d in sys.argv[2:]: t = t.replace(d + '\\n', '')\n"
            "open(p + '.tmp', 'w', encoding='utf-8').write(t); os.replace(p + '.tmp', p)\n")
    subprocess.run([sys.executable, "-c", code, str(root), *drop], check=True, timeout=30)
    if commit:
        git(root, "add", "--", "USER.md")
        git(root, "commit", "--quiet", "--no-verify", "-m", commit)


def outside(root: Path) -> list:
    return [r for r in read_archive(Workspace.open(root)).records if r.reason == "outside"]


def test_serve_watch_archives_each_removal_once_with_its_commit(tmp_path):
    repo = build_nanobot_repo(tmp_path / "ws")
    (repo.root / "USER.md").write_text(USER, encoding="utf-8")
    serve = Serve(repo.root, "--watch")
    try:
        serve.wait_for("watch: on")
        # written first, committed after (nanobot's order): the commit is noted when it lands
        rewrite_in_another_process(repo.root, ["- Tea.", "- Cycling."])
        serve.wait_for("Another writer removed 2 entries from USER.md")
        git(repo.root, "add", "--", "USER.md")
        git(repo.root, "commit", "--quiet", "--no-verify", "-m", "dream: periodic memory consolidation")
        sha = head(repo.root)
        serve.wait_for(f"The assistant's Dream removed 2 entries from USER.md (commit {sha[:8]})")
        # a read and a touch are not changes
        (repo.root / "USER.md").read_bytes()
        os.utime(repo.root / "USER.md")
        rewrite_in_another_process(repo.root, ["- Sci-fi."])
        serve.wait_for("Another writer removed 1 entry from USER.md")
        # a last removal: once it is said, every event before it has been handled (no late duplicate)
        rewrite_in_another_process(repo.root, ["- Inès, data engineer in Ghent."])
        serve.wait_for("Another writer removed 1 entry from USER.md", times=2)
    finally:
        assert serve.stop() == 0, serve.lines
    recs = outside(repo.root)
    assert sorted(r.text for r in recs) == ["- Cycling.", "- Inès, data engineer in Ghent.", "- Sci-fi.", "- Tea."]
    assert {r.text: r.commit for r in recs if r.commit} == {"- Tea.": sha, "- Cycling.": sha}
    assert {r.text: r.heading for r in recs}["- Inès, data engineer in Ghent."] == "## Identity"
    assert {r.heading for r in recs if "Inès" not in r.text} == {"## Preferences"}
    assert sum("removed" in line for line in serve.lines) == 4       # each change said once, the commit once


def test_serve_without_watch_archives_nothing(tmp_path):
    repo = build_nanobot_repo(tmp_path / "ws")
    (repo.root / "USER.md").write_text(USER, encoding="utf-8")
    set_value(Workspace.open(repo.root).config(), "intervalH", "2", create_at=repo.root / "config.json")
    serve = Serve(repo.root)
    try:
        serve.wait_for("schedule:")                          # its first tick: a watch would be on by now
        rewrite_in_another_process(repo.root, ["- Tea."], commit="dream: periodic memory consolidation")
        # a settings change serve says on a later tick: the rewrite and its commit came before it
        set_value(Workspace.open(repo.root).config(), "intervalH", "7")
        serve.wait_for("settings: ")
    finally:
        assert serve.stop() == 0, serve.lines
    assert not (repo.root / "memory" / "archive").exists()
    assert not any(line.split(" ", 2)[-1].startswith("watch") for line in serve.lines)
