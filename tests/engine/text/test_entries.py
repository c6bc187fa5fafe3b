"""Markdown entries: what the archive keeps (split), what left a file (removed_entries), and
putting an entry back (insert_entry)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdesk.engine.text.entries import _heading_lines, dedent_entry, insert_entry, removed_entries, split_entries


USER = """\
# User

## Identity
- Inès Marchetti, 37. Grew up in Grenoble; has lived in Ghent since 2019, in a terraced
  house in Gentbrugge whose attic is being converted into her office.
- Senior data engineer at Parcelwise.

## Preferences
1. Answer first, reasoning after.
2) Metric units, 24-hour clock.
10. Python with uv and ruff;
    never Poetry.

Joris cooks on weekdays,
Inès at the weekend.

```fish
# not a heading: a comment in a code block
- not an item either
```

- Sunday afternoon is board-game time.
"""


def texts(entries):
    return [e.text for e in entries]


# -- split_entries ------------------------------------------------------------------------------
def test_split_items_with_continuation_lines_and_headings():
    es = split_entries(USER)
    first = "- Inès Marchetti, 37. Grew up in Grenoble; has lived in Ghent since 2019, in a terraced"
    assert [(e.heading, e.kind, e.text) for e in es[:2]] == [
        ("## Identity", "item", first + "\n  house in Gentbrugge whose attic is being converted into her office."),
        ("## Identity", "item", "- Senior data engineer at Parcelwise."),
    ]
    # line positions let the GUI highlight the block
    lines = USER.split("\n")
    assert lines[es[0].start] == first
    assert es[0].end - es[0].start == 2


def test_split_numbered_items_paragraphs_and_code_blocks():
    es = [e for e in split_entries(USER) if e.heading == "## Preferences"]
    assert [(e.kind, e.text) for e in es] == [
        ("item", "1. Answer first, reasoning after."),
        ("item", "2) Metric units, 24-hour clock."),
        ("item", "10. Python with uv and ruff;\n    never Poetry."),
        ("paragraph", "Joris cooks on weekdays,\nInès at the weekend."),
        ("code", "```fish\n# not a heading: a comment in a code block\n- not an item either\n```"),
        ("item", "- Sunday afternoon is board-game time."),
    ]
    # the comment inside the fence did not become the heading of what follows
    assert all(e.heading != "# not a heading: a comment in a code block" for e in split_entries(USER))


def test_split_headings_blank_lines_and_trailing_spaces():
    text = "intro line\n\n# Top\n\n### Deep   \n- a   \n\n\n- b\n#hashtag is text\n"
    es = split_entries(text)
    assert [(e.heading, e.text) for e in es] == [
        (None, "intro line"),
        ("### Deep", "- a"),
        ("### Deep", "- b\n#hashtag is text"),
    ]
    assert split_entries("") == []
    assert split_entries("\n\n## Only a heading\n\n") == []


def test_u2028_is_not_a_line_break_in_entries():
    es = split_entries("- a\u2028b\n- c\u0085d\n")
    assert texts(es) == ["- a\u2028b", "- c\u0085d"]


# -- removed_entries ----------------------------------------------------------------------------
def test_removed_entries_exactly_the_ones_that_left():
    old = "## A\n- one\n- two\n- three\n\n## B\n- four\n"
    new = "## A\n- one\n- three\n\n## B\n"
    gone = removed_entries(old, new)
    assert [(r.entry.text, r.entry.heading, r.replaced_by) for r in gone] == [
        ("- two", "## A", None), ("- four", "## B", None)]
    assert removed_entries(old, old) == []
    assert removed_entries("", old) == []
    assert texts(r.entry for r in removed_entries(old, "")) == ["- one", "- two", "- three", "- four", "## A", "## B"]


def test_a_removed_heading_is_an_entry_that_left():
    # a heading can carry a fact; dropping or shortening it must reach the archive
    gone = removed_entries("# U\n\n## Medical: allergic to penicillin\n- a\n", "# U\n\n## Medical\n- a\n")
    assert [(r.entry.text, r.entry.kind, r.entry.heading) for r in gone] == [
        ("## Medical: allergic to penicillin", "heading", "# U")]
    assert removed_entries("## A\n- x\n", "## A\n- x\n- y\n") == []


def test_moving_an_entry_under_another_heading_is_not_a_removal():
    old = "## A\n- one\n- two\n\n## B\n- three\n"
    new = "## B\n- three\n- two\n\n## A\n- one\n"
    assert removed_entries(old, new) == []


def test_duplicates_count_as_a_multiset():
    old = "- tea\n- tea\n- coffee\n"
    gone = removed_entries(old, "- tea\n- coffee\n")
    assert texts(r.entry for r in gone) == ["- tea"]
    assert texts(r.entry for r in removed_entries(old, "- coffee\n")) == ["- tea", "- tea"]
    # one copy kept under another heading still counts as kept
    assert texts(r.entry for r in removed_entries(old, "## X\n- tea\n- coffee\n")) == ["- tea"]


def test_edited_entry_is_paired_with_its_replacement():
    old = "## Prefs\n- Likes green tea in the morning\n- Runs on Sundays\n\n## Work\n- Engineer at Parcelwise\n"
    new = "## Prefs\n- Likes green tea in the afternoon\n- Runs on Sundays\n\n## Work\n- Zookeeper\n"
    gone = removed_entries(old, new)
    assert [(r.entry.text, r.replaced_by) for r in gone] == [
        ("- Likes green tea in the morning", "- Likes green tea in the afternoon"),
        ("- Engineer at Parcelwise", "- Zookeeper"),   # other words, but it took that very place
    ]


def test_an_entry_added_elsewhere_is_not_a_replacement():
    """Pairing by place needs the same place: a removal and an addition at another spot of the
    same section, or two removals for one addition, stay unpaired."""
    old = "## Identity\n- Name: Ana\n- Lives in Lisbon\n- Has a cat\n"
    moved = "## Identity\n- Name: Ana\n- Has a cat\n- Likes jazz\n"
    assert [(r.entry.text, r.replaced_by) for r in removed_entries(old, moved)] == [("- Lives in Lisbon", None)]
    two = "## Identity\n- Works nights\n- Has a cat\n"
    assert [(r.entry.text, r.replaced_by) for r in removed_entries(old, two)] == [
        ("- Name: Ana", None), ("- Lives in Lisbon", None)]
    assert [(r.entry.text, r.replaced_by) for r in removed_entries(old, old.replace("Lisbon", "Braga"))] == [
        ("- Lives in Lisbon", "- Lives in Braga")]


def test_replacement_must_be_under_the_same_heading_and_is_used_once():
    old = "## A\n- likes tea a lot\n- likes tea a bit\n"
    new = "## A\n- likes tea a lot!\n\n## B\n- likes tea a bit!\n"
    gone = removed_entries(old, new)
    assert [(r.entry.text, r.replaced_by) for r in gone] == [
        ("- likes tea a lot", "- likes tea a lot!"),
        ("- likes tea a bit", None),
    ]


# -- insert_entry -------------------------------------------------------------------------------
def test_insert_item_joins_its_sections_list():
    text = "## A\n- one\n- two\n\n## B\n- three\n"
    out = insert_entry(text, "- back", "## A")
    assert out == "## A\n- one\n- two\n- back\n\n## B\n- three\n"
    assert [(e.heading, e.text) for e in split_entries(out)] == [
        ("## A", "- one"), ("## A", "- two"), ("## A", "- back"), ("## B", "- three")]


def test_insert_into_last_section_without_final_newline():
    out = insert_entry("## A\n- one", "- back\n  more", "## A")
    assert out == "## A\n- one\n- back\n  more\n"


def test_insert_paragraph_gets_its_own_block():
    out = insert_entry("## A\n- one\n## B\n- two\n", "A paragraph.", "## A")
    es = split_entries(out)
    assert [(e.heading, e.kind, e.text) for e in es] == [
        ("## A", "item", "- one"), ("## A", "paragraph", "A paragraph."), ("## B", "item", "- two")]


def test_insert_recreates_a_missing_heading_at_the_end():
    out = insert_entry("## B\n- two\n", "- back", "## A")
    assert out == "## B\n- two\n\n## A\n\n- back\n"
    assert [(e.heading, e.text) for e in split_entries(out)] == [("## B", "- two"), ("## A", "- back")]


def test_insert_into_an_empty_file():
    assert insert_entry("", "- back", "## A") == "## A\n\n- back\n"
    assert insert_entry("", "- back", None) == "- back\n"
    assert insert_entry("\n\n", "Para.", None) == "Para.\n"


def test_insert_without_heading_appends_to_the_trailing_list():
    assert insert_entry("- one\n", "- two", None) == "- one\n- two\n"
    assert insert_entry("Para.\n", "- two", None) == "Para.\n\n- two\n"


def test_insert_after_a_code_block_whose_comment_looks_like_a_heading():
    """A `# comment` inside a fenced block is not a heading: the entry goes after the block,
    and the code block is left intact."""
    text = "## Tools\n```bash\n# run it\nmake\n```\n- item\n\n## Other\n- o\n"
    out = insert_entry(text, "- new", "## Tools")
    es = split_entries(out)
    assert ("## Tools", "- new") in [(e.heading, e.text) for e in es]
    assert "```bash\n# run it\nmake\n```" in out
    assert out.index("- new") > out.index("- item")


# -- properties -----------------------------------------------------------------------------------
_words = st.sampled_from(["tea", "dark mode", "runs", "Ghent", "café ☕", "uv", "Pim"])
_item = st.builds(lambda w, cont: f"- {w}" + (f"\n  {cont}" if cont else ""), _words, st.none() | _words)
_para = st.builds(lambda a, b: f"{a} is\n{b}.", _words, _words)
_code = st.builds(lambda w: f"```sh\n# {w}\n- {w}\n```", _words)
_block = st.one_of(_item, _item, _item, _para, _code)
_heading = st.sampled_from(["## A", "## B", "### C", "# D"])


def _render(sections):
    parts = []
    for heading, blocks in sections:
        body = []
        for b in blocks:
            # consecutive items form one list; anything else stands apart with a blank line
            if body and not (b.startswith("- ") and body[-1].startswith("- ")):
                body.append("")
            body.append(b)
        parts.append("\n".join([heading, ""] + body))
    return "\n\n".join(parts) + "\n"


_docs = st.lists(st.tuples(_heading, st.lists(_block, max_size=4)), max_size=4, unique_by=lambda s: s[0])


@settings(max_examples=150, deadline=None)
@given(_docs, _item, _heading)
def test_insert_entry_keeps_every_entry_and_adds_one_under_its_heading(sections, item, heading):
    text = _render(sections)
    out = insert_entry(text, item, heading)
    before = Counter((e.heading, e.text) for e in split_entries(text))
    after = Counter((e.heading, e.text) for e in split_entries(out))
    before[(heading, item)] += 1
    assert after == before


@settings(max_examples=150, deadline=None)
@given(_docs, _docs)
def test_removed_entries_is_the_multiset_difference(a, b):
    old, new = _render(a), _render(b)
    gone = Counter(r.entry.text for r in removed_entries(old, new))

    def units(text):   # entries and heading lines, the things that can leave a file
        lines = text.split("\n")
        return Counter(texts(split_entries(text))) + Counter(lines[i].rstrip() for i in _heading_lines(lines))
    assert gone == units(old) - units(new)
    new_units = set(units(new))
    for r in removed_entries(old, new):
        assert r.replaced_by is None or r.replaced_by in new_units


def test_a_nested_item_belongs_to_its_parent():
    """Spec §3: an entry is a list item with its continuation lines; nested items are part of it."""
    text = "## Homelab\n- Proxmox on the NUC\n  - VM 101: Home Assistant\n  - VM 102: Pi-hole\n- Blog on Eleventy\n"
    entries = split_entries(text)
    assert [e.text for e in entries] == ["- Proxmox on the NUC\n  - VM 101: Home Assistant\n  - VM 102: Pi-hole",
                                         "- Blog on Eleventy"]
    gone = removed_entries(text, "## Homelab\n- Blog on Eleventy\n")
    assert [r.entry.text for r in gone] == [entries[0].text]          # one entry archived, children with it
    numbered = "1. Build\n2. Ask:\n   - wins\n   - slips\n3. Send\n"
    assert [e.text.split("\n")[0] for e in split_entries(numbered)] == ["1. Build", "2. Ask:", "3. Send"]


def test_an_entry_archived_while_nested_comes_back_as_an_entry_of_its_own():
    section = "## Homelab\n- Proxmox on the NUC\n- Blog on Eleventy\n"
    back = insert_entry(section, "  - VM 102: Pi-hole", "## Homelab")
    assert back == "## Homelab\n- Proxmox on the NUC\n- Blog on Eleventy\n- VM 102: Pi-hole\n"
    assert [e.text for e in split_entries(back)][-1] == "- VM 102: Pi-hole"     # not a child of the blog


def test_contains_entry_sees_a_child_still_under_its_parent():
    from dreamdesk.engine.text.entries import contains_entry
    text = "## Homelab\n- Proxmox on the NUC\n  - VM 102: Pi-hole\n"
    assert contains_entry(text, "  - VM 102: Pi-hole") and contains_entry(text, "- Proxmox on the NUC\n  - VM 102: Pi-hole")
    assert not contains_entry(text, "- VM 103: Gitea")


def test_a_formerly_nested_entry_restored_twice_is_inserted_once(make_workspace):
    from dreamdesk.engine.recovery.archive import append_records, plan_entry_restore
    from dreamdesk.engine.recovery.restore import restore_archive_entry
    from dreamdesk.engine.home.workspace import Workspace
    ws = Workspace.open(make_workspace({"USER.md": "# User\n\n## Homelab\n- Blog on Eleventy\n"}))
    (rec,) = append_records(ws, [{"file": "USER.md", "text": "  - VM 102: Pi-hole", "reason": "dream",
                                  "heading": "## Homelab"}])
    restore_archive_entry(ws, rec.id)
    assert not plan_entry_restore(ws, rec.id).inserted                       # already back: nothing to do
    assert (ws.root / "USER.md").read_text().count("VM 102") == 1


def test_an_entry_never_comes_back_inside_an_unclosed_code_block():
    section = "## A\n- keep\n```\n\n## B\n- b1\n"                # a fence nobody closed swallows "## B"
    back = insert_entry(section, "- gone", "## A")
    assert "- gone" in [e.text for e in split_entries(back)]         # an entry, not code text
    assert back.index("- gone") < back.index("```")
    tail = insert_entry("# Notes\n- x\n```\ncode\n", "- back", "## Gone heading")
    assert "- back" in [e.text for e in split_entries(tail)] and tail.endswith("```\ncode\n")


# -- CommonMark blocks (issue 11 item 8) -----------------------------------------------------------
def test_a_backtick_fence_is_closed_only_by_backticks():
    """CommonMark: a fence closes with the same character, at least as many, no info string. A `~~~`
    line inside a ``` block is code, so the `# comment` after it is no heading and the real closing
    fence does not swallow the next item."""
    text = "## Tools\n```sh\n~~~\n# build it\nmake\n```\n- next item\n"
    assert [(e.heading, e.kind, e.text) for e in split_entries(text)] == [
        ("## Tools", "code", "```sh\n~~~\n# build it\nmake\n```"),
        ("## Tools", "item", "- next item"),
    ]
    # shorter, or with an info string: not a closing fence either; unclosed runs to the end
    longer = "````\n```\n``` not closing\n# still code\n````\n\nPara.\n"
    assert [(e.kind, e.text) for e in split_entries(longer)] == [
        ("code", "````\n```\n``` not closing\n# still code\n````"), ("paragraph", "Para.")]
    assert [(e.heading, e.kind) for e in split_entries("# A\n~~~\n# x\n```\n- y\n")] == [("# A", "code")]
    assert _heading_lines(text.split("\n")) == [0]


def test_an_archived_entry_after_a_tilde_line_in_code_comes_back_after_the_code():
    text = "## Tools\n```sh\n~~~\n# build it\n```\n- keep\n\n## Other\n- o\n"
    out = insert_entry(text, "- back", "## Tools")
    assert [(e.heading, e.text) for e in split_entries(out)] == [
        ("## Tools", "```sh\n~~~\n# build it\n```"), ("## Tools", "- keep"), ("## Tools", "- back"),
        ("## Other", "- o")]


SETEXT = "Identity\n========\n- Inès, 37.\n\nPreferences\n-----------\n- Tea.\n- Metric units.\n\nNotes\n"


def test_setext_headings_are_headings_recorded_as_written():
    es = split_entries(SETEXT)
    assert [(e.heading, e.text) for e in es] == [
        ("Identity\n========", "- Inès, 37."),
        ("Preferences\n-----------", "- Tea."), ("Preferences\n-----------", "- Metric units."),
        ("Preferences\n-----------", "Notes"),
    ]
    assert _heading_lines(SETEXT.split("\n")) == [0, 4]
    # `---` under a paragraph makes it a heading; `* * *` and a `---` after a blank line are breaks
    text = "Para\n---\n- a\n\n* * *\n\n---\n- b\n"
    assert [(e.heading, e.text) for e in split_entries(text)] == [("Para\n---", "- a"), ("Para\n---", "- b")]


def test_insert_entry_finds_a_setext_heading_and_recreates_it_when_gone():
    out = insert_entry(SETEXT, "- Runs on Sundays.", "Identity\n========")
    assert out == SETEXT.replace("- Inès, 37.\n", "- Inès, 37.\n- Runs on Sundays.\n")
    gone = insert_entry("# User\n- x\n", "- Tea.", "Preferences\n-----------")
    assert gone == "# User\n- x\n\nPreferences\n-----------\n\n- Tea.\n"
    assert split_entries(gone)[-1].heading == "Preferences\n-----------"
    # the same heading written another way (ATX, a longer underline) is found, not duplicated
    for other in ("## Preferences", "Preferences\n---"):
        back = insert_entry(SETEXT, "- Dark mode.", other)
        assert ("Preferences\n-----------", "- Dark mode.") in [(e.heading, e.text) for e in split_entries(back)]
        assert back.count("Preferences") == 1


# -- property: entries are the top-level CommonMark blocks ------------------------------------------
_cm_words = st.sampled_from(["tea", "dark mode", "Ghent", "café ☕", "uv", "#tag", "Pim 2", "x ~~~", "a `b`"])
_cm_line = st.lists(_cm_words, min_size=1, max_size=3).map(" ".join)
_cm_heading = st.one_of(
    st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 6), _cm_line),
    st.builds(lambda t, c, n: t + "\n" + c * n, _cm_line, st.sampled_from("=-"), st.integers(1, 5)))
_cm_para = st.lists(_cm_line, min_size=1, max_size=2).map("\n".join)


@st.composite
def _cm_list(draw):
    marker = draw(st.sampled_from(["-", "*", "+", "1.", "3)"]))
    pad = " " * (len(marker) + 1)
    items = []
    for _ in range(draw(st.integers(1, 3))):
        lines = [f"{marker} {draw(_cm_line)}"]
        if draw(st.booleans()):
            lines.append(pad + draw(_cm_line))                      # a continuation line
        for _ in range(draw(st.integers(0, 2))):
            lines.append(f"{pad}- {draw(_cm_line)}")                 # nested items
        items.append("\n".join(lines))
    return "\n".join(items)


@st.composite
def _cm_fence(draw):
    fence = draw(st.sampled_from("`~")) * draw(st.integers(3, 4))
    body = draw(st.lists(st.sampled_from(["# comment", "## not a heading", "~~~", "```", "````", "- no item",
                                          "plain", "", "Title", "---"]), max_size=4))
    close = draw(st.sampled_from(["", fence, fence + fence[0], fence + " not closing"]))
    return "\n".join([fence + draw(st.sampled_from(["", "sh"]))] + body + ([close] if close else []))


_cm_block = st.one_of(_cm_para, _cm_list(), _cm_list(), _cm_fence(), _cm_heading,
                      st.sampled_from(["* * *", "---", "___"]))
_cm_docs = st.builds(lambda blocks, gaps: "".join(b + "\n" + "\n" * g for b, g in zip(blocks, gaps)),
                     st.lists(_cm_block, max_size=8), st.lists(st.integers(0, 2), min_size=8, max_size=8)
                     ).filter(lambda t: not t.startswith("---\n"))     # YAML front matter: not CommonMark's


def _commonmark_blocks(text):
    """What markdown-it (full CommonMark, inline parsing on) reports: top-level blocks, the items
    of a top-level list, each with the heading as written above it; trailing blank lines left out."""
    from markdown_it import MarkdownIt
    lines = text.split("\n")
    out, heading = [], None
    for tok in MarkdownIt("commonmark").parse(text):
        if tok.map is None or not ((tok.level == 0 and not tok.type.endswith("list_open"))
                                   or (tok.level == 1 and tok.type == "list_item_open")):
            continue
        start, end = tok.map
        while end > start and not lines[end - 1].strip():
            end -= 1
        if tok.type == "heading_open":
            heading = "\n".join(line.strip() for line in lines[start:end])
        elif tok.type != "hr":
            out.append((heading, start, end))
    return out


@settings(max_examples=150, deadline=None)
@given(_cm_docs)
def test_entries_are_the_top_level_commonmark_blocks(text):
    es = split_entries(text)
    assert [(e.heading, e.start, e.end) for e in es] == _commonmark_blocks(text)
    lines = text.split("\n")
    assert all(e.text == "\n".join(line.rstrip() for line in lines[e.start:e.end]) for e in es)


@settings(max_examples=100, deadline=None)
@given(_cm_docs, st.integers(0, 50))
def test_an_entry_taken_out_comes_back_under_its_heading(text, pick):
    es = split_entries(text)
    if not es:
        return
    e = es[pick % len(es)]
    lines = text.split("\n")
    out = insert_entry("\n".join(lines[:e.start] + lines[e.end:]), e.text, e.heading)
    back = [(x.heading, x.text) for x in split_entries(out)]
    text = dedent_entry(e.text)  # it comes back at the section's own indentation
    if e.heading is None:        # no heading: it goes at the end, under whatever section ends the file
        assert text in [t for _, t in back]
    else:
        assert (e.heading, text) in back


def test_crlf_and_a_lone_cr_keep_line_numbers():
    """A CRLF's \r is part of the line ending; a lone \r inside a line does not start a new one."""
    text = "- b\rstill b\r\n## A\r\n- a\r\n  more\r\n\r\n```\r\n# c\r\n```\r\n"
    es = split_entries(text)
    assert [(e.heading, e.text, e.start, e.end) for e in es] == [
        (None, "- b\rstill b", 0, 1), ("## A", "- a\n  more", 2, 4), ("## A", "```\n# c\n```", 5, 8)]


