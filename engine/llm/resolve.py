"""Which model Dream talks to, resolved the way nanobot 0.3.5 resolves it, and why.

nanobot's order (nanobot/config/schema.py, providers/factory.py, agent/loop.py):
1. the preset: `agents.defaults.dream.modelOverride` when set (a name in `modelPresets`, or
   "default" for the agents.defaults fields), else `agents.defaults.modelPreset`, else the
   agents.defaults fields themselves (model `anthropic/claude-opus-4-5`, provider `auto`);
2. the provider: the preset's `provider`, or for "auto" nanobot's matcher (`_match_provider`):
   an explicit `prefix/` naming a provider, a custom provider named by the prefix, model-name
   keywords in registry order, configured local servers, then the first provider with a key,
   then the first custom provider with an apiBase;
3. the base URL: the provider block's apiBase, else the registry's default, else the SDK's;
4. the model sent: with some gateways' `prefix/` stripped, as nanobot's clients do.

Overrides (the command line, this machine's settings) win over config.json and are named in
the reasons. The API key travels apart from the choice and never reaches a reason, a label or
a record.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core import redact
from ..home.config import redact_url
from ..core.config_keys import lookup
from .base import LLMError
from .providers import BACKEND_API, PROVIDERS, ROUTE_PREFIXES, SDK_DEFAULT_BASES, ProviderSpec, find_by_name, prefix_key, snake

NANOBOT_DEFAULT_MODEL = "anthropic/claude-opus-4-5"
AUTO = "auto"
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the person running Dreamdesk said, over config.json."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key: str | None = None        # this machine's settings hold a key directly
    replay: str | None = None
    origin: str = "command line"       # named in the reasons

    @property
    def any(self) -> bool:
        return bool(self.provider or self.model or self.base_url or self.api_key_env or self.api_key)


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """Where Dream's model comes from, and why."""

    kind: str                 # openai | anthropic | replay: how it is spoken to
    model: str                # as configured (or overridden)
    base_url: str | None
    provider: str | None
    source: str               # "config.json" | "override" | "replay"
    api_key_env: str | None = None
    wire_model: str | None = None          # the name sent (a gateway prefix stripped); None: model
    preset: str | None = None              # the model preset it came from
    key_source: str = "none"               # where the key comes from (never the key)
    prompt_source: str = "Dreamdesk's pass prompts"
    reasons: tuple[str, ...] = ()

    @property
    def api(self) -> str:
        return self.kind

    @property
    def sent_model(self) -> str:
        return self.wire_model or self.model

    def describe(self) -> str:
        """For people and run records: never a key (a user:key@ in the URL is dropped)."""
        if self.kind == "replay":
            return f"replay of the recorded run {os.path.basename(self.base_url or '')}"
        return f"{self.model} via {self.provider or self.kind} ({redact_url(self.base_url)}) from {self.source}"

    def to_json(self) -> dict:
        return {"api": self.kind, "provider": self.provider, "model": self.model, "sent_model": self.sent_model,
                "base_url": redact_url(self.base_url) if self.kind != "replay" else self.base_url,
                "preset": self.preset, "source": self.source, "key": self.key_source,
                "prompt": self.prompt_source, "why": list(self.reasons)}


# -- config.json, read as nanobot reads it ---------------------------------------------------
def _get(node, *names):
    """The first of `names` (camelCase; snake_case also accepted) present in a dict."""
    if not isinstance(node, dict):
        return None
    for name in names:
        found, value, _ = lookup(node, name)
        if found:
            return value
    return None


def _env(value, where: str) -> str | None:
    """`${VAR}` references resolved as nanobot resolves them (a missing one is an error)."""
    if not isinstance(value, str):
        return None

    def sub(m: re.Match) -> str:
        got = os.environ.get(m.group(1))
        if got is None:
            raise LLMError(f"config.json {where} refers to ${{{m.group(1)}}}, which is not set in the environment "
                           "(the assistant refuses to start on it too)")
        return got
    return _ENV_REF.sub(sub, value) or None


