"""The incremental entry diff (engine/text/entry_delta.py) gives exactly what removed_entries gives on the
whole texts: proven on generated markdown with every construct that reads across lines (fences,
front matter, HTML blocks, setext underlines, lazy and indented continuations, nested items)."""

from hypothesis import given, settings, strategies as st

from dreamdesk.engine.text.entries import parse_blocks, removed_entries
from dreamdesk.engine.text.entry_delta import changes, parse, removals, reparse, step
from dreamdesk.engine.text.flat_delta import Flat, advance, version

LINES = ["", "", "", "- likes tea", "- likes coffee", "* star item", "1. first", "2. second", "  continued",
         "    indented code", "lazy line", "## Preferences", "# Memory", "Setext", "---", "===", "```", "~~~",
         "> quoted", "<div>", "</div>", "<!-- note", "-->", "[ref]: /url", "- [durable] fact one",
         "- fact two", "- fact three", "\t- tabbed", "plain paragraph", "---", "***", "- ---", "* * *",
         "## C# notes", "- # heading item", "#NoSpace", "- ```", "- `code` span", "##  Spaced   out  ", "- a  ",
         "+ (aside)", "- 'quoted'"]

line = st.sampled_from(LINES)
doc = st.lists(line, max_size=30)


@st.composite
def edited(draw):
    old = draw(doc)
    new = list(old)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "append"]))
        i = draw(st.integers(0, len(new)))
        if op == "insert" or not new:
            new.insert(i, draw(line))
        elif op == "delete":
            del new[min(i, len(new) - 1)]
        elif op == "replace":
            new[min(i, len(new) - 1)] = draw(line)
        else:
            new += draw(st.lists(line, max_size=3))
    return "\n".join(old) + "\n", "\n".join(new) + "\n"


@settings(max_examples=600, deadline=None)    # 20,000 passed in a separate run
@given(edited())
def test_fast_path_equals_a_whole_parse(pair):
    old_text, new_text = pair
    old = parse(old_text)
    new = reparse(old, new_text)
    assert new == parse(new_text)                      # blocks, entries and headings, as a whole parse
    assert new.blocks == parse_blocks(new_text.split("\n"))
    gone, added = changes(old, new)
    assert gone == removals(old, new) == removed_entries(old_text, new_text)
    assert [e.text for e in added] == [r.entry.text for r in removed_entries(new_text, old_text)]
    assert step(old, new_text) == (new, gone, added)   # the stretch-only comparison agrees


def test_an_edit_far_from_a_fence_reuses_the_blocks_and_a_new_fence_is_seen():
    old_text = "# Memory\n\n- a\n\n```\ncode\n```\n\n- b\n\n- c\n"
    old = parse(old_text)
    new = reparse(old, old_text.replace("- c", "- c2"))
    assert new.blocks[:3] == old.blocks[:3]             # the blocks above were not parsed again
    assert [r.entry.text for r in removals(old, new)] == ["- c"]
    fenced_text = old_text.replace("- b", "```\n- b")        # an opened fence swallows the rest
    fenced = reparse(old, fenced_text)
    assert [r.entry.text for r in removals(old, fenced)] == ["- b", "- c"]
    assert removals(old, fenced) == removed_entries(old_text, fenced_text)


# Mostly flat lines (one-line items, ATX headings, empty lines) with twins, and a few that make a
# version stop being flat (and start again), as a history of nanobot's edits goes.
FLAT = ["", "", "", "- likes tea", "- likes tea", "- likes coffee", "* star item", "+ (aside)", "- 'quoted'",
        "- a  ", "## Preferences", "## Preferences", "# Memory", "##  Spaced   out  ", "- [durable] fact one",
        "- fact two", "- fact three", "- 1. numbered inside", "## C# notes", "- ## Habits fact 4", "- #tag",
        "- #"]
SOME = FLAT * 4 + ["```", "lazy line", "---", "  continued", "- `code` span", "#NoSpace", "- # heading item",
                   "\t- tabbed", "1. first", "  "]


@st.composite
def histories(draw):
    lines = draw(st.lists(st.sampled_from(SOME), max_size=30))
    texts = ["\n".join(lines) + "\n"]
    for _ in range(draw(st.integers(1, 6))):
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(lines)))
            op = draw(st.sampled_from(["insert", "delete", "replace"]))
            if op == "insert" or not lines:
                lines.insert(i, draw(st.sampled_from(SOME)))
            elif op == "delete":
                del lines[min(i, len(lines) - 1)]
            else:
                lines[min(i, len(lines) - 1)] = draw(st.sampled_from(SOME))
        texts.append("\n".join(lines) + "\n")
    return texts


@settings(max_examples=500, deadline=None)    # 15,000 passed in a separate run
@given(histories())
def test_flat_versions_advance_as_a_whole_parse_reads_them(texts):
    v = version(texts[0])
    for old_text, new_text in zip(texts, texts[1:]):
        v, gone, added = advance(v, new_text)
        assert (v.parsed() if isinstance(v, Flat) else v) == parse(new_text)
        assert gone == removed_entries(old_text, new_text)
        assert [e.text for e in added] == [r.entry.text for r in removed_entries(new_text, old_text)]


def test_a_flat_version_keeps_lines_only_and_a_fence_makes_it_parsed():
    text = "# Memory\n\n## Homelab\n- NAS in the attic\n- Runs Proxmox\n"
    v = version(text)
    assert isinstance(v, Flat) and v.parsed() == parse(text)
    v, gone, added = advance(v, text.replace("- Runs Proxmox\n", "- Runs Proxmox 8\n"))
    assert isinstance(v, Flat)
    assert [(r.entry.heading, r.entry.text, r.replaced_by) for r in gone] == \
        [("## Homelab", "- Runs Proxmox", "- Runs Proxmox 8")]
    fenced, gone, _ = advance(v, text.replace("- NAS", "```\n- NAS"))
    assert not isinstance(fenced, Flat) and [r.entry.text for r in gone] == ["- NAS in the attic", "- Runs Proxmox 8"]
