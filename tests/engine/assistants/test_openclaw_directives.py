"""USER.md's directives as OpenClaw's user model writes them (issue 28 item 4): observed date,
status, text and lines, a superseded one linked to the directive right after it when that can be
its replacement, and every line that does not read said in words, on the fixture homes built by
the real OpenClaw 2026.9.6 and on hand-built files. The convention is quoted in
engine/assistants/openclaw_directives.py (no OpenClaw code reads these lines)."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import tree_state
from dreamdesk.engine.assistants.openclaw_directives import (ACTIVE, BY_POSITION, SUPERSEDED, parse_directives,
                                                             read_directives)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"


def user_md(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    shutil.copytree(FIXTURES / name / "home" / "workspace", ws)
    return ws / "USER.md"


def rows(result) -> list[tuple]:
    return [(d.observed, d.status, d.text, d.start + 1, d.end, d.replaced_by, d.replaces) for d in result.directives]


def test_the_dreamed_homes_directives_with_the_superseded_one_beside_its_replacement(tmp_path):
    path = user_md(tmp_path, "dreamed")
    before = tree_state(path.parent)
    result = read_directives(path)
    assert rows(result) == [
        ("2026-11-30", SUPERSEDED, "- Prefer coffee with every morning check-in.", 5, 7, 1, None),
        ("2026-12-04", ACTIVE, "- Prefer green tea; never suggest coffee after noon.", 9, 11, None, 0),
        ("2026-12-03", ACTIVE, "- Always give the command first, then one line of explanation.", 13, 15, None, None)]
    assert result.directives[0].replacement_why == BY_POSITION
    assert all(d.heading == "## Directives" and d.known_status for d in result.directives)
    assert str(result.directives[1].date) == "2026-12-04"
    assert (result.unmarked, result.problems) == ((), ())
    assert tree_state(path.parent) == before                   # reading wrote nothing


def test_the_fresh_homes_template_has_one_placeholder_and_an_example_in_a_code_block(tmp_path):
    result = read_directives(user_md(tmp_path, "fresh"))
    # the ```md example at the top is an example, not a directive; the placeholder under ## Directives is one
    assert rows(result) == [("YYYY-MM-DD", ACTIVE, "- Prefer ...", 23, 25, None, None)]
    assert result.directives[0].date is None
    assert result.problems == ("USER.md line 23: the template's placeholder date, still active (the template says "
                               "never to leave one active)",)
    assert result.unmarked[0].text == "Store stable user preferences and profile facts as directives that can guide " \
                                      "future sessions."
    assert any(e.kind == "code" for e in result.unmarked)


def test_a_replacement_is_not_guessed_when_it_cannot_be_one(tmp_path):
    result = read_directives(user_md(tmp_path, "over-cap"))
    assert len(result.directives) == 30 and result.problems == ()
    superseded = {d.text[9:16]: d for d in result.directives if d.status == SUPERSEDED}
    assert set(superseded) == {"rule 06", "rule 12", "rule 18", "rule 24", "rule 30"}
    # rule 07, right after rule 06, was observed later: it is the replacement
    assert result.directives[superseded["rule 06"].replaced_by].text.startswith("- Prefer rule 07")
    # rule 13 was observed (2026-11-30) before rule 12 (2026-12-01): no replacement can be told
    assert superseded["rule 12"].replaced_by is None
    assert superseded["rule 12"].replacement_why == ("unknown: the directive after it (line 53) was observed earlier "
                                                     "(2026-11-30), and the file names no replacement")
    # the last one has nothing after it
    assert superseded["rule 30"].replacement_why.startswith("unknown: no directive follows it in its section")


def test_a_chain_of_supersessions_and_a_section_boundary():
    text = """# USER.md

## Drinks

<!-- observed: 2026-01-01 | status: superseded -->

- Prefer coffee.

<!-- observed: 2026-02-01 | status: superseded -->

- Prefer black tea.

<!-- observed: 2026-03-01 | status: active -->

- Prefer green tea.

<!-- observed: 2026-03-02 | status: superseded -->

- Prefer short answers.

## Style

<!-- observed: 2026-04-01 | status: active -->

