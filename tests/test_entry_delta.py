"""The incremental entry diff (engine/entry_delta.py) gives exactly what removed_entries gives on the
whole texts: proven on generated markdown with every construct that reads across lines (fences,
front matter, HTML blocks, setext underlines, lazy and indented continuations, nested items)."""

from hypothesis import given, settings, strategies as st

from engine.entries import parse_blocks, removed_entries
from engine.entry_delta import changes, parse, removals, reparse, step

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


@settings(max_examples=3000, deadline=None)
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
