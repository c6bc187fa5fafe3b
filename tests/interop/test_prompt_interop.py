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
