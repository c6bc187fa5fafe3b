"""Whether a newer USER.md directive replaces an older one that was left active (issue 29 item 5).

OpenClaw's user model (docs/concepts/user-model.md, the USER.md template) has the agent "supersede
in place": the old directive stays, its comment `status: superseded`. An agent that adds the new
one and forgets the old leaves two active directives that disagree. No OpenClaw code reads these
lines, so the signs are read from the words, and only plain ones count (a wrong "superseded"
would hide a live directive): the same label with another value ("Timezone: Europe/Berlin" →
"Timezone: America/New_York"), the same single-valued fact with another value ("Call me Sam" →
"Call me Samantha"), a newer one that says it replaces ("instead of", "no longer", "from now on"
…) or turns down ("never", "no", "stop") a word the older one asks for. Two directives that only
share their pattern ("Prefer rule 01: …", "Prefer rule 02: …") are two directives."""

from __future__ import annotations

import re

_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_LABEL = re.compile(r"^([A-Za-z][\w /'-]{0,30}?)\s*:\s+(\S.*)$")
# labels that head a list of many, never one value
_MANY = frozenset("""note notes reminder reminders todo to-do fyi tip tips example examples rule rules remember
    important also project projects goal goals idea ideas question questions interest interests hobby hobbies likes
    dislikes avoid avoids never always prefer prefers preference preferences do don't context update""".split())
# facts with one value at a time: what follows the phrase is the value
_SINGLE = re.compile(r"\b(call (?:me|them|her|him)|(?:address|refer to) (?:me|them|her|him) as|(?:my |their |her |his )?(?:preferred )?name is|goes by|"
                     r"lives in|based in|time ?zone is|works (?:at|for)|pronouns are|reply in|answer in|"
                     r"write to (?:me|them|her|him) in)\s+(\S[^.;,]*)", re.I)
_CUE = re.compile(r"\b(?:instead of|rather than|no longer|not \w+ any ?more|any ?more\b|from now on|switched "
                  r"(?:from|to)|changed (?:from|to)|now prefers?|replaces?|stop(?:ped)? \w+ing)\b", re.I)
_NEGATED = re.compile(r"\b(?:never|no|not|don't|do not|stop|avoid|without)\s+((?:\w+\s+){0,2}\w+)", re.I)
_GENERIC = frozenset("""prefer prefers preferred always never use uses user answer answers reply replies give gives
    keep make please with every each one line lines first then only also more less when what that this them they
    their your you should would could like likes want wants need needs about from into over under after before
    them shall short long""".split())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z'-]+", text.lower())


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if len(w) >= 4 and w not in _GENERIC}


def replaces(new: str, old: str) -> str | None:
    """Why directive `new` (observed later) replaces `old`, in words, or None when it may stand beside it."""
    a, b = _MARKER.sub("", old, count=1).strip(), _MARKER.sub("", new, count=1).strip()
    la, lb = _LABEL.match(a), _LABEL.match(b)
    if la and lb and la.group(1).lower() == lb.group(1).lower() and la.group(1).lower() not in _MANY \
            and _other(la.group(2), lb.group(2)):
        return f"the same \"{la.group(1)}\" with another value"
    sa, sb = _SINGLE.search(a), _SINGLE.search(b)
    if sa and sb and _phrase(sa.group(1)) == _phrase(sb.group(1)) and _other(sa.group(2), sb.group(2)):
        return f"\"{sb.group(1)}\" with another value"
    shared = _content(a) & _content(b)
    cue = _CUE.search(b)
    if shared and cue:
        return f"it says it replaces it (\"{cue.group(0)}\", both about {', '.join(sorted(shared))})"
    turned = {w for m in _NEGATED.finditer(b) for w in _words(m.group(1))} & shared
    asked = {w for m in _NEGATED.finditer(a) for w in _words(m.group(1))}
    if turned - asked:
        return f"it turns down what the older one asks for ({', '.join(sorted(turned - asked))})"
    return None


_SCOPE = re.compile(r"\b(?:at|for|in|with|to|on|when|during)\s+\S.*$", re.I)


def _other(old: str, new: str) -> bool:
    """Another value, not the same one said again or with more added ("Jo" → "Jo in work chats too"),
    nor one for another occasion ("Dutch at home" → "English at work": both stand)."""
    a, b = old.strip(" .").lower(), new.strip(" .").lower()
    sa, sb = _SCOPE.search(a), _SCOPE.search(b)
    if sa and sb and sa.group(0) != sb.group(0):
        return False
    return not (a.startswith(b) or b.startswith(a))


def _phrase(p: str) -> str:
    return re.sub(r"^(?:my|their|her|his) ", "", p.lower().replace("preferred ", ""))
