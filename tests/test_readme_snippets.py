"""The README's "Use it from your RL library" snippets run as written (issue 17 item 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Use it from your RL library"
NEEDS = {"torchrl": "torchrl", "tianshou": "tianshou", "sb3_contrib": "sb3_contrib"}


def snippets() -> list[str]:
    text = README.read_text(encoding="utf-8")
    assert SECTION in text, f"README.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_section_has_a_snippet_for_each_client():
    code = snippets()
    assert len(code) == 4
    for word in ("env.agent_iter", "PettingZooWrapper", "PettingZooEnv", "MaskablePPO"):
        assert sum(word in c for c in code) == 1, word


@pytest.mark.parametrize("index", range(4))
def test_snippet_runs(index, capsys):
    code = snippets()[index]
    for module, name in NEEDS.items():
        if f"from {module}" in code or f"import {module}" in code:
            pytest.importorskip(name)
    exec(compile(code, f"README.md snippet {index + 1}", "exec"), {"__name__": "__readme__"})