@dataclass(slots=True)
class _Block:
    name: str                 # the provider's registry name, or the custom block's own key
    api_key: str | None = None
    api_base: str | None = None
    custom: bool = False


class _Providers:
    """config.json's `providers`: built-in blocks by registry name, custom ones by their key."""

    def __init__(self, raw: dict):
        self.builtin: dict[str, _Block] = {}
        self.custom: dict[str, _Block] = {}
        block = _get(raw, "providers")
        for key, conf in (block.items() if isinstance(block, dict) else ()):
            if not isinstance(conf, dict):
                continue
            spec = find_by_name(key)
            b = _Block(spec.name if spec else key, custom=spec is None)
            b.api_key = _env(_get(conf, "apiKey"), f"providers.{key}.apiKey")
            b.api_base = _env(_get(conf, "apiBase"), f"providers.{key}.apiBase")
            redact.register(b.api_key)           # every key config.json holds, used or not
            redact.register_url(b.api_base)
            (self.custom if spec is None else self.builtin)[b.name] = b

    def get(self, spec: ProviderSpec) -> _Block:
        """A built-in provider always has a block in nanobot (an empty one when not configured)."""
        return self.builtin.get(spec.name) or _Block(spec.name)

    def custom_named(self, name: str) -> _Block | None:
        want = name.replace("-", "_").lower()
        for key, b in self.custom.items():
            if key.replace("-", "_").lower() == want:
                return b
        return None


@dataclass(slots=True)
class _Preset:
    name: str | None
    model: str
    provider: str
    why: list[str] = field(default_factory=list)


def _preset(raw: dict, nanobot_default: bool = True) -> _Preset:
    defaults = _get(_get(raw, "agents"), "defaults")
    defaults = defaults if isinstance(defaults, dict) else {}
    presets = _get(raw, "modelPresets")
    presets = presets if isinstance(presets, dict) else {}
    dream_name = _get(_get(defaults, "dream"), "modelOverride", "model")
    main_name = _get(defaults, "modelPreset")
    for name, why in ((dream_name, "agents.defaults.dream.modelOverride"), (main_name, "agents.defaults.modelPreset")):
        if not isinstance(name, str) or not name:
            continue
        if name == "default":
            break
        conf = presets.get(name)
        if not isinstance(conf, dict):
            raise LLMError(f"{why} names the model preset {name!r}, which is not in modelPresets "
                           "(the assistant refuses this config too)")
        model = _get(conf, "model")
        if not isinstance(model, str) or not model:
            raise LLMError(f"modelPresets.{name} has no model")
        provider = _get(conf, "provider")
        return _Preset(name, model, provider if isinstance(provider, str) else AUTO,
                       [f"{why} names the preset {name!r}: model {model}"])
    model = _get(defaults, "model")
    provider = _get(defaults, "provider")
    why = []
    if isinstance(dream_name, str) and dream_name == "default":
        why.append("agents.defaults.dream.modelOverride is \"default\": the agents.defaults model")
    if isinstance(model, str) and model:
        why.append(f"agents.defaults.model is {model}")
    elif nanobot_default:
        model = NANOBOT_DEFAULT_MODEL
        why.append(f"agents.defaults.model is not set: nanobot's default {model}")
    else:
        # a Jenny-style home names its model; nobody chose nanobot's (expensive) default for it
        raise LLMError("no model configured (agents.defaults.model is not set)")
    return _Preset(None, model, provider if isinstance(provider, str) else AUTO, why)


# -- the matcher (nanobot's Config._match_provider) ------------------------------------------
def _forced(provs: _Providers, forced: str) -> tuple[_Block | None, ProviderSpec | None, str]:
    spec = find_by_name(forced)
    if spec:
        return provs.get(spec), spec, f"provider is {forced!r}"
    custom = provs.custom_named(forced)
    if custom:
        return custom, None, f"provider is {forced!r}, a custom provider in config.json"
    return None, None, f"provider {forced!r} is neither one nanobot knows nor a custom provider in config.json"


