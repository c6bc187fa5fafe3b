"""`dreamdesk dream` with no model flags uses the model nanobot's own Dream would use for the
home (issue 10, item 6): nanobot's default `provider: "auto"`, `dream.modelOverride` naming a
model preset, the provider nanobot matches and its API base, and the user's `prompts/dream.md`."""

import json

from helpers.llm_server import turn

from .nanobot_checks import assert_nanobot_fine, dreamdesk

OWN_PROMPT = "Interop house rule: keep every fact about tide tables."


def test_dream_uses_the_model_nanobot_s_dream_would_use(nanobot, nanobot_home, llm_server):
    home = nanobot_home
    srv = llm_server(default=turn(content="nothing to add"))
    nanobot("patch-config", home, json.dumps({
        "modelPresets": {"dreamer": {"model": "interop-dream-model", "provider": "vllm"}},
        "agents": {"defaults": {"dream": {"modelOverride": "dreamer"}}},
        "providers": {"vllm": {"apiBase": srv.url}},
    }))
    (home.ws / "prompts" / "dream.md").write_text(OWN_PROMPT + "\n", encoding="utf-8")
    want = nanobot("dream-model", home)
    assert (want["model"], want["provider"], want["api_base"], want["prompt_override"]) == (
        "interop-dream-model", "vllm", srv.url, True), want
    rc, out, err = dreamdesk("dream", home, "--json")
    assert rc == 0, f"exit {rc}: {err}"
    assert srv.requests, "Dreamdesk never called the API base nanobot's Dream would use"
    assert srv.paths[0].split("?")[0].endswith("/chat/completions"), srv.paths[0]
    assert {r.get("model") for r in srv.requests} == {"interop-dream-model"}
    sent = json.dumps([r.get("messages") for r in srv.requests], ensure_ascii=False)
    assert OWN_PROMPT in sent, "the user's prompts/dream.md (nanobot's Dream prompt) never reached the model"
    assert_nanobot_fine(nanobot, home, home.baseline)
