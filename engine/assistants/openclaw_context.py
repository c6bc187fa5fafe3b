"""The "# Project Context" part of OpenClaw 2026.9.6's system prompt, character for character (issue
28 item 3), from the files its budget let through (openclaw_bootstrap). Read from OpenClaw's
code: filterProjectScopedCuratedContextFiles (dist/system-prompt-params-*.mjs, with
splitCuratedMarkdownEntries from dist/markdown-chunks-*.mjs and the project annotations of
dist/curated-annotations-*.mjs), prepareContextFilesForPrompt and buildProjectContextSection
(dist/system-prompt-params-*.mjs); the prompt keeps only its non-empty lines, joined with \\n."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .openclaw_jsstr import JS_SPACE_CLASS, locale_compare, trim

ORDER = {"agents.md": 10, "soul.md": 20, "identity.md": 30, "user.md": 40, "tools.md": 50, "bootstrap.md": 60,
         "memory.md": 70}
_LAST = 2 ** 53 - 1
_HEARTBEAT_BLOCK = re.compile(r"Default heartbeat prompt:\r?\n`(?:Read HEARTBEAT\.md if it exists|Follow the heartbeat "
                              r"monitor scratch context when provided\.)[^`\r\n]*HEARTBEAT_OK\.`")
_PROJECT_MARKER = re.compile(rf"<!--{JS_SPACE_CLASS}*project{JS_SPACE_CLASS}*:", re.I)
_SECTION = re.compile(rf"^#{{1,6}}(?:{JS_SPACE_CLASS}|$)")
SOUL_LINE = "SOUL.md: persona/tone. Follow it unless higher-priority instructions override."
MEMORY_LINE = ("MEMORY.md: durable non-profile facts and decisions; use when relevant unless higher-priority "
               "instructions override.")
USER_LINE = ("USER.md: durable user preferences and profile directives; follow unless higher-priority instructions "
             "override.")
PERSONAL_LINE = ("The personal users/<profile-id>/USER.md belongs to this session's selected person (assigned human "
                 "owner, otherwise human creator). It supplements shared USER.md and overrides conflicting shared "
                 "preferences, not higher-priority rules. Other participants do not change this personal context.")


@dataclass(frozen=True, slots=True)
class ContextFile:
    path: str               # as OpenClaw names it: the absolute path
    content: str            # as its budget left it
    personal: bool = False  # users/<profile>/USER.md


# -- project-scoped entries of MEMORY.md and USER.md ----------------------------------------------------
def curated_entries(content: str) -> list[str]:
    """splitCuratedMarkdownEntries: the file cut before each `- ` line and each heading line."""
    lines = content.split("\n")
    out, start = [], 0
    for i in range(1, len(lines)):
        if lines[i].startswith("- ") or _SECTION.match(lines[i]):
            out.append("\n".join(lines[start:i]))
            start = i
    out.append("\n".join(lines[start:]))
    return out


def project_key(value: str) -> str | None:
    """normalizeProjectAnnotationKey."""
    trimmed = trim(value)
    if not trimmed or re.search(r"[\r\n<>]", trimmed):
        return None
    if trimmed.startswith("path:"):
        return trimmed
    sep = trimmed.find("/")
    return trimmed if sep < 1 else trimmed[:sep].lower() + trimmed[sep:]


def entry_projects(text: str) -> tuple[bool, bool, set[str]]:
    """extractProjectKeysFromCuratedEntry: (annotated, valid, keys) of `<!-- project: a; b -->`."""
    markers = len(_PROJECT_MARKER.findall(text))
    parsed = raw = valid = 0
    keys: set[str] = set()
    at = 0
    while (m := _PROJECT_MARKER.search(text, at)) is not None:
        closing = text.find("-->", m.end())
        if closing < 0:
            break
        parsed += 1
        for raw_key in trim(text[m.end():closing]).split(";"):
            raw += 1
            key = project_key(raw_key)
            if key:
                keys.add(key)
                valid += 1
        at = closing + 3
    annotated = markers > 0
    return annotated, (not annotated or (parsed == markers and raw > 0 and raw == valid)), keys


def scope_filtered(file: ContextFile, active_projects: tuple[str, ...] = ()) -> ContextFile:
    """filterProjectScopedCuratedContextFiles: MEMORY.md's and USER.md's entries annotated with a
    project are kept only when every project they name is active (none is, outside a
    repository); a file that changed loses its `personal` mark, as OpenClaw's copy does."""
    if file.path.replace("\\", "/").split("/")[-1].upper() not in ("MEMORY.MD", "USER.MD"):
        return file
    active = {k for k in (project_key(a) for a in active_projects) if k}
    kept = []
    for entry in curated_entries(file.content):
        annotated, valid, keys = entry_projects(entry)
        if not annotated or (valid and keys <= active):
            kept.append(entry)
    content = "\n".join(kept)
    return file if content == file.content else ContextFile(file.path, content)


# -- order and rendering ------------------------------------------------------------------------------
def _basename(path: str) -> str:
    norm = path.strip().replace("\\", "/")
    return norm[norm.rfind("/") + 1:].lower()


def ordered(files: list[ContextFile]) -> list[ContextFile]:
    """prepareContextFilesForPrompt: AGENTS, SOUL, IDENTITY, USER, TOOLS, BOOTSTRAP, MEMORY, then
    any other; ties by name, then by path (localeCompare), USER.md files kept as they came."""
    def compare(a: ContextFile, b: ContextFile) -> int:
        na, nb = _basename(a.path), _basename(b.path)
        oa, ob = ORDER.get(na, _LAST), ORDER.get(nb, _LAST)
        if oa != ob:
            return oa - ob
        if na != nb:
            return locale_compare(na, nb)
        return 0 if na == "user.md" else locale_compare(a.path.strip().replace("\\", "/"),
                                                         b.path.strip().replace("\\", "/"))
    return sorted(files, key=functools.cmp_to_key(compare))


def sanitized(content: str) -> str:
    """sanitizeContextFileContentForPrompt: the default heartbeat prompt block out, blank runs to one."""
    return re.sub(r"\n{3,}", "\n\n", _HEARTBEAT_BLOCK.sub("", content))


def section_lines(files: list[ContextFile]) -> list[str]:
    """buildProjectContextSection's lines (with its empty ones)."""
    if not files:
        return []
    names = {_basename(f.path) for f in files}
    lines = ["# Project Context", "", "Loaded project context:"]
    lines += [line for name, line in (("soul.md", SOUL_LINE), ("memory.md", MEMORY_LINE), ("user.md", USER_LINE))
              if name in names]
    if any(f.personal for f in files):
        lines.append(PERSONAL_LINE)
    lines.append("")
    for f in files:
        lines += [f"## {f.path}", "", sanitized(f.content), ""]
    return lines


def project_context(files: list[ContextFile], active_projects: tuple[str, ...] = ()) -> str:
    """The Project Context exactly as it stands in the system prompt ("" when no file is injected):
    the prompt drops empty lines and joins the rest with \\n."""
    scoped = [scope_filtered(f, active_projects) for f in files if f.path.strip()]
    return "\n".join(line for line in section_lines(ordered(scoped)) if line)