- Prefer long answers.
"""
    result = parse_directives(text)
    assert [(d.replaced_by, d.replaces) for d in result.directives] == [(1, None), (2, 0), (None, 1), (None, None),
                                                                        (None, None)]
    # the next directive sits in another section: not its replacement
    assert result.directives[3].replacement_why.startswith("unknown: no directive follows it in its section")


def test_crlf_and_a_byte_order_mark_read_like_plain_lf(tmp_path):
    text = ("# USER.md\n\n## Directives\n\n<!-- observed: 2026-12-04 | status: superseded -->\n\n- Prefer coffee.\n\n"
            "<!-- observed: 2026-12-05 | status: active -->\n\n- Prefer tea.\n")
    plain = parse_directives(text).to_json()
    path = tmp_path / "USER.md"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    assert read_directives(path).to_json() == plain
    assert [d["text"] for d in plain["directives"]] == ["- Prefer coffee.", "- Prefer tea."]


def test_a_metadata_comment_split_over_lines_is_kept_as_text_and_said():
    text = ("## Directives\n\n<!-- observed: 2026-12-01 | status: active -->\n\n- Prefer tea.\n\n"
            "<!-- observed: 2026-12-02\n| status: active -->\n\n- Never page on weekends.\n")
    result = parse_directives(text)
    # only the first reads; the entry after the split comment belongs to no directive
    assert rows(result) == [("2026-12-01", ACTIVE, "- Prefer tea.", 3, 5, None, None)]
    assert [e.text for e in result.unmarked] == ["<!-- observed: 2026-12-02\n| status: active -->",
                                                 "- Never page on weekends."]
    assert result.problems == ("USER.md lines 7–8: a metadata comment split over lines (OpenClaw's form is one "
                               "line); kept as text, not read as a directive",)


def test_an_unknown_status_a_bad_date_and_a_comment_with_nothing_after_it():
    text = ("<!-- observed: 2026-12-01 | status: Paused -->\n\n- Prefer tea.\n\n"
            "<!-- observed: 2026-02-30 | status: ACTIVE -->\n\n- Prefer jasmine tea.\n\n"
            "<!-- observed: 2026-12-03 | status: active -->\n\n## Next\n\n"
            "<!-- observed: 2026-12-04 status: active -->\n")
    result = parse_directives(text, "users/alice/USER.md")
    assert [(d.status, d.known_status, str(d.date)) for d in result.directives] == [
        ("paused", False, "2026-12-01"), (ACTIVE, True, "None"), (ACTIVE, True, "2026-12-03")]
    assert result.problems == (
        "users/alice/USER.md line 13: a metadata comment that does not read as <!-- observed: YYYY-MM-DD | status: "
        "active|superseded -->; kept as text, not read as a directive",
        "users/alice/USER.md line 1: unknown status 'Paused' (OpenClaw's user model uses only active and superseded)",
        "users/alice/USER.md line 5: observed '2026-02-30' is no date (YYYY-MM-DD)",
        "users/alice/USER.md line 9: a metadata comment with no directive after it")


def test_an_emoji_and_several_entries_under_one_comment():
    text = "<!-- observed: 2026-12-01 | status: active -->\n\n- Prefer 🍵 over ☕.\n- Prefer short answers.\n"
    (d,) = parse_directives(text).directives
    assert d.text == "- Prefer 🍵 over ☕.\n\n- Prefer short answers." and (d.start, d.end) == (0, 4)
    assert d.problems == ("USER.md line 1: 2 entries under one metadata comment (the convention is one directive "
                          "each)",)


def test_an_absent_file_has_no_directives_and_json(tmp_path):
    assert read_directives(tmp_path / "USER.md").to_json() == {"name": "USER.md", "directives": [], "unmarked": [],
                                                              "problems": []}
    text = "# U\n\n<!-- observed: 2026-12-01 | status: superseded -->\n- Prefer A.\n" \
           "<!-- observed: 2026-12-02 | status: active -->\n- Prefer B.\n"
    first, second = parse_directives(text).to_json()["directives"]
    assert first == {"observed": "2026-12-01", "date": "2026-12-01", "status": SUPERSEDED, "known_status": True,
                     "text": "- Prefer A.", "heading": "# U", "start_line": 3, "end_line": 4, "replaced_by": 1,
                     "replaces": None, "replacement_why": BY_POSITION, "problems": []}
    assert (second["replaces"], second["start_line"], second["end_line"]) == (0, 5, 6)
