"""The providers package has no import circle, counting imports inside functions and at the bottom of files, and
the retry policy (`arena/runtime/retry.py`) stands on the standard library alone, so any layer may use it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "arena.generation.providers"


def imported(path: Path, module: str) -> set[str]:
    """Every module `path` imports anywhere in its body (`from X import Y` counts X and X.Y)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the importing module's package
                base = ".".join(module.split(".")[: -node.level] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def provider_graph() -> dict[str, set[str]]:
    modules = {
        (PACKAGE if p.stem == "__init__" else f"{PACKAGE}.{p.stem}"): p
        for p in (ROOT / "arena" / "generation" / "providers").glob("*.py")
    }
    return {name: imported(path, name) & set(modules) - {name} for name, path in modules.items()}


def test_no_import_circle_in_the_providers_package():
    graph = provider_graph()
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            assert state.get(nxt) != "open", " -> ".join([*trail, node, nxt])
            if nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert (
        "arena.generation.providers.params_more" in graph["arena.generation.providers.google_genai"]
    )  # the walk sees imports


def test_the_retry_policy_imports_only_the_standard_library():
    modules = imported(ROOT / "arena" / "runtime" / "retry.py", "arena.runtime.retry")
    assert modules and {m for m in modules if m.split(".")[0] not in sys.stdlib_module_names} == set()