def _usable(spec: ProviderSpec, b: _Block) -> bool:
    return spec.keyless or bool(b.api_key)


_Pick = tuple[_Block | None, ProviderSpec | None, str]


def _auto(provs: _Providers, model: str) -> _Pick:
    """nanobot's "auto" provider: the first of its rules, in its order, that names a provider."""
    low = model.lower()
    prefix = low.split("/", 1)[0] if "/" in low else ""
    prefixed = find_by_name(prefix) if prefix else None
    for rule in (lambda: _by_prefix(provs, prefix), lambda: _by_keyword(provs, low, prefixed),
                 lambda: None if prefixed is not None else _local_server(provs),
                 lambda: _first_keyed(provs), lambda: _first_custom(provs)):
        if (picked := rule()) is not None:
            return picked
    return None, None, f"provider \"auto\": no provider in config.json can serve {model}"


def _chat_specs() -> list[ProviderSpec]:
    return [s for s in PROVIDERS if not s.is_transcription_only]


def _by_prefix(provs: _Providers, prefix: str) -> _Pick | None:
    """The model's prefix (`deepseek/…`) names a usable provider, or a custom one."""
    if not prefix:
        return None
    nprefix = prefix.replace("-", "_")
    for spec in _chat_specs():
        b = provs.get(spec)
        if nprefix == spec.name and _usable(spec, b):
            return b, spec, f"provider \"auto\": the model's prefix {prefix}/ names {spec.name}"
    if custom := provs.custom_named(nprefix):
        return custom, None, f"provider \"auto\": the model's prefix {prefix}/ names the custom provider {custom.name}"
    return None


def _by_keyword(provs: _Providers, low: str, prefixed: ProviderSpec | None) -> _Pick | None:
    """The model name holds a keyword of a usable provider (a local one only where it has a base
    and the prefix names no other)."""
    norm = low.replace("-", "_")
    for spec in _chat_specs():
        b = provs.get(spec)
        kw = next((k for k in spec.keywords if k.lower() in low or k.lower().replace("-", "_") in norm), None)
        if kw is None:
            continue
        if spec.is_local and (not b.api_base or (prefixed is not None and prefixed.name != spec.name)):
            continue
        if _usable(spec, b):
            return b, spec, f"provider \"auto\": the model name contains {kw!r}, a keyword of {spec.name}"
    return None


def _local_server(provs: _Providers) -> _Pick | None:
    """A configured local server: the one its base address names, else the first."""
    first = None
    for spec in (s for s in PROVIDERS if s.is_local):
        b = provs.get(spec)
        if not b.api_base:
            continue
        if spec.detect_by_base_keyword and spec.detect_by_base_keyword in b.api_base:
            return b, spec, f"provider \"auto\": {spec.name} is a configured local server"
        first = first or (b, spec)
    if first:
        return first[0], first[1], f"provider \"auto\": {first[1].name} is the first configured local server"
    return None


def _first_keyed(provs: _Providers) -> _Pick | None:
    for spec in PROVIDERS:
        if spec.is_oauth or spec.is_transcription_only:
            continue
        b = provs.get(spec)
        if b.api_key:
            return b, spec, f"provider \"auto\": no provider named by the model has a key; {spec.name} is the first that has one"
    return None


def _first_custom(provs: _Providers) -> _Pick | None:
    for b in provs.custom.values():
        if b.api_base:
            return b, None, f"provider \"auto\": the custom provider {b.name} is the first with an apiBase"
    return None


