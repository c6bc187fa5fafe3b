"""Dreamdesk's preview of what a new chat sees is what nanobot 0.3.5's own ContextBuilder puts
in the system prompt for the same home (issue 10, item 7): no pending history (nanobot's
prompt has none: Dream reads it), no untouched template AGENTS.md, and every memory file nanobot
injects is in the preview."""

from .nanobot_checks import dreamdesk_json


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def test_the_prompt_preview_is_what_nanobot_injects(nanobot, nanobot_home):
    home = nanobot_home
    system = _norm(nanobot.system_prompt(home))
    preview = dreamdesk_json("prompt", home, "--text")
    included = [p for p in preview["parts"] if p["included"]]
    extra = [p["name"] for p in included if _norm(p.get("text") or "") not in system]
    assert not extra, f"the preview shows parts nanobot's system prompt does not hold: {extra}"
    names = {p["name"] for p in included}
    for marker, part in (("## SOUL.md", "SOUL.md"), ("## USER.md", "USER.md"), ("## Long-term Memory", "MEMORY.md")):
        if marker in system:
            assert part in names, f"nanobot injects {part}; the preview leaves it out"
    st = dreamdesk_json("status", home)
    kinds = {str(v).lower() for k, v in st.items() if "assistant" in k.lower() or "kind" in k.lower()}
    assert any("nanobot" in k for k in kinds), (
        f"status --json names no detected assistant kind for a home nanobot 0.3.5 wrote: {sorted(st)}")


def test_a_crlf_bom_user_md_is_counted_and_shown_as_nanobot_injects_it(nanobot, nanobot_home):
    """nanobot reads USER.md with read_text(encoding="utf-8"): \r\n becomes \n, the BOM stays
    a character. The preview's text is in its prompt verbatim, and every size counts the same."""
    text = "# User\n\n## Preferences\n- Answer first, reasoning after.\n- Metric units.\n"
    (nanobot_home.ws / "USER.md").write_bytes(("\ufeff" + text.replace("\n", "\r\n")).encode("utf-8"))
    system = nanobot.system_prompt(nanobot_home)
    part = next(p for p in dreamdesk_json("prompt", nanobot_home, "--text")["parts"] if p["name"] == "USER.md")
    assert part["included"] and part["text"] == f"## USER.md\n\n\ufeff{text}" and part["text"] in system
    size = next(f for f in dreamdesk_json("status", nanobot_home)["files"] if f["path"] == "USER.md")
    assert size["chars"] == len("\ufeff" + text)
