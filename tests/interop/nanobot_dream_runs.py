"""What the scripted model does in each of nanobot's own Dream runs on a fixture home (the
home make-home wrote): before each run nanobot appends the history lines, then its Dream
asks the loopback model, which answers with these tool calls, then says it is done. Every run
but the last removes or replaces real lines of USER.md and memory/MEMORY.md; the last changes
nothing (nanobot then makes no commit). Each run's calls report a different token usage, so a
run's tokens tell which run they belong to."""

from __future__ import annotations

from dataclasses import dataclass, field

from helpers.llm_server import turn


def _edit(path: str, old: str, new: str) -> tuple[str, dict]:
    return ("edit_file", {"path": path, "old_text": old, "new_text": new})


MEMORY_AFTER_RUN_3 = """# Long-term Memory

## Projects
- Gave the tide-table talk in June
- Blog moved to Zola, deployed on Fridays
"""


@dataclass(frozen=True)
class DreamRun:
    history: tuple[str, ...]
    calls: tuple[tuple[str, dict], ...]
    answer: str
    removed: dict[str, tuple[str, ...]] = field(default_factory=dict)   # file -> lines gone
    added: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def script(self, n: int) -> list[dict]:
        """The model's turns: one tool call a turn, then the answer; usage (1000n+i, 10n+i)."""
        turns = [turn(c, usage=(1000 * n + i, 10 * n + i)) for i, c in enumerate(self.calls)]
        return turns + [turn(content=self.answer, usage=(1000 * n + len(self.calls), 10 * n + len(self.calls)))]

    @property
    def calls_count(self) -> int:
        return len(self.calls) + 1


RUNS = (
    DreamRun(history=("- User switched the blog from Hugo to Zola", "- User no longer uses dark mode"),
             calls=(("read_file", {"path": "USER.md"}),
                    _edit("USER.md", "- Prefers dark mode\n", ""),
                    _edit("memory/MEMORY.md", "- Blog runs on Hugo", "- Blog moved to Zola")),
             answer="Removed the dark-mode preference; the blog is on Zola now.",
             removed={"USER.md": ("- Prefers dark mode",), "memory/MEMORY.md": ("- Blog runs on Hugo",)},
             added={"memory/MEMORY.md": ("- Blog moved to Zola",)}),
    DreamRun(history=("- User gave the tide-table talk in June", "- User wants replies in Portuguese"),
             calls=(_edit("USER.md", "- Short replies", "- Short replies, in Portuguese"),
                    _edit("memory/MEMORY.md", "- Writing a talk about tide tables",
                          "- Gave the tide-table talk in June")),
             answer="Updated the reply language and the talk.",
             removed={"USER.md": ("- Short replies",),
                      "memory/MEMORY.md": ("- Writing a talk about tide tables",)},
             added={"USER.md": ("- Short replies, in Portuguese",),
                    "memory/MEMORY.md": ("- Gave the tide-table talk in June",)}),
    DreamRun(history=("- User moved again, to Braga", "- User stopped drinking tea",
                      "- User deploys the blog on Fridays"),
             calls=(_edit("USER.md", "- Lives in Lisbon (since May)", "- Lives in Braga"),
                    _edit("USER.md", "- Prefers tea over coffee\n", ""),
                    ("write_file", {"path": "memory/MEMORY.md", "content": MEMORY_AFTER_RUN_3})),
             answer="Braga, no tea, Friday deploys.",
             removed={"USER.md": ("- Lives in Lisbon (since May)", "- Prefers tea over coffee"),
                      "memory/MEMORY.md": ("- Blog moved to Zola",)},
             added={"USER.md": ("- Lives in Braga",),
                    "memory/MEMORY.md": ("- Blog moved to Zola, deployed on Fridays",)}),
    DreamRun(history=("- User said thanks",), calls=(), answer="Nothing to update."),
)
