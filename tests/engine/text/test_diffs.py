"""Structured diffs: hunks, line numbers, the unified text, and reverting one hunk."""

from __future__ import annotations

import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdesk.engine.text.diffs import diff_texts, intraline, revert_hunk, split_keepends



def numbered(n: int, changed: dict[int, str] | None = None) -> str:
    changed = changed or {}
    return "".join(changed.get(i, f"line {i}") + "\n" for i in range(1, n + 1))


OLD = numbered(30)
NEW = numbered(30, {3: "line THREE", 15: "line FIFTEEN", 28: "line TWENTY-EIGHT"})


def test_three_separate_changes_make_three_hunks_with_line_numbers():
    d = diff_texts(OLD, NEW, "USER.md")
    assert [h.index for h in d.hunks] == [1, 2, 3]
    assert [h.header for h in d.hunks] == ["@@ -1,6 +1,6 @@", "@@ -12,7 +12,7 @@", "@@ -25,6 +25,6 @@"]
    assert (d.added, d.removed) == (3, 3)
    h = d.hunks[1]
    assert [(x.kind, x.text, x.old_no, x.new_no) for x in h.lines if x.kind != " "] == [
        ("-", "line 15\n", 15, None), ("+", "line FIFTEEN\n", None, 15)]
    ctx = [x for x in h.lines if x.kind == " "]
    assert ctx[0].old_no == ctx[0].new_no == 12 and ctx[-1].old_no == 18


def test_line_numbers_follow_insertions():
    old = "a\nb\nc\n"
    new = "a\nNEW1\nNEW2\nb\nc\n"
    (h,) = diff_texts(old, new, "f").hunks
    assert [(x.kind, x.text.strip(), x.old_no, x.new_no) for x in h.lines] == [
        (" ", "a", 1, 1), ("+", "NEW1", None, 2), ("+", "NEW2", None, 3), (" ", "b", 2, 4), (" ", "c", 3, 5)]


def test_unified_text_matches_git(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(OLD.encode())
    b.write_bytes(NEW.encode())
    proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "-U3", str(a), str(b)],
                          capture_output=True, check=False)
    assert proc.returncode == 1, proc.stderr
    git_hunks = [line for line in proc.stdout.decode().splitlines()
                 if not line.startswith(("diff ", "index ", "---", "+++"))]
    ours = diff_texts(OLD, NEW, "USER.md").unified().splitlines()
    assert ours[:2] == ["--- a/USER.md", "+++ b/USER.md"]
    # git adds the function context after @@; compare the rest
    assert [line.split(" @@")[0] + " @@" if line.startswith("@@") else line for line in git_hunks] == ours[2:]


def test_no_newline_at_end_of_file_is_marked():
    d = diff_texts("keep\nold", "keep\nnew", "SOUL.md")
    assert d.unified() == ("--- a/SOUL.md\n+++ b/SOUL.md\n@@ -1,2 +1,2 @@\n keep\n-old\n"
                           "\\ No newline at end of file\n+new\n\\ No newline at end of file\n")
    # only the side that lacks the newline is marked
    d = diff_texts("keep\nold", "keep\nold\n", "SOUL.md")
    assert d.unified().endswith("-old\n\\ No newline at end of file\n+old\n")
    assert revert_hunk("keep\nold\n", d.hunks[0]) == "keep\nold"


