"""config.json: tolerant reading with defaults, validation that names the key and value, and a
single write funnel that preserves every key it does not know.

The file is camelCase (nanobot also accepts snake_case spellings, so reading does too and a write
updates whichever spelling the file already uses).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..disk.files import MISSING_HASH, atomic_write_text, checked_write, read_state
from ..core.problems import INFO, WARNING, Problem, WorkspaceError
from ..core.config_keys import lookup, snake
from ..core.rules import BUDGET_KEYS

if TYPE_CHECKING:
    from .workspace import Workspace

REVIEW_FLOOR = 12
# The seed's measured reason, shown wherever a cadence below the floor is asked for.
REVIEW_FLOOR_REASON = (
    "Below 12 runs the review passes start meeting each other: the second lands on a file the "
    "first already pruned and keeps looking for things to remove. Measured on a real device, two "
    "consecutive passes took USER.md from 3,524 to 1,626 characters (31% of that on the second "
    "pass alone), and a forced pass on a later build removed five real entries: two open "
    "questions, a plan, a biographical detail and one insight. Removed entries now go to "
    "memory/archive/ first, so nothing is lost; the cost is tokens spent on every unattended run "
    "for pruning that has nothing left to prune. 12 is the cadence the rest of the design assumes."
)


def redact_url(url: str | None) -> str:
    """A base URL fit for a label, a log line or a run record: user:password@ and the whole
    query (some gateways take `?key=...`, or a bare token) are masked, a fragment is dropped."""
    text = re.sub(r"(?<=://)[^/@]*@", "•••@", url or "")
    text = text.split("#", 1)[0]
    base, _, query = text.partition("?")
    return base + ("?•••" if query else "")


class BelowFloorError(WorkspaceError):
    def __init__(self, value: int):
        super().__init__(
            f"reviewEveryRuns {value} is below the floor of {REVIEW_FLOOR}; it needs an explicit "
            f"confirmation (--confirm-below-floor). Why: {REVIEW_FLOOR_REASON}")
        self.value = value


@dataclass(frozen=True, slots=True)
class Setting:
    path: str                     # dotted camelCase path from the root of config.json
    kind: str                     # bool | int | number | str | choice
    default: Any
    minimum: float | None = None
    exclusive_minimum: bool = False
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    doc: str = ""
    # a key of the contract's config schema (../shared/spec/), which the assistant's own config
    # saves keep; False: a key of Dreamdesk's own, which an assistant's save may drop. What the
    # assistant's own loader accepts for a shared key is its adapter's (engine/assistants/).
    shared: bool = False
    nonempty: bool = False        # str: Dreamdesk never writes "" (read as the file has it)
    # how Settings → Memory shows it (the form is built from this table): its label, the unit
    # after the number, the arrow keys' step, and what 0 means when 0 is special
    label: str = ""
    unit: str = ""
    step: float | None = None
    zero_means: str = ""
    form_max: float | None = None   # the form's highest value where the key has no maximum (a larger
                                    # one in config.json stays valid: the form says so, keeps it)

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    def describe_range(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "str":
            return "a non-empty string" if self.nonempty else "a string"
        what = "a whole number" if self.kind == "int" else "a number"
        if self.minimum is not None:
            op = ">" if self.exclusive_minimum else "≥"
            what += f" {op} {self.minimum:g}"
        if self.maximum is not None:
            what += f" and ≤ {self.maximum:g}"
        return what

    def check(self, value: Any) -> str | None:
        """None when `value` is valid, else why not."""
        if self.kind == "bool":
            return None if isinstance(value, bool) else "must be true or false"
        if self.kind in ("str", "choice"):
            if not isinstance(value, str):
                return "must be a string"
            if self.choices and value not in self.choices:
                return "must be " + self.describe_range()
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "must be " + self.describe_range()
        if self.kind == "int" and not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
            return "must be " + self.describe_range()
        if isinstance(value, float) and not math.isfinite(value):
            return "must be " + self.describe_range()
        if self.minimum is not None:
            if value < self.minimum or (self.exclusive_minimum and value == self.minimum):
                return "must be " + self.describe_range()
        if self.maximum is not None and value > self.maximum:
            return "must be " + self.describe_range()
        return None

    def check_write(self, value: Any) -> str | None:
        """None when Dreamdesk may write `value`. Stricter than reading, never looser; for a shared
        key, Dreamdesk's range lies inside what each assistant's own loader takes (its adapter's
        rules; tests/engine/home/test_config.py holds nanobot's to it)."""
        why = self.check(value)
        if why is None and self.nonempty and isinstance(value, str) and not value.strip():
            why = "must be " + self.describe_range()
        return why

    def refusal(self, value: Any, spelled: str | None = None, note: str | None = None) -> str:
        """The one-line reason a value is refused (or ignored when read), naming the key and
        value; `note`: what the home's assistant says of it (its adapter's config_note)."""
        why = self.check_write(value) or self.check(value) or ""
        text = f"{spelled or self.name} {why}, got {json.dumps(value, ensure_ascii=False)}"
        return text + (f" ({note})" if note else "")

    def parse(self, text: str) -> Any:
        """A CLI string as this setting's type; raises ValueError with a clear reason."""
        t = text.strip()
        if self.kind == "bool":
            low = t.lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise ValueError(f"{self.name} must be true or false, got {text!r}")
        if self.kind in ("str", "choice"):
            return t
        try:
            number = int(t)
        except ValueError:
            try:   # "1.5" for a whole-number key is parsed, then refused by check with the reason
                number = float(t)
            except ValueError:
                raise ValueError(f"{self.name} must be {self.describe_range()}, got {text!r}") from None
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        return number


_D = "agents.defaults"
_DREAM = f"{_D}.dream"
# `shared`: the contract's keys, which the assistant's own schema knows too (camelCase aliases,
# snake_case accepted); Dreamdesk's range for each lies inside what the assistant's loader takes
# (its adapter's rules), so nothing Dreamdesk writes stops the assistant from starting. The
# others are Dreamdesk's own (an assistant ignores them on load and may drop them on save).
_BUDGET_FORM = {"unit": "chars", "step": 100, "zero_means": "measure only, never refuse", "form_max": 1_000_000}
SETTINGS: tuple[Setting, ...] = (
    Setting(f"{_DREAM}.enabled", "bool", True, doc="Whether Dream runs on its own.", shared=True,
            label="Periodic consolidation"),
    Setting(f"{_DREAM}.intervalH", "int", 2, 1, False, 8760, doc="Whole hours between scheduled runs.",
            shared=True, label="Every", unit="h"),
    Setting(f"{_DREAM}.memoryBudgetChars", "int", 3000, 0, doc="Budget of memory/MEMORY.md; 0 = measure only.",
            **_BUDGET_FORM),
    Setting(f"{_DREAM}.userBudgetChars", "int", 3000, 0, doc="Budget of USER.md; 0 = measure only.", **_BUDGET_FORM),
    Setting(f"{_DREAM}.soulBudgetChars", "int", 0, 0, doc="Budget of SOUL.md; 0 = measure only.", **_BUDGET_FORM),
    Setting(f"{_DREAM}.reviewEveryRuns", "int", 12, 1, doc="Every how many runs the review pass runs.",
            label="Review pass every", unit="runs", form_max=10_000),
    Setting(f"{_DREAM}.passes.review", "bool", True, doc="Run the review (shrinking) pass on its cadence."),
    Setting(f"{_DREAM}.passes.consolidation", "bool", True, doc="Fold new history into the files (Jenny)."),
    Setting(f"{_DREAM}.passes.deduction", "bool", True, doc="Knowledge updates, implications, contradictions."),
    Setting(f"{_DREAM}.passes.induction", "bool", True, doc="Patterns across ≥2 entries, with confidence."),
    Setting(f"{_DREAM}.schedule", "choice", "interval", choices=("interval", "activity"),
            doc="interval: every intervalH hours; activity: after enough new history and idle time."),
    Setting(f"{_DREAM}.activityThreshold", "int", 50, 1, doc="New history entries that make a dream due."),
    Setting(f"{_DREAM}.cooldownH", "number", 8, 0, False, 8760, doc="Hours between activity-scheduled dreams."),
    Setting(f"{_DREAM}.idleMinutes", "number", 60, 0, False, 525_600,
            doc="Minutes without new history before an activity dream."),
    Setting(f"{_D}.idleCompactAfterMinutes", "int", 15, 0, False, 525_600,
            doc="Idle compaction after this many minutes; 0 = off.", shared=True),
    Setting(f"{_D}.maxMessages", "int", 120, 1, doc="Messages kept in a session."),
    Setting(f"{_D}.consolidationRatio", "number", 0.5, 0, True, 1, doc="Share of the budget compaction aims for."),
    Setting(f"{_D}.contextWindowTokens", "int", 65536, 1, doc="The model's context window.", shared=True),
    Setting(f"{_D}.maxTokens", "int", 8192, 1, doc="Tokens reserved for the model's answer.", shared=True),
    # an empty model or provider names nothing an assistant can call
    Setting(f"{_D}.model", "str", "", doc="The main agent's model (Dream uses it too).", shared=True,
            nonempty=True),
    Setting(f"{_D}.provider", "str", "", doc="The provider name under providers.<name>.", shared=True,
            nonempty=True),
)
BY_PATH = {s.path: s for s in SETTINGS}


def find_setting(key: str) -> Setting:
    """Accept the full dotted path, `dream.<name>`, or a unique bare name (`reviewEveryRuns`)."""
    k = key.strip()
    if k in BY_PATH:
        return BY_PATH[k]
    matches = [s for s in SETTINGS if s.path.endswith("." + k) or _camel(s.path).endswith("." + _camel(k))]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(s.name for s in SETTINGS)
    raise WorkspaceError(f"unknown config key {key!r} (known: {known})")


def has_setting(key: str) -> bool:
    """Whether find_setting knows `key`."""
    try:
        find_setting(key)
    except WorkspaceError:
        return False
    return True


def _camel(path: str) -> str:
    return ".".join(re.sub(r"_([a-z])", lambda m: m.group(1).upper(), p) for p in path.split("."))


@dataclass
class Config:
    """Effective configuration: the file's valid values over the spec's defaults."""

    path: Path | None                 # the config.json that was read (None: none found)
    raw: dict | None                  # parsed file (None: missing or unreadable)
    problems: list[Problem] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)    # full path -> effective value
    sources: dict[str, str] = field(default_factory=dict)   # full path -> file | default | invalid
    display: str = "config.json"
    readable: bool = True             # False: exists but cannot be parsed (writes are refused)
    refuse_writes: str | None = None  # why Dreamdesk never writes this file (another assistant's own)
    # the values read and refused: (their problem's index in problems, the setting, the value, the
    # key as the file spells it), so the home's assistant can add its own words (noted_problems)
    invalid: list[tuple[int, "Setting", Any, str | None]] = field(default_factory=list)

    def get(self, key: str) -> Any:
        return self.values[find_setting(key).path]

    @property
    def dream(self) -> dict[str, Any]:
        prefix = _DREAM + "."
        return {p[len(prefix):]: v for p, v in self.values.items() if p.startswith(prefix)}

    def budget_for(self, rel: str) -> int:
        key = BUDGET_KEYS.get(rel)
        return int(self.values[f"{_DREAM}.{key}"]) if key else 0

    def providers(self) -> dict[str, dict[str, Any]]:
        """providers.<name> blocks with the key masked (never print a raw key)."""
        found, block, _ = lookup(self.raw or {}, "providers")
        out: dict[str, dict[str, Any]] = {}
        if found and isinstance(block, dict):
            for name, conf in block.items():
                if not isinstance(conf, dict):
                    continue
                _, key, _ = lookup(conf, "apiKey")
                _, base, _ = lookup(conf, "apiBase")
                if isinstance(base, str):
                    base = redact_url(base)
                out[name] = {"apiBase": base if isinstance(base, str) else None,
                             "apiKey": mask_key(key if isinstance(key, str) else "")}
        return out

    def to_json(self) -> dict:
        return {
            "path": str(self.path) if self.path else None,
            "settings": {
                s.path: {"value": self.values[s.path], "source": self.sources[s.path], "default": s.default}
                for s in SETTINGS
            },
            "dream": self.dream,
            "providers": self.providers(),
            "problems": [p.to_json() for p in self.problems],
        }


