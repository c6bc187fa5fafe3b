"""How OpenClaw 2026.9.6 cuts a bootstrap file to its cap (trimBootstrapContent,
trimAgentsBootstrapContent and clampToBudget in dist/bootstrap-*.mjs), rule for rule, in UTF-16
units (openclaw_jsstr). Besides the text it injects, each cut says which ranges of the file
(trailing whitespace trimmed) it kept: what falls between them is what the model never sees."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .openclaw_jsstr import JS_NONSPACE_CLASS, JS_SPACE_CLASS, head, tail, trim, trim_end, u16len

HEAD_RATIO, TAIL_RATIO = 0.75, 0.25
MIN_TRIMMED_CONTENT_CHARS = 16
AGENTS_DIGEST_RATIO, AGENTS_HEAD_RATIO, AGENTS_TAIL_RATIO = 0.35, 0.45, 0.15
DIGEST_MAX_LINE_CHARS = 240
_WORDS = (r"\b(?:AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|{owner}security|"
          r"secret|credential{more})\b")
_CANDIDATE = re.compile(_WORDS.format(owner="owner|", more="|test|validation|command|commit|push|github|pr")
                        + "|(?:🔴|禁止|嚴禁|不得|絕不|絕對不|切勿|必須|務必|一律|紅線)", re.I | re.A)
_HIGH_PRIORITY = re.compile(_WORDS.format(owner="", more="") + "|(?:🔴|禁止|嚴禁|不得|絕不|絕對不|切勿)", re.I | re.A)
_LISTISH = re.compile(rf"^(?:#{{1,6}}|{JS_SPACE_CLASS}*[-*+]|{JS_SPACE_CLASS}*[0-9]+[.)]){JS_SPACE_CLASS}+"
                      + JS_NONSPACE_CLASS)
_FENCE = re.compile(rf"^{JS_SPACE_CLASS}*(?:`{{3,}}|~{{3,}})")
_SPACES = re.compile(f"{JS_SPACE_CLASS}+")


@dataclass(frozen=True, slots=True)
class Trimmed:
    content: str                     # what is injected
    truncated: bool
    max_chars: int                   # the cap it was cut to
    length: int                      # the file's length as OpenClaw counts it (trimEnd, UTF-16)
    kept: tuple[tuple[int, int], ...]   # ranges of the trimmed file the content holds, in units
    digest: str = field(default="")  # AGENTS.md's policy digest, when its cut made one

    @property
    def dropped(self) -> tuple[tuple[int, int], ...]:
        """The ranges of the trimmed file the content leaves out."""
        out, at = [], 0
        for start, end in self.kept:
            if start > at:
                out.append((at, start))
            at = max(at, end)
        if at < self.length:
            out.append((at, self.length))
        return tuple(out)


def _kept(length: int, h: int, t: int, content_len: int, final_len: int) -> tuple[tuple[int, int], ...]:
    """The file's ranges in a rendered head…tail of `content_len` units cut to `final_len`."""
    ranges = [(0, min(h, final_len))] if h else []
    tail_at = content_len - t          # where the tail starts in the rendered content
    if t and final_len > tail_at:
        ranges.append((length - t, length - t + (final_len - tail_at)))
    return tuple(r for r in ranges if r[1] > r[0])


def trim_bootstrap(content: str, name: str, max_chars: int) -> Trimmed:
    """trimBootstrapContent: the file whole when its trimmed length fits, else 75 % head and
    25 % tail around the marker (AGENTS.md: its own cut with a policy digest)."""
    trimmed = trim_end(content)
    length = u16len(trimmed)
    if length <= max_chars:
        return Trimmed(trimmed, False, max_chars, length, ((0, length),) if length else ())
    if name.lower() == "agents.md":
        return _trim_agents(trimmed, length, max_chars)
    return _trim_plain(trimmed, length, name, max_chars)


def _marker_templates(name: str, length: int):
    def full(h: int, t: int) -> str:
        return "\n".join(["", f"[...truncated, read {name} for full content...]",
                          f"…(truncated {name}: kept {h}+{t} chars of {length})…", ""])

    def compact(h: int, t: int) -> str:
        return f"[…truncated {h}+{t}/{length}]"
    return full, compact


def _separators(h: int, t: int, marker: str) -> int:
    return (int(h > 0) + int(t > 0)) if "\n" in marker else 0


