"""Which model Dream uses: provider, model, base URL and prompt resolved the way nanobot 0.3.5
resolves them (issue 10.6), shown with the reasons, overridable with --provider, and never a
key in a reason, a record or a snapshot."""

from __future__ import annotations

import json
import subprocess

import pytest

from dreamdesk.engine.cli import main
from dreamdesk.engine.home.config import load
from dreamdesk.engine.llm import LLMError, Overrides, make_client, resolve_model
from dreamdesk.engine.llm.anthropic import AnthropicClient
from dreamdesk.engine.llm.openai import OpenAIClient
from helpers.llm_server import turn

# config.json -> (provider, api, base URL, model sent), measured by running nanobot-ai 0.3.5's own
# Config._match_provider / factory._resolve_provider_setup / client on each config (2026-12-01);
# None as base where nanobot leaves it to its SDK (whose default is given here).
NANOBOT_035 = [
    ({"providers": {"openrouter": {"apiKey": "sk-or-x"}}},
     ("openrouter", "openai", "https://openrouter.ai/api/v1", "anthropic/claude-opus-4-5")),
    ({"agents": {"defaults": {"provider": "anthropic"}}, "providers": {"anthropic": {"apiKey": "ak"}}},
     ("anthropic", "anthropic", "https://api.anthropic.com", "claude-opus-4-5")),
    ({"agents": {"defaults": {"model": "deepseek-chat"}},
      "providers": {"deepseek": {"apiKey": "k"}, "openrouter": {"apiKey": "o"}}},
     ("deepseek", "openai", "https://api.deepseek.com", "deepseek-chat")),
    ({"agents": {"defaults": {"model": "deepseek/deepseek-chat"}}, "providers": {"deepseek": {"apiKey": "k"}}},
     ("deepseek", "openai", "https://api.deepseek.com", "deepseek/deepseek-chat")),
    ({"agents": {"defaults": {"model": "llama3.2"}}, "providers": {"ollama": {"apiBase": "http://localhost:11434/v1"}}},
     ("ollama", "openai", "http://localhost:11434/v1", "llama3.2")),
    ({"agents": {"defaults": {"model": "llama3.2"}},
      "providers": {"vllm": {"apiBase": "http://127.0.0.1:8000/v1"}, "lmStudio": {"apiBase": "http://127.0.0.1:1234/v1"}}},
     ("lm_studio", "openai", "http://127.0.0.1:1234/v1", "llama3.2")),
    ({"agents": {"defaults": {"model": "companyProxy/gpt-4"}},
      "providers": {"companyProxy": {"apiBase": "http://proxy/v1", "apiKey": "k"}}},
     ("companyProxy", "openai", "http://proxy/v1", "gpt-4")),
    ({"agents": {"defaults": {"model": "gpt-4o"}}, "providers": {"openai": {"apiKey": "k"}}},
     ("openai", "openai", "https://api.openai.com/v1", "gpt-4o")),
    ({"agents": {"defaults": {"model": "claude-sonnet-4-5", "provider": "auto"}},
      "providers": {"anthropic": {"apiKey": "ak"}, "openrouter": {"apiKey": "o"}}},
     ("anthropic", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-5")),
    ({"agents": {"defaults": {"model": "x", "modelPreset": "fast"}},
      "modelPresets": {"fast": {"model": "groq/llama-3.3-70b", "provider": "auto"}}, "providers": {"groq": {"apiKey": "g"}}},
     ("groq", "openai", "https://api.groq.com/openai/v1", "groq/llama-3.3-70b")),
    ({"agents": {"defaults": {"model": "gpt-4o", "dream": {"modelOverride": "cheap"}}},
      "modelPresets": {"cheap": {"model": "qwen-max", "provider": "dashscope"}},
      "providers": {"dashscope": {"apiKey": "d"}, "openai": {"apiKey": "o"}}},
     ("dashscope", "openai", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-max")),
    ({"agents": {"defaults": {"model": "moonshot-v1", "provider": "kimi_coding"}}, "providers": {"kimiCoding": {"apiKey": "k"}}},
     ("kimi_coding", "anthropic", "https://api.kimi.com/coding/v1", "moonshot-v1")),
    ({"agents": {"defaults": {"model": "foo", "provider": "custom"}}, "providers": {"custom": {"apiBase": "http://127.0.0.1:9/v1"}}},
     ("custom", "openai", "http://127.0.0.1:9/v1", "foo")),
    ({"agents": {"defaults": {"model": "aihubmix/gpt-4o"}}, "providers": {"aihubmix": {"apiKey": "a"}}},
     ("aihubmix", "openai", "https://aihubmix.com/v1", "gpt-4o")),
    ({"agents": {"defaults": {"model": "nvidia/nemotron-70b"}},
      "providers": {"ollama": {"apiBase": "http://localhost:11434"}, "openrouter": {"apiKey": "o"}}},
     ("openrouter", "openai", "https://openrouter.ai/api/v1", "nvidia/nemotron-70b")),
    ({"agents": {"defaults": {"model": "gemini-2.5-pro"}}, "providers": {"gemini": {"apiKey": "g"}}},
     ("gemini", "openai", "https://generativelanguage.googleapis.com/v1beta/openai/", "gemini-2.5-pro")),
    ({"agents": {"defaults": {"model": "anthropic/claude-x"}}, "providers": {"minimaxAnthropic": {"apiKey": "m"}}},
     ("minimax_anthropic", "anthropic", "https://api.minimax.io/anthropic", "claude-x")),
    # (2026-12-06) no prefix, no keyword, no local server: a provider with a key before a custom one with a base
    ({"agents": {"defaults": {"model": "mystery-model"}},
      "providers": {"openai": {"apiKey": "k"}, "myProxy": {"apiBase": "http://proxy/v1"}}},
     ("openai", "openai", "https://api.openai.com/v1", "mystery-model")),
]


def cfg_of(tmp_path, data):
    p = tmp_path / "config.json"
    p.write_text(json.dumps(data))
    return load(p)


@pytest.mark.parametrize("data,want", NANOBOT_035, ids=[str(i) for i in range(len(NANOBOT_035))])
def test_resolves_like_nanobot_035(tmp_path, data, want):
    choice, _ = resolve_model(cfg_of(tmp_path, data))
    assert (choice.provider, choice.api, choice.base_url, choice.sent_model) == want
    assert choice.reasons and all(isinstance(r, str) for r in choice.reasons)


def test_auto_with_nothing_configured_says_so_like_nanobot(tmp_path):
    with pytest.raises(LLMError, match="no provider is configured for the model anthropic/claude-opus-4-5"):
        resolve_model(cfg_of(tmp_path, {"agents": {"defaults": {"provider": "auto"}}}))


def test_the_reasons_name_the_preset_and_the_match(tmp_path):
    choice, key = resolve_model(cfg_of(tmp_path, NANOBOT_035[10][0]))
    assert choice.preset == "cheap" and key == "d"
    assert any("dream.modelOverride names the preset 'cheap'" in r for r in choice.reasons)
    choice, _ = resolve_model(cfg_of(tmp_path, NANOBOT_035[0][0]))
    assert any("openrouter is the first that has one" in r for r in choice.reasons)


def test_dream_override_default_means_the_agents_defaults_fields(tmp_path):
    data = {"agents": {"defaults": {"model": "gpt-4o", "modelPreset": "fast", "dream": {"modelOverride": "default"}}},
            "modelPresets": {"fast": {"model": "groq/llama"}}, "providers": {"openai": {"apiKey": "o"}, "groq": {"apiKey": "g"}}}
    choice, _ = resolve_model(cfg_of(tmp_path, data))
    assert (choice.provider, choice.model, choice.preset) == ("openai", "gpt-4o", None)


def test_a_missing_preset_is_refused_as_the_assistant_refuses_it(tmp_path):
    with pytest.raises(LLMError, match="'gone', which is not in modelPresets"):
        resolve_model(cfg_of(tmp_path, {"agents": {"defaults": {"modelPreset": "gone"}}}))


def test_env_references_are_resolved_and_a_missing_one_named(tmp_path, monkeypatch):
    data = {"providers": {"openrouter": {"apiKey": "${DD_OR_KEY}"}}}
    monkeypatch.delenv("DD_OR_KEY", raising=False)
    with pytest.raises(LLMError, match=r"\$\{DD_OR_KEY\}"):
        resolve_model(cfg_of(tmp_path, data))
    monkeypatch.setenv("DD_OR_KEY", "sk-or-from-env-123")
    choice, key = resolve_model(cfg_of(tmp_path, data))
    assert key == "sk-or-from-env-123" and "sk-or-from-env-123" not in json.dumps(choice.to_json())


def test_backends_dreamdesk_cannot_speak_are_named(tmp_path):
    with pytest.raises(LLMError, match="bedrock client, which Dreamdesk does not speak"):
        resolve_model(cfg_of(tmp_path, {"agents": {"defaults": {"model": "m", "provider": "bedrock"}}}))


def test_make_client_sends_the_model_nanobot_sends(tmp_path):
    choice, key = resolve_model(cfg_of(tmp_path, NANOBOT_035[6][0]))
    c = make_client(choice, key)
    assert isinstance(c, OpenAIClient) and c.model == "gpt-4" and c.url == "http://proxy/v1/chat/completions"
    choice, key = resolve_model(cfg_of(tmp_path, NANOBOT_035[11][0]))
    c = make_client(choice, key)
    assert isinstance(c, AnthropicClient) and c.url == "https://api.kimi.com/coding/v1/messages"


# -- overrides: --provider, --base-url ---------------------------------------------------------------
ANTHROPIC_CFG = {"agents": {"defaults": {"model": "claude-x", "provider": "anthropic"}},
                 "providers": {"anthropic": {"apiKey": "sk-ant-SECRET-9876"}}}


def test_a_base_url_without_provider_is_openai_compatible_and_gets_no_foreign_key(tmp_path):
    choice, key = resolve_model(cfg_of(tmp_path, ANTHROPIC_CFG), Overrides(base_url="http://127.0.0.1:9/v1", model="m"))
    assert choice.api == "openai" and key == "" and choice.key_source == "none"
    assert any("--provider anthropic" in r for r in choice.reasons)
    choice, key = resolve_model(cfg_of(tmp_path, ANTHROPIC_CFG),
                                Overrides(base_url="http://127.0.0.1:9", provider="anthropic"))
    assert choice.api == "anthropic" and key == "sk-ant-SECRET-9876"
    assert choice.key_source == "config.json providers.anthropic.apiKey"


def test_cli_base_url_to_an_openai_server_with_anthropic_in_config(make_workspace, llm_server, capsys):
    """Issue 10.6: with provider anthropic in config.json, --base-url to an OpenAI-compatible
    server went to /v1/messages."""
    root = make_workspace({"USER.md": "# User\n", "config.json": json.dumps(ANTHROPIC_CFG),
                           "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                                               "content": "- [durable] likes tea"}) + "\n"})
    srv = llm_server(default=turn(content="done"))
    code = main(["dream", str(root), "--base-url", srv.url, "--model", "m", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert srv.paths and all(p.endswith("/chat/completions") for p in srv.paths)
    assert "authorization" not in srv.headers[0] and "x-api-key" not in srv.headers[0]
    assert out["model"]["api"] == "openai" and out["model"]["source"] == "override"
    n = len(srv.paths)
    (root / "memory/.dream_cursor").write_text("0")
    code = main(["dream", str(root), "--base-url", srv.url.removesuffix("/v1"), "--provider", "anthropic",
                 "--model", "m", "--dry-run", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["model"]["api"] == "anthropic" and out["model"]["provider"] == "anthropic"
    assert srv.paths[n].endswith("/v1/messages") and srv.headers[n]["x-api-key"] == "sk-ant-SECRET-9876"


def test_cli_model_explains_the_choice(make_workspace, capsys):
    root = make_workspace({"USER.md": "# User\n", ".nanobot/workspace-id": "a" * 32 + "\n",
                           "config.json": json.dumps(NANOBOT_035[0][0])})
    assert main(["model", str(root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["provider"], out["api"], out["key"]) == ("openrouter", "openai", "config.json providers.openrouter.apiKey")
    assert out["prompt"] == "Dreamdesk's pass prompts" and "sk-or-x" not in json.dumps(out)
    assert main(["model", str(root)]) == 0
    text = capsys.readouterr().out
    assert "openrouter" in text and "Why" in text and "sk-or-x" not in text
    assert main(["model", str(root), "--provider", "nope"]) == 2
    assert "neither one nanobot knows" in capsys.readouterr().err


def test_a_jenny_home_without_a_model_is_not_given_nanobots_default(make_workspace, capsys):
    """nanobot's default model (an expensive one) applies to homes nanobot owns; a Jenny-style home
    that names no model gets the plain refusal, not a model nobody picked."""
    cfg = json.dumps(NANOBOT_035[0][0])
    jenny = make_workspace({"USER.md": "# User\n", "config.json": cfg})
    assert main(["model", str(jenny)]) == 2
    assert "no model configured" in capsys.readouterr().err


# -- the assistant's own Dream prompt -----------------------------------------------------------------
OWN = "Dream like this: keep only what the user asked to remember. Always write facts in German."


def test_prompts_dream_md_drives_the_consolidation_pass(make_workspace, llm_server, capsys):
    root = make_workspace({"USER.md": "# User\n", "prompts/dream.md": OWN + "\n\n",
                           "config.json": json.dumps({"agents": {"defaults": {"model": "m", "provider": "p"}},
                                                      "providers": {"p": {"apiBase": "http://127.0.0.1:1/v1"}}}),
                           "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                                               "content": "- [durable] likes tea"}) + "\n"})
    srv = llm_server(default=turn(content="done"))
    code = main(["dream", str(root), "--base-url", srv.url, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert out["model"]["prompt"] == "prompts/dream.md (the assistant's own)"
    systems = {r["messages"][0]["content"].split("This is the ", 1)[1][:14]: r["messages"][0]["content"]
               for r in srv.requests}
    consolidation = next(s for k, s in systems.items() if k.startswith("CONSOLIDATION"))
    assert OWN in consolidation and "Fold the new history entries" in consolidation
    assert all(OWN not in s for k, s in systems.items() if not k.startswith("CONSOLIDATION"))
    rec = json.loads((root / "memory/dreams" / f"{out['run_id']}.json").read_text())
    assert rec["prompt"] == {"consolidation": "prompts/dream.md", "chars": len(OWN)}
    assert rec["model_choice"]["prompt"] == "prompts/dream.md (the assistant's own)"


def test_an_empty_prompt_file_is_no_override(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts/dream.md").write_text("  \n\n")
    choice, _ = resolve_model(cfg_of(tmp_path, NANOBOT_035[0][0]), workspace=tmp_path)
    assert choice.prompt_source == "Dreamdesk's pass prompts"


# -- keys never travel ---------------------------------------------------------------------------------
def test_a_configured_key_reaches_no_record_log_or_snapshot(make_workspace, llm_server, capsys):
    srv = llm_server(default=turn(content="done"))
    secret = "sk-live-NEVER-LOGGED-31337"
    root = make_workspace({"USER.md": "# User\n", "config.json": json.dumps(
        {"agents": {"defaults": {"model": "m", "provider": "p"}},
         "providers": {"p": {"apiBase": srv.url, "apiKey": secret}}}),
        "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-01 10:00",
                                            "content": "- [durable] likes tea"}) + "\n"})
    code = main(["dream", str(root), "--json", "-v"])
    out, err = capsys.readouterr()
    assert code == 0 and srv.headers[0]["authorization"] == f"Bearer {secret}"
    assert json.loads(out)["model"]["key"] == "config.json providers.p.apiKey"
    assert main(["model", str(root)]) == 0
    out2, err2 = capsys.readouterr()
    assert secret not in out + err + out2 + err2
    for f in (root / "memory").rglob("*"):
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f
    if (root / ".git").is_dir():
        log = subprocess.run(["git", "-C", str(root), "log", "--all", "-p"], capture_output=True, text=True).stdout
        assert secret not in log


@pytest.mark.parametrize("provider,model,sent", [
    ("opencode", "opencode/claude-sonnet-4", "claude-sonnet-4"),
    ("opencode_go", "opencode-go/kimi-k2", "kimi-k2"),
    ("modelscope", "modelscope/Qwen/Qwen3", "Qwen/Qwen3"),
    ("modelscope", "Qwen/Qwen3", "Qwen/Qwen3"),          # not a route prefix: sent as it is
])
def test_route_prefixes_are_stripped_as_nanobot_strips_them(tmp_path, provider, model, sent):
    data = {"agents": {"defaults": {"model": model, "provider": provider}},
            "providers": {provider: {"apiKey": "k"}}}
    choice, _ = resolve_model(cfg_of(tmp_path, data))
    assert choice.sent_model == sent