class _Unfaithful(ValueError):
    pass


def parse_strict(text: str):
    """json.loads that refuses what a rewrite could not give back as it was: NaN/Infinity,
    duplicate keys, and numbers that do not survive the round trip."""
    def pairs(items):
        seen = set()
        for k, _ in items:
            if k in seen:
                raise _Unfaithful(f"the key {k!r} appears twice in one object")
            seen.add(k)
        return dict(items)

    def constant(name):
        raise _Unfaithful(f"it holds {name}, which is not JSON")

    def number(tok):
        from decimal import Decimal
        value = float(tok)
        if not math.isfinite(value) or Decimal(tok) != Decimal(repr(value)):
            raise _Unfaithful(f"the number {tok} has more digits than a rewrite keeps")
        return value

    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_float=number)


def mask_key(key: str) -> str:
    if not key:
        return ""
    if len(key) <= 8:
        return "•" * len(key)
    return key[:3] + "•" * 6 + key[-2:]


def load(path: Path | None, display: str = "config.json", *, json5: bool = False,
         refuse_writes: str | None = None, settings: bool = True) -> Config:
    """The effective config. `json5`: the file is read as its assistant reads it, JSON then JSON5
    (comments, trailing commas); `refuse_writes`: why Dreamdesk never rewrites it; `settings`
    False: Dreamdesk's settings are not kept in it (another assistant's schema: its keys are
    not Dreamdesk's, every setting reads as its default)."""
    cfg = Config(path=path, raw=None, display=display, refuse_writes=refuse_writes)
    raw: Any = None
    if path is None:
        cfg.problems.append(Problem(display, "no config.json found; using the defaults", severity=INFO))
    elif path.is_dir():
        cfg.readable = False
        cfg.problems.append(Problem(display, "is a folder, not a file; using the defaults"))
    else:
        raw = _read_raw(cfg, path, display, json5)
    cfg.raw = raw
    for s in SETTINGS:
        found, value, spelled = lookup(raw or {}, s.path) if settings else (False, None, None)
        if not found or value is None:
            cfg.values[s.path], cfg.sources[s.path] = s.default, "default"
            continue
        why = s.check(value)
        if why:
            cfg.values[s.path], cfg.sources[s.path] = s.default, "invalid"
            cfg.invalid.append((len(cfg.problems), s, value, spelled))
            cfg.problems.append(_invalid_problem(display, s, value, spelled))
        else:
            if s.kind == "int" and isinstance(value, float):
                value = int(value)
            cfg.values[s.path], cfg.sources[s.path] = value, "file"
    return cfg