def _trim_plain(trimmed: str, length: int, name: str, max_chars: int) -> Trimmed:
    full, compact = _marker_templates(name, length)
    template = full if max_chars - u16len(full(0, 0)) - _separators(1, 1, full(0, 0)) >= MIN_TRIMMED_CONTENT_CHARS \
        else compact
    h = t = 0
    marker = template(0, 0)
    for _ in range(3):              # the marker's digits change its length: settle in three tries
        budget = max(0, max_chars - u16len(marker) - _separators(h, t, marker))
        nh, nt = int(budget * HEAD_RATIO), int(budget * TAIL_RATIO)
        nm = template(nh, nt)
        if nh == h and nt == t and u16len(nm) == u16len(marker):
            break
        h, t, marker = nh, nt, nm
    rendered = h + t + u16len(marker) + _separators(h, t, marker)
    while rendered > max_chars and (t > 0 or h > 0):
        overflow = rendered - max_chars
        if t > 0:
            t = max(0, t - overflow)
        else:
            h = max(0, h - overflow)
        marker = template(h, t)
        rendered = h + t + u16len(marker) + _separators(h, t, marker)
    if h == 0 and t == 0 and length > 0:
        single = template(1, 0)
        if 1 + u16len(single) + _separators(1, 0, single) <= max_chars:
            h, marker = 1, single
    head_text, tail_text = head(trimmed, h), (tail(trimmed, t) if t > 0 else "")
    joiner = "\n" if "\n" in marker else ""
    content = joiner.join(p for p in (head_text, marker, tail_text) if p)
    return _finish(content, max_chars, length, head_text, tail_text)


def _finish(content: str, max_chars: int, length: int, head_text: str, tail_text: str,
            digest: str = "") -> Trimmed:
    content_len = u16len(content)
    final = head(content, max_chars) if content_len > max_chars else content
    kept = _kept(length, u16len(head_text), u16len(tail_text), content_len, u16len(final))
    return Trimmed(final, True, max_chars, length, kept, digest)


# -- AGENTS.md ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    high: bool


def _digest_line(line: str) -> str:
    normalized = _SPACES.sub(" ", trim(line))
    if u16len(normalized) <= DIGEST_MAX_LINE_CHARS:
        return normalized
    return head(normalized, DIGEST_MAX_LINE_CHARS - 1) + "…"


def _candidates(trimmed: str) -> list[_Candidate]:
    """The policy-like lines of AGENTS.md, each with the prose line just before it."""
    out: list[_Candidate] = []
    prose: str | None = None
    for source in re.split(r"\r?\n", trimmed):
        line = _digest_line(source)
        if not line:
            prose = None
        elif _FENCE.match(line):
            prose = None
        elif _LISTISH.match(line) or _CANDIDATE.search(line):
            out.append(_Candidate(line if prose is None else f"{prose}\n{line}", bool(_HIGH_PRIORITY.search(line))))
            prose = None
        else:
            prose = line
    return out


def _digest(candidates: list[_Candidate], budget: int) -> tuple[str, int]:
    """buildAgentsPolicyDigest: high-priority lines first, then the rest, while they fit; in file order."""
    if budget <= 0:
        return "", 0
    chosen: set[int] = set()
    used = 0
    for wanted in (True, False):
        for i, c in enumerate(candidates):
            if i in chosen or (wanted and not c.high):
                continue
            sep = 1 if chosen else 0
            if used + sep + u16len(c.text) <= budget:
                chosen.add(i)
                used += sep + u16len(c.text)
    text = "\n".join(c.text for i, c in enumerate(candidates) if i in chosen)
    return text, max(0, len(candidates) - len(chosen))


def _trim_agents(trimmed: str, length: int, max_chars: int) -> Trimmed:
    h, t = int(max_chars * AGENTS_HEAD_RATIO), int(max_chars * AGENTS_TAIL_RATIO)
    budget = int(max_chars * AGENTS_DIGEST_RATIO)
    candidates = _candidates(trimmed) if budget > 0 else []
    digest, omitted = _digest(candidates, budget)

    def render() -> tuple[str, str, str]:
        head_text, tail_text = head(trimmed, h), (tail(trimmed, t) if t > 0 else "")
        parts = [head_text, "[...truncated, read AGENTS.md for full content...]",
                 "[Policy digest from AGENTS.md]" if digest else "", digest,
                 f"[...{omitted} more policy lines omitted...]" if omitted > 0 else "",
                 f"…(truncated AGENTS.md: kept {h}+policy {u16len(digest)}+{t} chars of {length})…", tail_text]
        return "\n".join(p for p in parts if p), head_text, tail_text

    rendered, head_text, tail_text = render()
    while u16len(rendered) > max_chars and (t > 0 or h > 1 or budget > 0):
        overflow = u16len(rendered) - max_chars
        if t > 0:
            t = max(0, t - overflow)
        elif h > 1:
            h = max(1, h - overflow)
        else:
            budget = max(0, budget - overflow)
            digest, omitted = _digest(candidates, budget)
        rendered, head_text, tail_text = render()
    return _finish(rendered, max_chars, length, head_text, tail_text, digest)


def clamp_to_budget(content: str, budget: int) -> str:
    """clampToBudget: what is left of the total budget cuts the end, with an ellipsis."""
    if budget <= 0:
        return ""
    if u16len(content) <= budget:
        return content
    if budget <= 3:
        return head(content, budget)
    return head(content, budget - 1) + "…"
