"""nanobot 0.3.5's provider registry, as data (read from nanobot/providers/registry.py; order
matters: it is nanobot's match priority and fallback order).

Only what resolving a provider needs is kept: the config name, the model-name keywords, the
backend (how it is spoken to), the default API base and the flags the matcher reads.
"""

from __future__ import annotations

from dataclasses import dataclass

# nanobot's backend -> how Dreamdesk speaks to it (None: a backend Dreamdesk does not speak)
BACKEND_API = {"openai_compat": "openai", "anthropic": "anthropic"}
# what the SDKs nanobot uses default to when neither config nor registry names a base
SDK_DEFAULT_BASES = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    name: str
    keywords: tuple[str, ...]
    backend: str
    default_api_base: str = ""
    detect_by_base_keyword: str = ""
    flags: frozenset[str] = frozenset()

    @property
    def is_gateway(self) -> bool:
        return "is_gateway" in self.flags

    @property
    def is_local(self) -> bool:
        return "is_local" in self.flags

    @property
    def is_oauth(self) -> bool:
        return "is_oauth" in self.flags

    @property
    def is_direct(self) -> bool:
        return "is_direct" in self.flags

    @property
    def is_transcription_only(self) -> bool:
        return "is_transcription_only" in self.flags

    @property
    def strip_model_prefix(self) -> bool:
        return "strip_model_prefix" in self.flags

    @property
    def keyless(self) -> bool:
        """Matched (and used) without an API key."""
        return self.is_oauth or self.is_local or self.is_direct


def _P(name: str, keywords: tuple[str, ...], backend: str, base: str, base_kw: str, flags: str) -> ProviderSpec:
    return ProviderSpec(name, keywords, backend, base, base_kw, frozenset(flags.split()))