def _read_raw(cfg: Config, path: Path, display: str, json5: bool) -> dict | None:
    """The file's object, or None with the problem said (and cfg.readable False when it exists)."""
    try:
        state = read_state(path)
    except OSError as exc:
        cfg.readable = False
        cfg.problems.append(Problem(display, f"cannot be read ({exc.strerror or exc}); using the defaults"))
        return None
    if not state.exists:
        cfg.problems.append(Problem(display, "no config.json found; using the defaults", severity=INFO))
        return None
    if state.decode_error:
        cfg.readable = False
        cfg.problems.append(Problem(display, f"{state.decode_error}; using the defaults and refusing to rewrite it"))
        return None
    try:
        raw = json.loads(state.text)
    except json.JSONDecodeError as exc:
        if json5:
            return _read_json5(cfg, state.text, display)
        cfg.readable = False
        cfg.problems.append(Problem(display, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                                             "using the defaults and refusing to rewrite it", line=exc.lineno))
        return None
    except (ValueError, RecursionError) as exc:
        cfg.readable = False
        cfg.problems.append(Problem(display, f"cannot be read as JSON ({type(exc).__name__}: "
                                             f"{str(exc)[:120]}); using the defaults and refusing to rewrite it"))
        return None
    return _object(cfg, raw, display)


