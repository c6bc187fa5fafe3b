"""Memory-lint fixes (engine/lint/lint_fixes.py): each goes through the normal edit path — what leaves
USER.md / MEMORY.md is archived, a snapshot comes first, and its undo puts the bytes back exactly."""

from __future__ import annotations

from datetime import date

import pytest

from conftest import tree_state
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.lint.memory_lint import lint
from dreamdesk.engine.lint.lint_fixes import fix_finding
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.recovery.restore import undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

TODAY = date(2026, 12, 2)
BOM = "\ufeff"


def _crlf(text: str, bom: bool = True, final: bool = False) -> bytes:
    body = text.replace("\n", "\r\n")
    return ((BOM if bom else "") + (body if final else body.rstrip("\r\n"))).encode("utf-8")


USER = "# User\n\n## Preferences\n- Short answers\n- Metric units\n\n## Plans\n- Dentist on 3 Nov 2026\n- Lives in Ghent\n"
MEMORY = "# Memory\n\n## Work\n- Dagster on GKE\n- Metric units\n- She prefers tea over coffee\n"


def _finding(ws, kind):
    return next(f for f in lint(ws, TODAY) if f.kind == kind)


def _memory_bytes(root):
    return {k: v[0] for k, v in tree_state(root).items() if k in ("USER.md", "memory/MEMORY.md", "SOUL.md")
            or k.startswith("skills/")}


@pytest.mark.parametrize("kind, file, gone", [
    ("duplicate", "memory/MEMORY.md", "- Metric units"),
    ("past-date", "USER.md", "- Dentist on 3 Nov 2026"),
    ("misplaced", "memory/MEMORY.md", "- She prefers tea over coffee"),
])
def test_fix_archives_snapshots_and_undoes_byte_for_byte(make_workspace, kind, file, gone):
    root = make_workspace({"USER.md": _crlf(USER), "memory/MEMORY.md": _crlf(MEMORY, bom=False, final=True)})
    ws = Workspace.open(root)
    before = _memory_bytes(root)
    finding = _finding(ws, kind)
    assert finding.target.text == gone
    result = fix_finding(ws, finding)

    text = (root / file).read_bytes().decode("utf-8")
    assert gone not in text.split("\r\n")
    assert "\n" not in text.replace("\r\n", "")                 # its CRLF endings kept
    assert text.startswith(BOM) == before[file].startswith(BOM.encode())
    assert [(r.file, r.text, r.reason) for r in read_archive(ws).records] == [(file, gone, "edit")]
    assert result.archived and result.id and result.undo and result.commit
    store = SnapshotStore(ws)
    assert store.memory_bytes_at(result.undo)[file] == before[file]      # the snapshot taken first
    assert store.list()[0].subject.startswith("edit: ")
    if kind == "misplaced":
        user = (root / "USER.md").read_bytes().decode("utf-8")
        assert "## Preferences\r\n- Short answers\r\n- Metric units\r\n- She prefers tea over coffee" in user
        assert result.files == ["USER.md", "memory/MEMORY.md"]
    else:
        assert result.files == [file]
    assert not any(f.kind == kind and f.target.text == gone for f in lint(Workspace.open(root), TODAY))

    undo_restore(ws, result.id)
    assert _memory_bytes(root) == before


def test_duplicate_keeps_the_first_and_moves_a_procedure_into_a_new_skill(make_workspace):
    user = "# User\n\n## Deploying the blog\n- Build the site, then rsync it to the server\n- Lives in Ghent\n"
    root = make_workspace({"USER.md": user})
    ws = Workspace.open(root)
    finding = _finding(ws, "misplaced")
    assert finding.move_to == "skills/deploying-the-blog/SKILL.md"
    result = fix_finding(ws, finding)
    skill = (root / finding.move_to).read_text()
    assert skill.startswith("---\nname: deploying-the-blog\n") and skill.endswith(
        "# Deploying the blog\n\n- Build the site, then rsync it to the server\n")
    assert (root / "USER.md").read_text() == "# User\n\n## Deploying the blog\n- Lives in Ghent\n"
    assert Workspace.open(root).memory_files()       # the new skill is a memory file now
    undo_restore(ws, result.id)
    assert (root / "USER.md").read_text() == user and not (root / finding.move_to).exists()