def test_created_and_deleted_files():
    d = diff_texts(None, "a\nb\n", "skills/x/SKILL.md")
    assert (d.old_exists, d.new_exists, d.added, d.removed) == (False, True, 2, 0)
    assert d.unified().startswith("--- /dev/null\n+++ b/skills/x/SKILL.md\n@@ -0,0 +1,2 @@\n")
    d = diff_texts("a\n", None, "USER.md")
    assert d.unified().startswith("--- a/USER.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
    # an empty file that appears is still a change, with no hunks
    d = diff_texts(None, "", "USER.md")
    assert d.changed and d.hunks == []
    assert not diff_texts("same\n", "same\n", "USER.md").changed
    assert diff_texts("same\n", "same\n", "USER.md").unified() == ""


def test_revert_each_hunk_changes_only_its_region():
    d = diff_texts(OLD, NEW, "USER.md")
    for h, (line_no, old_line) in zip(d.hunks, [(3, "line 3"), (15, "line 15"), (28, "line 28")]):
        out = revert_hunk(NEW, h).split("\n")
        expected = NEW.split("\n")
        expected[line_no - 1] = old_line
        assert out == expected


def test_u2028_inside_a_line_is_not_a_line_break():
    old = "- first\u2028still first\n- second\u0085x\n"
    new = "- first\u2028still first\n- second\u0085y\n"
    d = diff_texts(old, new, "USER.md")
    (h,) = d.hunks
    assert [(x.kind, x.old_no, x.new_no) for x in h.lines] == [(" ", 1, 1), ("-", 2, None), ("+", None, 2)]
    assert h.header == "@@ -1,2 +1,2 @@"
    assert split_keepends(old) == ["- first\u2028still first\n", "- second\u0085x\n"]
    assert revert_hunk(new, h) == old


def test_to_json_shape():
    data = diff_texts("a\n", "b\n", "USER.md").to_json()
    assert data == {"path": "USER.md", "old_exists": True, "new_exists": True, "added": 1, "removed": 1,
                    "hunks": [{"index": 1, "id": "59adbefeb998", "header": "@@ -1 +1 @@", "added": 1, "removed": 1,
                               "lines": [["-", "a\n", 1, None], ["+", "b\n", None, 1]]}]}


def test_intraline_marks_changed_words():
    left, right = intraline("Likes green tea daily", "Likes black tea daily")
    assert left == [("=", "Likes "), ("-", "green"), ("=", " tea daily")]
    assert right == [("=", "Likes "), ("+", "black"), ("=", " tea daily")]


# -- properties -----------------------------------------------------------------------------------
_lines = st.lists(st.sampled_from(["a", "b", "c", "d", "", "é\u2028x"]), max_size=25)


def _text(lines: list[str], final_newline: bool) -> str:
    return "\n".join(lines) + ("\n" if final_newline and lines else "")


@settings(max_examples=300, deadline=None)
@given(_lines, _lines, st.booleans(), st.booleans(), st.randoms(use_true_random=False))
def test_reverting_all_hunks_one_at_a_time_gives_the_old_text(o, n, o_nl, n_nl, rnd):
    old, new = _text(o, o_nl), _text(n, n_nl)
    cur = new
    for _ in range(len(split_keepends(new)) + len(split_keepends(old)) + 2):
        d = diff_texts(old, cur, "f")
        if not d.hunks:
            break
        cur = revert_hunk(cur, rnd.choice(d.hunks))
    assert cur == old


@settings(max_examples=300, deadline=None)
@given(_lines, _lines, st.booleans(), st.booleans())
def test_reverting_one_hunk_leaves_the_other_hunks_as_in_new(o, n, o_nl, n_nl):
    old, new = _text(o, o_nl), _text(n, n_nl)
    d = diff_texts(old, new, "f")
    b = split_keepends(new)
    for h in d.hunks:
        out = split_keepends(revert_hunk(new, h))
        before, after = b[:h.new_start], b[h.new_start + h.new_count:]
        assert out[:len(before)] == before
        assert out[len(out) - len(after):] == after or not after
        # the hunk's own region now holds the old side
        assert out[len(before):len(out) - len(after)] == [x.text for x in h.lines if x.kind != "+"]
        # every other hunk's changed lines are still there, unchanged
        for other in d.hunks:
            if other is not h:
                for x in other.lines:
                    if x.kind == "+":
                        assert b[x.new_no - 1] == x.text
                        if x.new_no - 1 < h.new_start:
                            assert out[x.new_no - 1] == x.text
                        else:
                            assert out[x.new_no - 1 - h.new_count + h.old_count] == x.text