def _read_json5(cfg: Config, text: str, display: str) -> dict | None:
    import json5
    try:
        raw = json5.loads(text)
    except (ValueError, RecursionError) as exc:
        cfg.readable = False
        cfg.problems.append(Problem(display, f"not valid JSON5 ({str(exc)[:160]}); its assistant refuses it too; "
                                             "using the defaults"))
        return None
    return _object(cfg, raw, display)


def _object(cfg: Config, raw: Any, display: str) -> dict | None:
    if isinstance(raw, dict):
        return raw
    cfg.readable = False
    cfg.problems.append(Problem(display, f"top level must be a JSON object, got {type(raw).__name__}; "
                                         "using the defaults and refusing to rewrite it"))
    return None


ConfigNote = Callable[[str, Any], "str | None"]   # (setting path, value) -> the assistant's words, or None


def _invalid_problem(display: str, s: Setting, value: Any, spelled: str | None, note: str | None = None) -> Problem:
    return Problem(display, f"{s.refusal(value, spelled, note)}; using the default {json.dumps(s.default)}")


def noted_problems(cfg: Config, note: ConfigNote | None) -> list[Problem]:
    """cfg.problems, each refused value's with what the home's assistant says of it (`note`:
    its adapter's config_note, e.g. that nanobot refuses to start on it)."""
    out = list(cfg.problems)
    if note is None:
        return out
    for i, s, value, spelled in cfg.invalid:
        words = note(s.path, value)
        if words:
            out[i] = _invalid_problem(cfg.display, s, value, spelled, words)
    return out


