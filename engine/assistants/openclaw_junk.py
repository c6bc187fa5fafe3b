"""What OpenClaw's dreaming promotes into MEMORY.md that is no fact (openclaw/openclaw#67580, #89444,
#67442, #106937): its own pipeline's raw text, shell commands, code, and its `[score=…]` metadata.

Each recogniser reads a promoted entry's fact (openclaw_provenance: the entry without `- ` and
OpenClaw's own annotations) and says why in words, or None. Only entries OpenClaw's dreaming put
there (a promotion marker above them) are read: what a person or the agent wrote is theirs.

From OpenClaw 2026.9.6's code (extensions/memory-core, bundled in dist/):
- A promoted snippet is the recalled chunk, its lines joined with spaces, a leading `- ` dropped,
  cut at maxPromotedSnippetTokens × 4 characters with `...` (short-term-promotion-*.mjs
  formatPromotedSnippetForMemory), so a note's `# 2026-12-04` heading and several of its items
  arrive as one line: `# 2026-12-04 - first item. - second item.`
- Its contamination filter (short-term-promotion-store-*.mjs isContaminatedDreamingSnippet) names
  what its own pipeline leaves in notes: the dream-diary prompt, session metadata (Session Key …
  Session ID), `Conversation Summary:`, transcript turns (`user: `, `assistant: `), the memory-flush
  prompt, a promotion marker or `[score=… recalls=… avg=… source=memory/…` inside the snippet, and
  `Candidate:` / `Reflections:` staging lines with confidence and evidence. 2026.9.6 filters them
  at promotion; releases before it did not (#67580), so homes carry them.
- Inbound wrappers (`Conversation info|Sender|Forwarded message context|Location|Structured
  object (untrusted metadata):`), the heartbeat prompt and its `HEARTBEAT_OK`, QMD's
  `@@ -10,4 @@` envelope (#106937) and `(no snippet captured)` are its text too.
- The score annotation: `[score=0.806 signals=3 recalls=3 avg=0.978 source=memory/D.md:1-4]`
  (buildPromotionSection; `[score=… recalls=… avg=…]` before signals were added)."""

from __future__ import annotations

import re

from .openclaw_recall import FLUSH_PROMPT, SESSION_METADATA, SUMMARY

# OpenClaw's own contamination patterns (isContaminatedDreamingSnippet), as written there
_DIARY_PROMPT = re.compile(r"\[[^\]]*dreaming-narrative[^\]]*]\s*(?:User|Assistant):\s*Write a dream diary entry "
                           r"from these memory fragments:?", re.I)
_SESSION_METADATA = re.compile(SESSION_METADATA, re.I)
_SUMMARY = re.compile(SUMMARY, re.I)
_FLUSH_PROMPT = re.compile(FLUSH_PROMPT, re.I)
_NESTED_SCORE = re.compile(r"\[\s*score=\d+(?:\.\d+)?\s+(?:signals=\d+\s+)?recalls=\d+\s+avg=\d+(?:\.\d+)?"
                           r"(?:\s+source=[^\]]*)?\]", re.I)
_NESTED_MARKER = re.compile(r"<!--\s*openclaw-memory-(?:promotion|lineage):", re.I)
# a staging line: Candidate: / Reflections: with its fields, or straight on a speaker's words
_STAGED = re.compile(r"^(?:#{1,6}\s+)?(?:Candidate|Reflections?):\s*(?:(?:User|Assistant|System):|.*\b(?:confidence|"
                     r"evidence):\s*\S)", re.I)
_FIELDS = re.compile(r"\bconfidence:\s*\d.*\bevidence:\s*memory/", re.I)
_TURN = re.compile(r"^(?:user|assistant):\s", re.I)
_TURNS = re.compile(r"\b(?:user|assistant|system):\s", re.I)
_ASKED = re.compile(r"^user:\s+(?:\S.*\?\s*$|(?:can|could|would|will|please|hey|hi|hello|ok|okay|thanks|what|why|"
                    r"how|do|does|is|are|did|remind|tell|show|find|send|book|add|schedule|set|help|check)\b)", re.I)
