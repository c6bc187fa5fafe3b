"""The Qt-free preparation of a diff for the view: style runs and word marks per line, the
side-by-side rows, the halves' own wrapping, and pygments imported only when a line is lexed."""

import os
import random
import subprocess
import sys
from pathlib import Path

from dreamdesk.engine.text.diffs import diff_texts
from dreamdesk.engine.text.prepared_diff import _wrap_walk, prepare, wrap_columns

ROOT = Path(__file__).resolve().parents[3]
OLD = "# Memory\n\n## Home\n- [durable] Lives in Ghent\n- Has a NAS\n- Backups at 02:00\n"
NEW = "# Memory\n\n## Home\n- [durable] Lives in Lisbon\n- Backups at 02:00\n- `cron` runs nightly\n"


def test_each_line_is_covered_by_its_style_runs_and_the_changed_words_are_marked():
    prepared = prepare([diff_texts(OLD, NEW, "memory/MEMORY.md")])
    (f,) = prepared.files
    lines = [x for h in f.hunks for x in h.lines]
    for line in lines:
        assert "".join(t for t, _, _ in line.pieces()) == line.text         # nothing dropped or doubled
    heading = next(x for x in lines if x.text == "## Home")
    assert [k for _, k, _ in heading.pieces()] == ["heading"]
    old = next(x for x in lines if x.kind == "-" and "Ghent" in x.text)
    new = next(x for x in lines if x.kind == "+" and "Lisbon" in x.text)
    assert [t for t, _, changed in old.pieces() if changed] == ["Ghent"]
    assert [t for t, _, changed in new.pieces() if changed] == ["Lisbon"]
    code = next(x for x in lines if "cron" in x.text)
    assert ("`cron`", "code", False) in code.pieces()
    assert f.digits == 1


def test_side_by_side_rows_pair_each_removed_run_with_the_added_run_after_it():
    prepared = prepare([diff_texts(OLD, NEW, "memory/MEMORY.md")])
    (h,) = prepared.files[0].hunks
    pairs = [(h.lines[a].text if a is not None else None, h.lines[b].text if b is not None else None)
             for a, b in h.rows]
    assert ("- [durable] Lives in Ghent", "- [durable] Lives in Lisbon") in pairs
    assert ("- Has a NAS", None) in pairs
    assert (None, "- `cron` runs nightly") in pairs
    assert ("- Backups at 02:00", "- Backups at 02:00") in pairs


def test_a_half_wraps_within_its_columns_after_a_space_and_counts_wide_characters_twice():
    text = "- [durable] tea rain NAS Ghent runs cats code backup server garden Lisbon"
    pieces = wrap_columns(text, 20)
    assert "".join(text[a:b] for a, b in pieces) == text
    assert all(b - a <= 20 for a, b in pieces) and len(pieces) == 4
    assert all(text[b - 1] == " " for a, b in pieces[:-1])          # words are not cut
    assert wrap_columns("short", 20) == [(0, 5)]
    wide = "日本語" * 10
    assert all(b - a == 5 for a, b in wrap_columns(wide, 10))       # 2 columns each
    assert wrap_columns("x" * 45, 20) == [(0, 20), (20, 40), (40, 45)]


def test_a_line_of_one_column_characters_wraps_where_the_column_walk_would():
    rng = random.Random(14)
    for _ in range(3000):
        text = "".join(rng.choice("ab  c.-xyz") for _ in range(rng.randrange(0, 140)))
        width = rng.randrange(8, 50)                # narrower is taken as 8
        assert wrap_columns(text, width) == _wrap_walk(text, width), (text, width)


def test_pygments_lexers_are_imported_by_the_first_diff_not_by_the_modules():
    code = ("import sys\n"
            "import dreamdesk.engine.text.prepared_diff, dreamdesk.gui.widgets.diff_view, dreamdesk.gui.views.files_view, dreamdesk.gui.views.snapshots_view\n"
            "print('pygments.lexers.markup' in sys.modules)\n"
            "from dreamdesk.engine.text.diffs import diff_texts\n"
            "dreamdesk.engine.text.prepared_diff.prepare([diff_texts('a\\n', '# b\\n', 'USER.md')])\n"
            "print('pygments.lexers.markup' in sys.modules)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