def _wire_model(spec: ProviderSpec | None, block: _Block, model: str, api: str) -> str:
    """The model name nanobot's client sends."""
    if "/" not in model:
        return model
    if api == "anthropic":
        return model[len("anthropic/"):] if model.startswith("anthropic/") else model
    if spec is not None:
        if spec.strip_model_prefix:
            return model.split("/")[-1]
        head, rest = model.split("/", 1)
        routes = {prefix_key(p) for p in ROUTE_PREFIXES.get(spec.name, ())}
        return rest if prefix_key(head) in routes else model
    head, rest = model.split("/", 1)
    return rest if snake(head).lower() in {snake(block.name).lower(), block.name.lower()} else model


def _check(spec: ProviderSpec | None, b: _Block | None, name: str | None, model: str) -> str:
    """nanobot's own setup checks (factory._resolve_provider_setup); returns the api style."""
    if b is None or name is None:
        raise LLMError(f"no provider is configured for the model {model}: add an apiKey under providers.<name> "
                       "in config.json, or name a provider and base URL for this run")
    if spec is None:
        if not b.api_base:
            raise LLMError(f"the custom provider {name} needs providers.{name}.apiBase in config.json")
        return "openai"
    if spec.is_transcription_only:
        raise LLMError(f"the provider {name} only transcribes audio; it cannot run Dream")
    api = BACKEND_API.get(spec.backend)
    if api is None:
        raise LLMError(f"the provider {name} uses nanobot's {spec.backend} client, which Dreamdesk does not "
                       "speak; give a base URL (and provider) of an OpenAI-compatible or Anthropic server for this run")
    if api == "openai" and spec.is_direct and not spec.default_api_base and not b.api_base:
        raise LLMError(f"the provider {name} needs providers.{name}.apiBase in config.json")
    if not b.api_key and not spec.keyless:
        raise LLMError(f"no API key configured for the provider {name} (providers.{name}.apiKey)")
    return api


def _base(spec: ProviderSpec | None, b: _Block, api: str) -> tuple[str, str]:
    if b.api_base:
        return b.api_base, f"base URL from providers.{b.name}.apiBase"
    if spec and spec.default_api_base:
        return spec.default_api_base, f"base URL: {spec.name}'s default"
    return SDK_DEFAULT_BASES[api], f"base URL: the {api} SDK's default"


def _url_api(url: str) -> str:
    return "anthropic" if "api.anthropic.com" in url else "openai"


# -- the one entry point ---------------------------------------------------------------------
def _presets_apply(workspace: Path | None, raw: dict) -> bool:
    """Model presets (and nanobot's default model) apply to a home whose assistant has them (or
    when no workspace is known)."""
    if workspace is None:
        return True
    from ..assistants import detect_assistant
    ws = Path(workspace)
    home = ws.parent if ((ws.parent / "config.json").exists() or (ws.parent / "sessions").is_dir()) else None
    return detect_assistant(ws, home, raw).uses_model_presets


def resolve_model(cfg, overrides: Overrides | None = None,
                  workspace: Path | None = None) -> tuple[ModelChoice, str]:
    """(the choice, the API key) for Dream. `workspace` finds the assistant's own Dream prompt."""
    o = overrides or Overrides()
    prompt = _prompt_source(workspace)
    if o.replay:
        return ModelChoice("replay", "replay", o.replay, None, "replay", prompt_source=prompt,
                           reasons=(f"{o.origin}: replay of a recorded run",)), ""
    raw = cfg.raw if isinstance(getattr(cfg, "raw", None), dict) else {}
    try:
        preset = _preset(raw, _presets_apply(workspace, raw))
    except LLMError:
        if not (o.model and (o.base_url or o.provider)):
            raise
        preset = _Preset(None, o.model, AUTO)
    why = list(preset.why)
    model = preset.model
    if o.model:
        model = o.model
        why.append(f"{o.origin}: model {model}")
    forced = o.provider or preset.provider
    if o.provider:
        why.append(f"{o.origin}: provider {o.provider}")
    provs = _Providers(raw)
    block, spec, how = (_forced(provs, forced) if forced != AUTO else _auto(provs, model))
    name = (spec.name if spec else block.name) if block is not None else None
    why.append(how)
    if o.base_url:
        return _with_base_url(o, model, spec, block, name, why, prompt, preset.name)
    try:
        api = _check(spec, block, name, model)
    except LLMError as exc:
        raise LLMError(f"{exc} (how it was chosen: {'; '.join(why)})") from None
    base, base_why = _base(spec, block, api)
    why.append(base_why)
    key, key_source = _key(o, block, name)
    why.append(f"{'Anthropic Messages API' if api == 'anthropic' else 'OpenAI-compatible chat completions'}"
               f" ({spec.backend if spec else 'custom'} in nanobot)")
    return ModelChoice(api, model, base, name, "override" if o.any else "config.json", o.api_key_env,
                       _wire_model(spec, block, model, api), preset.name, key_source, prompt,
                       tuple(why)), key