def test_a_code_block_nobody_closed_comes_back_only_where_it_swallows_nothing():
    text = "## A\n- a\n\n## B\n- b\n"
    out = insert_entry(text, "```\ncode", "## A")
    assert out == text + "\n## A\n\n```\ncode\n"       # never over "## B": the heading is written again
    assert [(e.heading, e.text) for e in split_entries(out)][-1] == ("## A", "```\ncode")
    twice = "# tea\n- tea\n# tea\n"
    assert insert_entry(twice, "```", "# tea") == twice + "\n```\n"     # the later section of that name


def test_quotes_html_and_reference_definitions_are_entries():
    text = "## A\n> quoted\n> # not a heading\n\n<!-- a note -->\n\n[docs]: https://example.org\n\n    indented code\n"
    assert [(e.heading, e.kind, e.text) for e in split_entries(text)] == [
        ("## A", "quote", "> quoted\n> # not a heading"), ("## A", "html", "<!-- a note -->"),
        ("## A", "reference", "[docs]: https://example.org"), ("## A", "code", "    indented code")]
    # one that leaves is archived like any entry
    gone = removed_entries(text, text.replace("[docs]: https://example.org\n", ""))
    assert [(r.entry.kind, r.entry.text) for r in gone] == [("reference", "[docs]: https://example.org")]


