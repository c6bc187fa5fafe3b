"""`dreamdesk compact` and nanobot's own compaction on one home: a message is never compacted
twice by either writer, and nanobot's internal `dream:*` sessions are never compacted
(issue 10, items 1 and 2)."""

from pathlib import Path

from .nanobot_checks import assert_nanobot_fine, compacted_twice, dreamdesk, dreamdesk_json, session

CHAT = "telegram:chat-1"


def test_compact_sets_the_offset_nanobot_reads(nanobot, nanobot_home):
    home = nanobot_home
    out = dreamdesk_json("compact", home, "--session", CHAT)
    assert [r["messages"] for r in out["results"]] == [4]           # 12 messages, the last 8 stay live
    after = assert_nanobot_fine(nanobot, home, home.baseline)
    chat = session(after, CHAT)
    assert chat["messages"] == 12
    assert chat["last_archived"] == 4, "nanobot reads `last_archived` first: it must see Dreamdesk's offset"


def test_no_message_is_compacted_twice_by_either_writer(nanobot, nanobot_home):
    home = nanobot_home
    dreamdesk_json("compact", home)
    again = dreamdesk_json("compact", home)
    assert again["results"] == [], f"a second dreamdesk compact compacted again: {again['results']}"
    # nanobot's idle compaction now runs over the same home (its real AutoCompact scan)
    nanobot.archive(home)
    after = assert_nanobot_fine(nanobot, home, home.baseline, append=False)
    assert not compacted_twice(after, 12), (
        f"messages in two history entries (message: cursors): {compacted_twice(after, 12)}")
    assert session(after, CHAT)["unarchived"] == 0
    # the user chats on; nanobot saves the session (its save rewrites the metadata line)
    nanobot.chat(home, CHAT, 10)
    dreamdesk_json("compact", home)
    nanobot.archive(home)
    dreamdesk_json("compact", home)
    final = assert_nanobot_fine(nanobot, home, home.baseline)
    n = session(final, CHAT)["messages"]
    assert not compacted_twice(final, n), f"compacted twice: {compacted_twice(final, n)}"


def test_what_nanobot_compacted_first_dreamdesk_leaves_alone(nanobot, nanobot_home):
    home = nanobot_home
    nanobot.archive(home, CHAT)
    mid = nanobot.check(home)
    assert session(mid, CHAT)["last_archived"] == 12
    out = dreamdesk_json("compact", home, "--session", CHAT)
    assert out["results"] == [], f"Dreamdesk compacted what nanobot had archived: {out['results']}"
    after = assert_nanobot_fine(nanobot, home, home.baseline)
    assert not compacted_twice(after, 12)


def test_dream_transcripts_are_never_compacted(nanobot, nanobot_home):
    home = nanobot_home
    key = home.made["dream_session"]
    path = Path(session(home.baseline, key)["path"])
    before = path.read_bytes()
    rc, out, err = dreamdesk("compact", home, "--json")
    assert rc == 0, err
    after = assert_nanobot_fine(nanobot, home, home.baseline)
    assert all(not (k or "").startswith("dream:") for k in after["history"]["session_keys"]), (
        "Dream's own transcript became memory history")
    assert path.read_bytes() == before
    assert session(after, key)["last_archived"] == 0
    # asked for by name, it is still not compacted
    rc, out, err = dreamdesk("compact", home, "--session", key, "--json")
    assert rc in (0, 2)
    assert path.read_bytes() == before