def set_value(cfg: Config, key: str, value: Any, *, confirm_below_floor: bool = False,
              create_at: Path | None = None) -> Config:
    """The write funnel for one key (see set_values)."""
    return set_values(cfg, {key: value}, confirm_below_floor=confirm_below_floor, create_at=create_at)


def _typed(setting: Setting, value: Any, *, confirm_below_floor: bool, note: ConfigNote | None = None) -> Any:
    """`value` (a CLI string or a typed value) as it will be written; raises WorkspaceError."""
    if isinstance(value, str) and setting.kind not in ("str", "choice"):
        try:
            value = setting.parse(value)
        except ValueError as exc:
            raise WorkspaceError(str(exc)) from None
    if setting.check_write(value):
        raise WorkspaceError(setting.refusal(value, note=note(setting.path, value) if note else None))
    if setting.kind == "int":
        value = int(value)
    if setting.path == f"{_DREAM}.reviewEveryRuns" and value < REVIEW_FLOOR and not confirm_below_floor:
        raise BelowFloorError(value)
    return value


def set_values(cfg: Config, updates: dict[str, Any], *, confirm_below_floor: bool = False,
               create_at: Path | None = None, before_write: Callable[[], None] | None = None,
               note: ConfigNote | None = None) -> Config:
    """The write funnel: validate every value, apply them to the file as it is now on disk, write
    once, atomically.

    A value may be a CLI string (parsed by the setting's type) or an already typed value; one
    refused value writes nothing at all. Keeps every other key and the file's key order; refuses
    to touch a file it cannot parse. `before_write` runs once every check has passed, just before
    the write (what raises there stops it). Returns the reloaded Config.
    """
    if cfg.refuse_writes:
        raise WorkspaceError(cfg.refuse_writes)
    typed: dict[str, Any] = {}
    for key, value in updates.items():
        setting = find_setting(key)
        typed[setting.path] = _typed(setting, value, confirm_below_floor=confirm_below_floor, note=note)
    path = _write_target(cfg, create_at)
    state = read_state(path)
    raw = _rewritable(cfg, state) if state.exists else {}
    for spath, value in typed.items():
        _put(cfg, raw, spath, value)
    text = json.dumps(raw, indent=2, ensure_ascii=False) + "\n"
    if before_write is not None:
        before_write()
    checked_write(path, text, state.hash if state.exists else MISSING_HASH, display=cfg.display)
    if not state.exists:
        try:
            path.chmod(0o600)  # it may come to hold API keys
        except OSError:
            pass
    return load(path, cfg.display)