_WRAPPER = re.compile(r"\b(?:Conversation info|Sender|Forwarded message context|Location|Structured object) "
                      r"\(untrusted metadata\)", re.I)
_SYSTEM_EVENT = re.compile(r"^(?:System:\s*)?\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d[^\]]*\]", re.I)   # a timestamped log line
_HEARTBEAT = re.compile(r"\bHEARTBEAT_OK\b|Read HEARTBEAT\.md if it exists")
_ENVELOPE = re.compile(r"@@\s*-\d+(?:,\d+)?\s+\+?\d*(?:,\d+)?\s*@@")
_NO_SNIPPET = "(no snippet captured)"
_HEADING_ONLY = re.compile(r"^#{1,6}\s+[^#]*?(?:\.\.\.)?$")
_HEAD = re.compile(r"^#{1,6}\s+.*?\s-\s")        # a note's heading flattened in front of its items

# the score annotation OpenClaw writes after a promoted snippet (and its older form)
SCORE = re.compile(r"[ \t]*\[score=\d+(?:\.\d+)?(?:[ \t]+signals=\d+)?[ \t]+recalls=\d+[ \t]+avg=\d+(?:\.\d+)?"
                   r"(?:[ \t]+source=[^\]\n]*)?\]")


def raw_candidate(fact: str) -> str | None:
    """Why the fact is OpenClaw's own pipeline text rather than something learned, or None."""
    body = fact.strip()
    checks = (
        (body == _NO_SNIPPET, "OpenClaw's placeholder for a chunk whose text it did not capture"),
        (bool(_HEADING_ONLY.match(body)) and " - " not in body, "a note's heading with nothing under it"),
        (bool(_STAGED.match(body)) or bool(_FIELDS.search(body)),
         "a staged dreaming candidate (Candidate:/Reflections: with its confidence and evidence fields)"),
        (bool(_DIARY_PROMPT.search(body)) or bool(_FLUSH_PROMPT.search(body)) or bool(_HEARTBEAT.search(body)),
         "one of OpenClaw's own prompts (dream diary, memory flush or heartbeat)"),
        (bool(_SESSION_METADATA.search(body)) or bool(_WRAPPER.search(body)) or bool(_SYSTEM_EVENT.match(body)),
         "session or message metadata from a transcript"),
        (bool(_SUMMARY.match(body)), "a raw conversation summary line"),
        (_is_turn(body), "a transcript turn (user:/assistant:), not a fact drawn from it"),
        (bool(_NESTED_MARKER.search(body)) or bool(_NESTED_SCORE.search(body)),
         "an earlier promotion promoted again (its marker or [score=…] inside the text)"),
        (bool(_ENVELOPE.search(body)), "a search result's envelope (@@ -10,4 @@), not the note's text"),
    )
    return next((why for hit, why in checks if hit), None)


def _is_turn(body: str) -> bool:
    if not _TURN.match(body):
        return False
    return body[:10].lower().startswith("assistant") or len(_TURNS.findall(body)) > 1 or bool(_ASKED.match(body))


# -- shell commands ------------------------------------------------------------------------------
_COMMANDS = frozenset("""sudo apt apt-get dnf yum pacman brew snap git npm npx pnpm yarn bun pip pip3 pipx uv poetry
    python python3 node deno cargo rustup go make cmake ninja gcc docker podman kubectl helm terraform ansible
    systemctl journalctl service cd ls cat rm cp mv mkdir rmdir chmod chown ln curl wget ssh scp rsync tar unzip
    export source echo grep rg sed awk find tail head less kill pkill ps top htop df du mount umount openclaw
    gcloud aws az gh ffmpeg psql mysql redis-cli sqlite3 crontab nano vim code ollama""".split())
