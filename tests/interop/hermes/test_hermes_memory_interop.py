"""engine/assistants/hermes_memory.py against Hermes's own MemoryStore, file by file: the entries
it reads, the size it counts, the prompt block it renders, whether its write guard refuses to
rewrite the file and whether the file round-trips; on the hand-built edge cases and on 200 files
put together from the pieces that matter (delimiters, blank lines, CR, BOM, `§`, emoji,
invisible characters). Then what Dreamdesk writes, Hermes reads back and keeps working on."""

from __future__ import annotations

import json
import random
import re

import pytest

from dreamdesk.engine.assistants import hermes_memory as hm

EDGES = [b"", b"  \n\n", b"one", b"one\n", b"a\n\xc2\xa7\nb", b"a\r\n\xc2\xa7\r\nb\r\n", b"a\r\xc2\xa7\rb",
         b"\xef\xbb\xbfa\n\xc2\xa7\nb", b"\xc2\xa7", b"\n\xc2\xa7\n", b"a \xc2\xa7 b\n\xc2\xa7b",
         b"  a  \n\xc2\xa7\n  b  ", b"a\n\xc2\xa7\na\n\xc2\xa7\nb", "x 😀\u200dy".encode(), b"a\n\n\xc2\xa7\nb",
         b"a\n\xc2\xa7\n\n\xc2\xa7\nb", b"\n\xc2\xa7\na", b"a\n\xc2\xa7\n", b"x" * 101, b"caf\xe9",
         "a\u202eb\u200bc\n§\nd".encode(), ("y" * 40 + "\n§\n") .encode() * 3]
PIECES = ["a", "entry", "é", "😀", "§", " § ", "\n", "\n\n", "\r\n", "\r", " ", "\t", "\n§\n", "\n§\n",
          "\u200d", "\ufeff", "x" * 30, "[BLOCKED: old]"]


def assembled(n: int, seed: int = 30) -> list[bytes]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 12))).encode() for _ in range(n)]


def findings_sorted(answer: dict) -> dict:
    """Hermes lists an entry's invisible characters in a set's order, which changes from one of
    its runs to the next (string hashing is randomized): compare them as a set."""
    block = answer.get("block")
    if block:
        answer = answer | {"block": re.sub(r"(?<=threat pattern\(s\): )([^.]*)",
                                           lambda m: ", ".join(sorted(m.group(1).split(", "))), block)}
    return answer


def ours(data: bytes, limit: int) -> dict:
    try:
        f = hm.MemoryFile.from_bytes("memory", data)
    except UnicodeDecodeError:
        return {"error": "UnicodeDecodeError"}
    return {"entries": f.entries, "chars": f.chars, "block": hm.render_block("memory", f.entries, limit) or None,
            "refused": hm.verdict(f, limit).refuses_rewrite, "round_trips": hm.round_trips(f.text)}


@pytest.mark.parametrize("limit", [100, 2200])
def test_edge_cases_as_hermes_reads_them(hermes, limit):
    for data, theirs in zip(EDGES, hermes.probe(limit, EDGES)):
        assert ours(data, limit) == findings_sorted(theirs), data


def test_assembled_files_as_hermes_reads_them(hermes):
    files = assembled(200)
    answers = [findings_sorted(t) for t in hermes.probe(60, files)]
    mismatches = [(d, ours(d, 60), t) for d, t in zip(files, answers) if ours(d, 60) != t]
    assert not mismatches, mismatches[:3]


def test_what_dreamdesk_writes_hermes_reads_back_and_edits(hermes, tmp_path):
    """Entries serialized by hermes_memory are read by Hermes unchanged, and its add, replace
    and remove work on the file (no refusal)."""
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    entries = ["Multi-line:\n- one\n- two", "Section § 4.2 applies; so does §4.3.", "Emoji 🎻 and é"]
    (home / "memories" / "MEMORY.md").write_bytes(hm.serialize(entries))
    assert hermes.read(home)["memory"]["entries"] == entries
    replies = hermes.memory(home, {"action": "add", "target": "memory", "content": "Added by Hermes."},
                            {"action": "replace", "target": "memory", "old_text": "Emoji", "content": "Emoji ☕"},
                            {"action": "remove", "target": "memory", "old_text": "Multi-line"})
    assert [r["success"] for r in replies] == [True, True, True]
    after = (home / "memories" / "MEMORY.md").read_bytes()
    assert hm.MemoryFile.from_bytes("memory", after).entries == [entries[1], "Emoji ☕", "Added by Hermes."]
    assert hm.serialize(hm.entries(hm.decode(after))) == after


def test_hermes_facts_the_adapter_must_respect(hermes, tmp_path):
    """Measured, for docs/decisions.md: an added entry holding the delimiter becomes two entries;
    Hermes's add (no guard) rewrites a file that does not round-trip canonically, CRLF as LF."""
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    hermes.memory(home, {"action": "add", "target": "memory", "content": "x\n§\ny"})
    assert hermes.read(home)["memory"]["entries"] == ["x", "y"]
    (home / "memories" / "USER.md").write_bytes(b"a\r\n\r\n\xc2\xa7\r\nb\r\n")
    [reply] = hermes.memory(home, {"action": "add", "target": "user", "content": "c"})
    assert reply["success"] and (home / "memories" / "USER.md").read_bytes() == hm.serialize(["a", "b", "c"])
    assert json.dumps(reply).count("drift") == 0