def _write_target(cfg: Config, create_at: Path | None) -> Path:
    path = cfg.path if cfg.path is not None else create_at
    if path is None:
        raise WorkspaceError("no config.json to write and nowhere to create one")
    # a config.json that is a symlink (say, into a dotfiles repository) is written where it
    # leads, so the link stays a link
    path = Path(os.path.realpath(path))
    if path.is_dir():
        raise WorkspaceError(f"{cfg.display} is a folder, not a file")
    return path


def _rewritable(cfg: Config, state) -> dict:
    """The file's JSON object, or the reason in words it will not be rewritten."""
    if state.decode_error:
        raise WorkspaceError(f"{cfg.display} is {state.decode_error}; fix it by hand first, Dreamdesk will not rewrite it")
    try:
        raw = parse_strict(state.text)
    except json.JSONDecodeError as exc:
        raise WorkspaceError(f"{cfg.display} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                             "fix it by hand first, Dreamdesk will not rewrite a file it cannot read") from None
    except _Unfaithful as exc:
        raise WorkspaceError(f"{cfg.display} cannot be rewritten faithfully: {exc}; change it by hand") from None
    except (ValueError, RecursionError) as exc:
        raise WorkspaceError(f"{cfg.display} cannot be read ({type(exc).__name__}); fix it by hand first") from None
    if not isinstance(raw, dict):
        raise WorkspaceError(f"{cfg.display}: top level is not a JSON object; Dreamdesk will not rewrite it")
    return raw


def _put(cfg: Config, raw: dict, spath: str, value: Any) -> None:
    """Set the dotted path in the parsed file, under the key spelling it already uses
    (camelCase or snake_case), creating the objects on the way."""
    node = raw
    parts = spath.split(".")
    for part in parts[:-1]:
        for cand in (part, snake(part)):
            if cand in node:
                nxt = node[cand]
                if not isinstance(nxt, dict):
                    raise WorkspaceError(f"{cfg.display}: {cand} is not an object ({json.dumps(nxt)}); "
                                         "fix it by hand first")
                node = nxt
                break
        else:
            node[part] = {}
            node = node[part]
    leaf = parts[-1]
    if leaf not in node and snake(leaf) in node:
        leaf = snake(leaf)
    node[leaf] = value


# -- what Dreamdesk wrote, remembered in its own per-workspace state ---------------------------
# nanobot's own config saves (onboard --refresh, its settings, a provider login) write back only
# the keys its schema knows, so Dreamdesk's own keys (budgets, the review cadence, the passes,
# activity scheduling) vanish from config.json and would silently read as defaults. Dreamdesk
# remembers what it wrote outside the workspace and says when the file lost it; it never writes
# it back on its own (that would fight the assistant): the person re-applies or forgets.
WRITTEN_NAME = "config-written.json"


@dataclass(frozen=True, slots=True)
class LostSetting:
    path: str          # full dotted path
    value: Any         # what Dreamdesk wrote
    default: Any       # what is used instead now

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    def to_json(self) -> dict:
        return {"key": self.path, "value": self.value, "default": self.default}


def _written_path(root: Path, create: bool = False) -> Path:
    from ..core.state import workspace_state_dir
    return workspace_state_dir(root, create=create) / WRITTEN_NAME


def remembered(root: Path) -> dict[str, Any]:
    """Full path -> the value Dreamdesk last wrote (and the file has not shown another since).
    Reads only; a value today's rules would not write is not offered back."""
    try:
        data = json.loads(_written_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    settings = data.get("settings") if isinstance(data, dict) else None
    if not isinstance(settings, dict):
        return {}
    return {k: v for k, v in settings.items() if k in BY_PATH and BY_PATH[k].check_write(v) is None}


def _present(raw: Any, path: str) -> tuple[bool, Any]:
    found, value, _ = lookup(raw or {}, path)
    return found and value is not None, value


def lost_settings(root: Path, cfg: Config) -> list[LostSetting]:
    """Remembered keys config.json no longer holds. A key the file holds with another value is
    not lost (the file wins). Nothing is said about a file that cannot be read (that is its own
    problem) — a missing file lost everything Dreamdesk wrote to it."""
    if not cfg.readable:
        return []
    return [LostSetting(path, value, BY_PATH[path].default)
            for path, value in remembered(root).items() if not _present(cfg.raw, path)[0]]


def lost_problem(lost: LostSetting, display: str = "config.json") -> Problem:
    setting = BY_PATH[lost.path]
    why = ("the assistant's own config saves drop the keys it does not know, as nanobot's do"
           if not setting.shared else "it was removed from the file")
    return Problem(display, f"{lost.path} = {json.dumps(lost.value, ensure_ascii=False)}, which Dreamdesk wrote, "
                            f"is gone ({why}); the default {json.dumps(lost.default, ensure_ascii=False)} "
                            "is used until it is re-applied", severity=WARNING)


def _remember(state_file: Path, before: dict[str, Any], new: Config, written: list[str]) -> None:
    out: dict[str, Any] = {}
    for path, old in before.items():
        present, value = _present(new.raw, path)
        if not present:
            out[path] = old                      # still lost: still offered back
        elif BY_PATH[path].check(value) is None:
            out[path] = new.values[path]         # changed in the file since: the file wins
        else:
            out[path] = old
    for path in written:
        out[path] = new.values[path]
    # a key at its default has nothing to lose: an absent key reads as the same value
    out = {p: v for p, v in out.items() if not _same(v, BY_PATH[p].default)}
    atomic_write_text(state_file, json.dumps({"version": 1, "config": str(new.path) if new.path else None,
                                              "settings": out}, indent=2, ensure_ascii=False) + "\n")


def _same(a: Any, b: Any) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def write_settings(ws: "Workspace", updates: dict[str, Any], *, confirm_below_floor: bool = False,
                   note: ConfigNote | None = None) -> Config:
    """The workspace's config funnel: set_values on its config.json, then remember what was
    written in Dreamdesk's own state. The state folder is made once every check has passed, just
    before the write: a write whose record could not be kept is never made, and a refused one
    leaves no trace at all."""
    state_file = _written_path(ws.root)
    before = remembered(ws.root)
    paths = [find_setting(k).path for k in updates]
    new = set_values(ws.config(), updates, confirm_below_floor=confirm_below_floor, note=note,
                     create_at=ws.config_create_path,
                     before_write=lambda: _written_path(ws.root, create=True) and None)
    _remember(state_file, before, new, paths)
    return new


def writable(ws: "Workspace") -> Config:
    """The workspace's config, or why Dreamdesk will not rewrite it (a file it cannot read)."""
    cfg = ws.config()
    if cfg.refuse_writes:
        raise WorkspaceError(cfg.refuse_writes)
    if not cfg.readable:
        bad = next(p for p in cfg.problems if p.severity == "error")
        raise WorkspaceError(f"{bad}; Dreamdesk will not rewrite a config.json it cannot read")
    return cfg


def reapply(ws: "Workspace") -> tuple[Config, list[LostSetting]]:
    """Write back every remembered key config.json lost, in one write. A cadence below the
    review floor was confirmed when it was first written."""
    cfg = writable(ws)
    lost = lost_settings(ws.root, cfg)
    if not lost:
        return cfg, []
    return write_settings(ws, {x.path: x.value for x in lost}, confirm_below_floor=True), lost


def forget(ws: "Workspace", keys: list[str] | None = None) -> list[str]:
    """Stop remembering `keys` (all when None); config.json is not touched."""
    before = remembered(ws.root)
    drop = set(before) if keys is None else {find_setting(k).path for k in keys}
    gone = [p for p in before if p in drop]
    if gone:
        rest = {p: v for p, v in before.items() if p not in drop}
        atomic_write_text(_written_path(ws.root, create=True),
                          json.dumps({"version": 1, "settings": rest}, indent=2, ensure_ascii=False) + "\n")
    return gone