def _with_base_url(o: Overrides, model: str, spec, block, name, why: list[str], prompt: str,
                   preset: str | None) -> tuple[ModelChoice, str]:
    """An explicit base URL: the provider's api style only when it was named too."""
    why.append(f"{o.origin}: base URL {redact_url(o.base_url)}")
    if o.provider and block is not None:
        api = BACKEND_API.get(spec.backend) if spec else "openai"
        if api is None:
            raise LLMError(f"the provider {name} uses nanobot's {spec.backend} client, which Dreamdesk does not speak")
        why.append(f"spoken as {name} speaks: {api}")
        key, key_source = _key(o, block, name)
    else:
        api = _url_api(o.base_url or "")
        hint = " (add --provider anthropic for an Anthropic-style server)" if o.origin == "command line" else ""
        why.append(f"a base URL without a provider: spoken as "
                   f"{'Anthropic (its host)' if api == 'anthropic' else 'OpenAI-compatible' + hint}")
        key, key_source = _key(o, None, None)
    if not key and not o.api_key_env and o.api_key is None and block is not None and not o.provider:
        why.append(f"no key sent: the configured key is for {name}'s own server"
                   + (f" (pass --api-key-env, or --provider {name} to send it)" if o.origin == "command line" else ""))
    return ModelChoice(api, model, o.base_url, name if o.provider else None, "override", o.api_key_env,
                       _wire_model(spec, block, model, api) if (o.provider and block) else model,
                       preset, key_source, prompt, tuple(why)), key


def _key(o: Overrides, block: _Block | None, name: str | None) -> tuple[str, str]:
    if o.api_key_env:
        key = os.environ.get(o.api_key_env, "")
        if not key:
            raise LLMError(f"environment variable {o.api_key_env} is empty or not set")
        return key, f"environment variable {o.api_key_env}"
    if o.api_key:
        return o.api_key, o.origin
    if block is not None and block.api_key:
        return block.api_key, f"config.json providers.{name}.apiKey"
    return "", "none"


# -- the assistant's own Dream prompt ---------------------------------------------------------
PROMPT_REL = "prompts/dream.md"
PROMPT_MAX_CHARS = 32_000      # nanobot's WORKSPACE_PROMPT_MAX_CHARS


def assistant_dream_prompt(workspace: Path | None) -> str | None:
    """`<workspace>/prompts/dream.md` as nanobot reads it: right-stripped, None when missing,
    unreadable or empty, capped at 32,000 characters."""
    if workspace is None:
        return None
    try:
        text = (Path(workspace) / PROMPT_REL).read_text(encoding="utf-8").rstrip()
    except (OSError, UnicodeDecodeError):
        return None
    return text[:PROMPT_MAX_CHARS] if text else None


def _prompt_source(workspace: Path | None) -> str:
    return f"{PROMPT_REL} (the assistant's own)" if assistant_dream_prompt(workspace) else "Dreamdesk's pass prompts"