# words that make a line prose: a command line has none of them outside its quoted arguments
_PROSE = frozenset("""the a an is was are were be been being to of on in at for with and but or when after before
    because it its this that these those we she he they i you her his their our my has have had will would should
    must can could not no never always every only so then than which who what why how does did do fails failed
    broke works worked use used need needs""".split())
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`")


def shell_command(fact: str) -> str | None:
    """Why the fact is a shell command typed in a terminal (every item of it), or None."""
    items = _items(fact)
    if not items or not all(_command(i) for i in items):
        return None
    return "a shell command copied from a session, not a fact" if len(items) == 1 else \
        f"{len(items)} shell commands copied from a session, not facts"


def _items(fact: str) -> list[str]:
    """The note's items a flattened chunk holds (its heading left out)."""
    body = _HEAD.sub("", fact.strip(), count=1)
    return [i.strip() for i in re.split(r"\s-\s(?=\S)", body) if i.strip()]


def _command(item: str) -> bool:
    words = _QUOTED.sub(" ", item.removeprefix("$ ").strip().rstrip(".")).split()
    if len(words) < 2 or words[0] not in _COMMANDS:
        return False
    return not any(w.lower().strip(",;:") in _PROSE for w in words[1:])


# -- code ------------------------------------------------------------------------------------------
_FENCE = re.compile(r"```")
_KEYWORDS = re.compile(r"\b(?:def|const|let|var|function|return|import|class|async|await|elif|lambda|except|throw|new|"
                       r"SELECT|FROM|WHERE|INSERT|UPDATE|CREATE|ALTER|DROP|INDEX|ORDER BY|LIMIT|done|fi|esac)\b")
_SIGNALS = (re.compile(r";\s*(?:$|\S)"), re.compile(r"[{}]"), re.compile(r"=>|->|::|\+=|==|!=|&&|\|\||\*\*"),
            re.compile(r"\b[A-Za-z_][\w.]*\([^()]*\)"), _KEYWORDS, re.compile(r"\b\w+\s*=\s*[\w\"'\[{(]"),
            re.compile(r"</?[a-z][\w-]*(?:\s[^>]*)?>"), re.compile(r"\"[\w-]+\"\s*:"),
            re.compile(r"\bfor\s+\w+\s+in\b|\b(?:while|if)\s*\("), re.compile(r"^[{\[].*[}\]]$", re.S))
# words of prose that are no keyword of a language: code has none of them outside its strings
_SAID = frozenset("""the a an was were are been we she he they her his our my your their when because after before
    should would could must which who has have had but than very also there here about every""".split())


def code_snippet(fact: str) -> str | None:
    """Why the fact is a piece of code rather than something said about it, or None."""
    body = _HEAD.sub("", fact.strip(), count=1)
    if _FENCE.search(body):
        outside = re.sub(r"```.*?(?:```|$)", " ", body, flags=re.S)
        if sum(w.lower() in _PROSE for w in outside.split()) < 3:
            return "a fenced code block copied from a note, not a fact"
        return None
    signals = sum(bool(s.search(body)) for s in _SIGNALS) + (len(set(_KEYWORDS.findall(body))) >= 2)
    if signals >= 3 and not any(w.lower().strip(",.;:") in _SAID for w in _QUOTED.sub(" ", body).split()):
        return "a piece of code copied from a session, not a fact"
    return None


def without_score(text: str) -> str:
    """The entry without OpenClaw's [score=…] annotation (everything else, its comments too, kept)."""
    return SCORE.sub("", text)


_COMMENTS = re.compile(r"\s*<!--\s*(?:trigger|importance|project)\s*:[^\r\n]*?-->", re.I)
_TRAILING_SOURCE = re.compile(r"\s+Source:\s+[^\r\n]+#L\d+-L\d+\s*$")


def promoted_fact(text: str) -> str:
    """What a promoted entry says: its text without `- `, OpenClaw's trigger/importance/project
    comments and the annotation it ends with (`Source: …` or `[score=…]`), the way OpenClaw
    compares entries (normalizeComparableMemoryFact): what is inside the snippet stays."""
    body = _COMMENTS.sub("", re.sub(r"^[-*+]\s+", "", text.strip()))
    body = _TRAILING_SOURCE.sub("", body)
    scores = list(SCORE.finditer(body))
    if scores and not body[scores[-1].end():].strip():
        body = body[:scores[-1].start()]
    return " ".join(body.split())