def test_near_duplicate_in_soul_is_removed_without_archive(make_workspace):
    soul = "# Soul\n\n- No emojis, no small talk, no sign-off questions at the end\n"
    user = "# User\n\n- No emojis, no small talk, no sign-off questions.\n- Lives in Ghent\n"
    root = make_workspace({"SOUL.md": soul, "USER.md": user})
    ws = Workspace.open(root)
    finding = _finding(ws, "near-duplicate")
    assert finding.places[0].file == "SOUL.md" and finding.target.file == "USER.md"
    fix_finding(ws, finding)
    assert (root / "SOUL.md").read_text() == soul
    assert (root / "USER.md").read_text() == "# User\n\n- Lives in Ghent\n"


def test_a_stale_finding_writes_nothing(make_workspace):
    root = make_workspace({"USER.md": USER, "memory/MEMORY.md": MEMORY})
    ws = Workspace.open(root)
    finding = _finding(ws, "past-date")
    (root / "USER.md").write_text(USER.replace("- Dentist on 3 Nov 2026\n", "- Dentist on 4 Nov 2026\n"))
    before = tree_state(root)
    with pytest.raises(WorkspaceError, match="changed since the lint"):
        fix_finding(ws, finding)
    assert tree_state(root) == before
    dup = _finding(ws, "duplicate")
    (root / "USER.md").write_text(USER.replace("- Metric units\n", ""))      # the copy to keep is gone
    with pytest.raises(WorkspaceError, match="the copy to keep is no longer in USER.md"):
        fix_finding(ws, dup)
    assert (root / "memory/MEMORY.md").read_text() == MEMORY


def test_too_long_has_no_automatic_fix(make_workspace):
    root = make_workspace({"USER.md": "# User\n\n- " + "word " * 100 + "\n"})
    ws = Workspace.open(root)
    with pytest.raises(WorkspaceError, match="no automatic fix"):
        fix_finding(ws, _finding(ws, "too-long"))


def test_a_past_plan_in_an_entry_that_says_more_is_taken_out_alone(make_workspace):
    """The fix must not delete what is still true: only the stale plan leaves the entry (the old
    entry is archived, replaced by the new one), and the undo puts the bytes back."""
    memory = ("# Memory\n\n## Blog\n- Target launch: 1 Nov 2026. DNS stays at Cloudflare, proxy off.\n"
              "- Launch booked for 3 Nov 2026.\n")
    ws = Workspace.open(make_workspace({"USER.md": "# User\n", "SOUL.md": "# Soul\n", "memory/MEMORY.md": memory}))
    before = (ws.root / "memory/MEMORY.md").read_bytes()
    found = {f.target.text: f for f in lint(ws, TODAY) if f.kind == "past-date"}
    mixed, alone = found["- Target launch: 1 Nov 2026. DNS stays at Cloudflare, proxy off."], \
        found["- Launch booked for 3 Nov 2026."]
    assert (mixed.fix, mixed.rewrite_to, alone.fix) == ("rewrite", "- DNS stays at Cloudflare, proxy off.", "remove")
    result = fix_finding(ws, mixed)
    assert (ws.root / "memory/MEMORY.md").read_text() == memory.replace("Target launch: 1 Nov 2026. ", "")
    [rec] = read_archive(ws).records
    assert (rec.text, rec.replaced_by) == (mixed.target.text, "- DNS stays at Cloudflare, proxy off.")
    undo_restore(ws, result.id)
    assert (ws.root / "memory/MEMORY.md").read_bytes() == before