def test_indented_code_comes_back_as_code_where_no_item_takes_it():
    """Its indentation is what makes it code, so it is kept; after a list item it would be that
    item's continuation, so it goes right under the heading."""
    out = insert_entry("## A\n- item\n", "    make build\n    make test", "## A")
    assert out == "## A\n\n    make build\n    make test\n\n- item\n"
    assert [(e.kind, e.text) for e in split_entries(out)] == [("code", "    make build\n    make test"),
                                                              ("item", "- item")]
    assert insert_entry("## A\nPara.\n", "  - VM 102", "## A") == "## A\nPara.\n\n- VM 102\n"   # an item is dedented


def test_one_parse_per_text(monkeypatch):
    from dreamdesk.engine.text import entries
    calls = []
    parse = entries._MD.parse
    monkeypatch.setattr(entries._MD, "parse", lambda src, *a: calls.append(src) or parse(src, *a))
    old = "".join(f"## H{i}\n- item {i}\n\n" for i in range(200))
    new = old.replace("- item 7\n", "")
    assert [r.entry.text for r in removed_entries(old, new)] == ["- item 7"]
    assert len(calls) == 2          # old and new, each once, though both are split and their headings read
    split_entries(new)
    assert len(calls) == 2


@settings(max_examples=100, deadline=None)
@given(st.text(st.sampled_from("-*+1.)#=~`> \t\r\n\u2028x"), max_size=60), st.text(max_size=20))
def test_any_text_splits_into_valid_ranges_and_takes_an_entry_back(text, extra):
    lines = text.split("\n")
    es = split_entries(text)
    assert all(0 <= e.start < e.end <= len(lines) for e in es)
    assert all(a.end <= b.start for a, b in zip(es, es[1:]))
    insert_entry(text, extra or "x", "## A")        # no crash on any input


def test_yaml_front_matter_is_one_entry_as_nanobot_reads_a_skill():
    """Not CommonMark (there: a break, then a setext heading), but how nanobot reads SKILL.md."""
    text = "---\nname: blog\ndescription: Publish it.\n---\n\n# Blog\n\n1. Build.\n"
    assert [(e.heading, e.kind, e.text) for e in split_entries(text)] == [
        (None, "front matter", "---\nname: blog\ndescription: Publish it.\n---"), ("# Blog", "item", "1. Build.")]
    assert _heading_lines(text.split("\n")) == [5]
    # only at the very top, and only with a closing line and something between
    assert [e.kind for e in split_entries("\n---\nname: x\n---\n")] == []
    assert [e.kind for e in split_entries("---\n---\n- a\n")] == ["item"]
