"""engine/assistants/hermes_memory.py reads, counts, guards and renders Hermes's memory files as
Hermes 0.19.0 does: against the fixture homes Hermes built (their oracles are Hermes's own
answers) and hand-built edge cases whose expected values were measured on Hermes's code (the
interop suite asks Hermes the same questions: tests/interop/hermes/test_hermes_memory_interop.py)."""

from __future__ import annotations

import pytest

from dreamdesk.engine.assistants import hermes_memory as hm
from interop.hermes.homes import RECIPES
from interop.hermes.oracles import load

HOMES = tuple(RECIPES)


def files(name: str) -> dict[str, hm.MemoryFile]:
    mem = load(name)["home"] / "memories"
    return {t: hm.MemoryFile.from_bytes(t, (mem / hm.FILE_NAMES[t]).read_bytes())
            for t in hm.TARGETS if (mem / hm.FILE_NAMES[t]).exists()}


# -- against the fixtures ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", HOMES)
def test_entries_and_sizes_as_hermes_read_them(name):
    read = load(name)["oracle"]["read"]
    found = files(name)
    for t in hm.TARGETS:
        f = found.get(t)
        assert (f.entries if f else []) == read[t]["entries"]
        assert (f.chars if f else 0) == read[t]["chars"]


@pytest.mark.parametrize("name", HOMES)
def test_every_file_hermes_wrote_round_trips_byte_for_byte(name):
    guard = load(name)["oracle"]["guard"]
    mem = load(name)["home"] / "memories"
    for t, f in files(name).items():
        data = (mem / f.name).read_bytes()
        assert hm.round_trips(f.text) == guard[t]["round_trips"]
        if not load(name)["manifest"]["hand_edits"]:
            assert f.canonical() == data == hm.serialize(f.entries)


@pytest.mark.parametrize("name", HOMES)
def test_the_guard_refuses_where_hermes_refused(name):
    guard, limits = load(name)["oracle"]["guard"], load(name)["oracle"]["read"]["limits"]
    for t, f in files(name).items():
        v = hm.verdict(f, limits[t])
        assert v.refuses_rewrite == guard[t]["refused"], [x.words for x in v.findings]


@pytest.mark.parametrize("name", HOMES)
def test_the_prompt_block_is_hermes_s(name):
    f, read = files(name), load(name)["oracle"]["read"]
    empty = hm.MemoryFile("memory", "")
    for t in hm.TARGETS:
        assert hm.render_block(t, f.get(t, empty).entries, read["limits"][t]) == (read[t]["block"] or "")
    prompt = hm.prompt_block(f.get("memory", empty).entries, f.get("user", empty).entries, read["limits"])
    assert prompt == load(name)["oracle"]["prompt"]


def test_over_limit_verdicts_name_the_entries():
    f = files("over-limit")
    mem = hm.verdict(f["memory"], 2200)
    assert [(x.kind, x.entry) for x in mem.findings] == [(hm.ENTRY_OVER_LIMIT, 3), (hm.OVER_LIMIT, None)]
    assert mem.findings[0].words.startswith("MEMORY.md: entry 3 (The lease's § 4.2 caps rent increases a…) "
                                            "is 3,824 characters, more than the whole file's limit of 2,200")
    user = hm.verdict(f["user"], 1375)
    assert [(x.kind, x.entry) for x in user.findings] == [(hm.ROUND_TRIP, 2), (hm.INVISIBLE_CHARACTER, 3)]
    assert "entry 2 (Timezone Europe/Paris; works 9:00–17:30…) has blank lines or spaces after it" in user.findings[0].words
    assert "U+200D zero width joiner" in user.findings[1].words


def test_configured_memory_is_over_its_limit_but_not_refused():
    v = hm.verdict(files("configured")["memory"], 1800)
    assert [x.kind for x in v.findings] == [hm.OVER_LIMIT] and not v.refuses_rewrite
    assert v.findings[0].words.startswith("MEMORY.md holds 2,055 characters, over its limit of 1,800")


# -- hand-built edge cases ------------------------------------------------------------------------
@pytest.mark.parametrize("data, want", [
    (b"", []), (b"  \n\n", []), (b"one", ["one"]), (b"one\n", ["one"]), (b"one\n\n\n", ["one"]),
    (b"a\n\xc2\xa7\nb", ["a", "b"]),                                  # the delimiter
    (b"a\r\n\xc2\xa7\r\nb\r\n", ["a", "b"]),                          # CRLF reads as LF
    (b"a\r\xc2\xa7\rb", ["a", "b"]),                                  # so does a lone CR
    (b"\xef\xbb\xbfa\n\xc2\xa7\nb", ["\ufeffa", "b"]),                # a BOM stays, in entry 1
    (b"\xc2\xa7", ["§"]), (b"\n\xc2\xa7\n", []),                      # a lone § / a bare delimiter
    (b"a \xc2\xa7 b\n\xc2\xa7b", ["a § b\n§b"]),                       # § not alone on its line
    (b"  a  \n\xc2\xa7\n  b  ", ["a", "b"]),                          # each entry stripped
    (b"a\n\xc2\xa7\na\n\xc2\xa7\nb", ["a", "b"]),                     # a repeat is read once
    ("x 😀\u200dy".encode(), ["x 😀\u200dy"]),
])
def test_entries_edge_cases(data, want):
    assert hm.MemoryFile.from_bytes("memory", data).entries == want