PROVIDERS: tuple[ProviderSpec, ...] = (
    _P('custom', (), 'openai_compat', '', '', 'is_direct'),
    _P('azure_openai', ('azure', 'azure-openai'), 'azure_openai', '', '', 'is_direct'),
    _P('bedrock', ('bedrock', 'anthropic.claude', 'amazon.nova', 'meta.', 'mistral.', 'cohere.', 'qwen.', 'deepseek.', 'openai.gpt-oss', 'ai21.', 'moonshot.', 'writer.', 'zai.'), 'bedrock', '', '', 'is_direct'),
    _P('openrouter', ('openrouter',), 'openai_compat', 'https://openrouter.ai/api/v1', 'openrouter', 'is_gateway'),
    _P('orcarouter', ('orcarouter',), 'openai_compat', 'https://api.orcarouter.ai/v1', 'orcarouter', 'is_gateway'),
    _P('edenai', ('edenai',), 'openai_compat', 'https://api.edenai.run/v3', 'edenai', 'is_gateway'),
    _P('opencode', ('opencode/', 'opencode', 'opencode-zen', 'opencode_zen'), 'openai_compat', 'https://opencode.ai/zen/v1', 'opencode.ai/zen', 'is_gateway'),
    _P('opencode_zen', ('opencode/', 'opencode_zen', 'opencode-zen'), 'openai_compat', 'https://opencode.ai/zen/v1', 'opencode.ai/zen', 'is_gateway'),
    _P('opencode_go', ('opencode-go', 'opencode_go'), 'openai_compat', 'https://opencode.ai/zen/go/v1', 'opencode.ai/zen/go', 'is_gateway'),
    _P('huggingface', ('huggingface', 'hugging-face'), 'openai_compat', 'https://router.huggingface.co/v1', 'huggingface', 'is_gateway'),
    _P('skywork', ('skywork', 'skyclaw', 'apifree'), 'openai_compat', 'https://api.apifree.ai/agent/v1', 'apifree.ai', 'is_gateway'),
    _P('aihubmix', ('aihubmix',), 'openai_compat', 'https://aihubmix.com/v1', 'aihubmix', 'is_gateway strip_model_prefix'),
    _P('siliconflow', ('siliconflow',), 'openai_compat', 'https://api.siliconflow.cn/v1', 'siliconflow', 'is_gateway'),
    _P('novita', ('novita',), 'openai_compat', 'https://api.novita.ai/openai', 'novita', 'is_gateway'),
    _P('volcengine', ('volcengine', 'volces', 'ark'), 'openai_compat', 'https://ark.cn-beijing.volces.com/api/v3', 'volces', 'is_gateway'),
    _P('volcengine_coding_plan', ('volcengine-plan',), 'openai_compat', 'https://ark.cn-beijing.volces.com/api/coding/v3', '', 'is_gateway strip_model_prefix'),
    _P('byteplus', ('byteplus',), 'openai_compat', 'https://ark.ap-southeast.bytepluses.com/api/v3', 'bytepluses', 'is_gateway strip_model_prefix'),
    _P('byteplus_coding_plan', ('byteplus-plan',), 'openai_compat', 'https://ark.ap-southeast.bytepluses.com/api/coding/v3', '', 'is_gateway strip_model_prefix'),
    _P('anthropic', ('anthropic', 'claude'), 'anthropic', '', '', ''),
    _P('openai', ('openai', 'gpt'), 'openai_compat', '', '', ''),
    _P('openai_codex', ('openai-codex',), 'openai_codex', 'https://chatgpt.com/backend-api', 'codex', 'is_oauth'),
    _P('xai_grok', ('xai-grok', 'xai_grok'), 'xai_grok', 'https://cli-chat-proxy.grok.com/v1', '', 'is_oauth'),
    _P('github_copilot', ('github_copilot', 'copilot'), 'github_copilot', 'https://api.githubcopilot.com', '', 'is_oauth strip_model_prefix'),
    _P('deepseek', ('deepseek',), 'openai_compat', 'https://api.deepseek.com', '', ''),
    _P('gemini', ('gemini', 'gemma'), 'openai_compat', 'https://generativelanguage.googleapis.com/v1beta/openai/', '', ''),
    _P('zhipu', ('zhipu', 'glm', 'zai'), 'openai_compat', 'https://open.bigmodel.cn/api/paas/v4', '', ''),
    _P('dashscope', ('qwen', 'dashscope'), 'openai_compat', 'https://dashscope.aliyuncs.com/compatible-mode/v1', '', ''),
    _P('modelscope', ('modelscope',), 'openai_compat', 'https://api-inference.modelscope.cn/v1', 'modelscope', 'is_gateway'),
    _P('moonshot', ('moonshot', 'kimi'), 'openai_compat', 'https://api.moonshot.ai/v1', '', ''),
    _P('kimi_coding', ('kimi-coding', 'kimi_coding', 'kimi-for-coding'), 'anthropic', 'https://api.kimi.com/coding/v1', '', ''),
    _P('minimax', ('minimax',), 'openai_compat', 'https://api.minimax.io/v1', '', ''),
    _P('minimax_anthropic', ('minimax_anthropic',), 'anthropic', 'https://api.minimax.io/anthropic', '', ''),
    _P('mistral', ('mistral', 'magistral', 'ministral', 'codestral', 'devstral'), 'openai_compat', 'https://api.mistral.ai/v1', '', ''),
    _P('stepfun', ('stepfun', 'step'), 'openai_compat', 'https://api.stepfun.com/v1', '', ''),
    _P('xiaomi_mimo', ('xiaomi_mimo', 'mimo'), 'openai_compat', 'https://api.xiaomimimo.com/v1', '', ''),
    _P('longcat', ('longcat',), 'openai_compat', 'https://api.longcat.chat/openai/v1', '', ''),
    _P('ant_ling', ('ant_ling', 'ant-ling', 'ling-', 'ring-'), 'openai_compat', 'https://api.ant-ling.com/v1', 'ant-ling.com', ''),
    _P('vllm', ('vllm',), 'openai_compat', '', '', 'is_local'),
    _P('ollama', ('ollama', 'nemotron'), 'openai_compat', 'http://localhost:11434/v1', '11434', 'is_local'),
    _P('lm_studio', ('lm-studio', 'lmstudio', 'lm_studio'), 'openai_compat', 'http://localhost:1234/v1', '1234', 'is_local'),
    _P('atomic_chat', ('atomic-chat', 'atomic_chat', 'atomicchat'), 'openai_compat', 'http://localhost:1337/v1', '1337', 'is_local'),
    _P('ovms', ('openvino', 'ovms'), 'openai_compat', 'http://localhost:8000/v3', '', 'is_local is_direct'),
    _P('nvidia', ('nvidia', 'nemotron', 'nvapi'), 'openai_compat', 'https://integrate.api.nvidia.com/v1', 'nvidia.com', ''),
    _P('groq', ('groq',), 'openai_compat', 'https://api.groq.com/openai/v1', '', ''),
    _P('assemblyai', ('assemblyai',), 'openai_compat', 'https://api.assemblyai.com/v2', '', 'is_transcription_only'),
    _P('qianfan', ('qianfan', 'ernie'), 'openai_compat', 'https://qianfan.baidubce.com/v2', '', ''),
)
BY_NAME = {s.name: s for s in PROVIDERS}


# a route prefix stripped only when it is the model's first segment (nanobot's
# `strip_model_prefixes`; "opencode/claude-sonnet-4" is sent as "claude-sonnet-4")
ROUTE_PREFIXES: dict[str, tuple[str, ...]] = {
    "opencode": ("opencode", "opencode_zen", "opencode-zen"),
    "opencode_zen": ("opencode", "opencode_zen", "opencode-zen"),
    "opencode_go": ("opencode-go", "opencode_go"),
    "modelscope": ("modelscope",),
}


def prefix_key(prefix: str) -> str:
    return snake(prefix.replace("-", "_")).lower()


def snake(name: str) -> str:
    """nanobot's to_snake for provider names: camelCase and dashes to snake_case."""
    out = []
    text = name.replace("-", "_")
    for i, ch in enumerate(text):
        if ch.isupper() and i and (text[i - 1].islower() or text[i - 1].isdigit()):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def find_by_name(name: str) -> ProviderSpec | None:
    return BY_NAME.get(snake(name)) if name else None