def test_sizes_count_characters_not_bytes():
    assert hm.char_count(["😀", "é"]) == 5 and hm.char_count([]) == 0
    assert hm.room([], 10) == 10 and hm.room(["abc"], 10) == 4


@pytest.mark.parametrize("text, round_trips", [
    ("", True), ("a", True), ("\n\na\n§\nb\n\n", True), ("a\n\n§\nb", False), ("a\n§\n\nb", False),
    ("a \n§\nb", False), ("a\n§\n§\nb", True), ("a\n§\n\n§\nb", False), ("\n§\na", False), ("a\n§\n", False),
    ("§", True), ("\n§\n", False),
])
def test_round_trip(text, round_trips):
    assert hm.round_trips(text) == round_trips
    assert hm.verdict(hm.MemoryFile("user", text), 10**6).refuses_rewrite == (not round_trips)


def test_round_trip_findings_say_where():
    words = [f.words for f in hm.verdict(hm.MemoryFile("memory", "\n§\na\n§\n\n§\nb \n§\nc\n§\n"), 99).findings]
    assert words[0].startswith("MEMORY.md starts with a § line")
    assert words[1].startswith("MEMORY.md has two § lines with nothing between them, after entry 1")
    assert words[2].startswith("MEMORY.md: entry 2 (b) has blank lines or spaces after it")
    assert words[3].startswith("MEMORY.md ends with a § line")


def test_an_entry_exactly_at_the_limit_is_not_refused():
    assert not hm.verdict(hm.MemoryFile("memory", "x" * 100), 100).findings
    assert hm.verdict(hm.MemoryFile("memory", "x" * 101), 100).refuses_rewrite


def test_repeats_are_said_but_not_refused():
    v = hm.verdict(hm.MemoryFile("memory", "a\n§\nb\n§\na"), 100)
    assert [(f.kind, f.entry) for f in v.findings] == [(hm.REPEAT, 3)] and not v.refuses_rewrite
    assert hm.MemoryFile("memory", "a\n§\nb\n§\na").canonical() == b"a\n\xc2\xa7\nb"


def test_invisible_characters_hide_the_entry_from_the_prompt():
    bom = hm.MemoryFile.from_bytes("user", b"\xef\xbb\xbfName: Ada\n\xc2\xa7\nTZ Paris")
    assert [f.kind for f in hm.verdict(bom, 1375).findings] == [hm.INVISIBLE_CHARACTER]
    block = hm.render_block("user", bom.entries, 1375)
    assert block.splitlines()[3] == ("[BLOCKED: USER.md entry contained threat pattern(s): invisible_unicode_U+FEFF. "
                                     "Removed from system prompt; use memory(action=remove) to delete the original.]")
    assert hm.shown("memory", ["a\u202eb\u200bc"])[0].startswith(
        "[BLOCKED: MEMORY.md entry contained threat pattern(s): invisible_unicode_U+200B, invisible_unicode_U+202E.")
    assert hm.shown("memory", ["[BLOCKED: already\u200b"]) == ["[BLOCKED: already\u200b"]


@pytest.mark.parametrize("chars, limit, header", [
    (1124, 1800, "[62% — 1,124/1,800 chars]"), (29, 100, "[28% — 29/100 chars]"),    # 0.29 * 100 < 29
    (5000, 2200, "[100% — 5,000/2,200 chars]"), (5, 0, "[0% — 5/0 chars]"), (5, -1, "[0% — 5/-1 chars]"),
])
def test_the_percentage_is_truncated_and_capped(chars, limit, header):
    block = hm.render_block("memory", ["x" * chars], limit)
    assert block.splitlines()[1] == f"MEMORY (your personal notes) {header}"
    assert block.splitlines()[0] == block.splitlines()[2] == "═" * 46


def test_prompt_block_order_and_switches():
    both = hm.prompt_block(["m"], ["u"], {"memory": 10, "user": 10})
    assert both == ("═" * 46 + "\nMEMORY (your personal notes) [10% — 1/10 chars]\n" + "═" * 46 + "\nm\n\n"
                    + "═" * 46 + "\nUSER PROFILE (who the user is) [10% — 1/10 chars]\n" + "═" * 46 + "\nu")
    assert hm.prompt_block([], ["u"], {"memory": 10, "user": 10}) == hm.render_block("user", ["u"], 10)
    assert hm.prompt_block(["m"], ["u"], {"memory": 10, "user": 10}, {"user": False}) == hm.render_block("memory", ["m"], 10)
    assert hm.prompt_block([], [], {"memory": 10, "user": 10}) == ""


def test_bytes_that_are_not_utf8_are_refused():
    with pytest.raises(UnicodeDecodeError):
        hm.MemoryFile.from_bytes("memory", b"caf\xe9")
