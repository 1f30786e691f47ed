"""No import circle anywhere in the application, counting imports inside functions and at the bottom of files.

A circle hides behind a late import until someone moves the import up; grimp reads every import statement of
every module (not only those that run at import time), so a late import counts as an edge here.
"""

from __future__ import annotations

import grimp

PACKAGES = ("arena", "ratings", "prompts_taxonomy", "scheduler")


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (iterative, no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def module_graph() -> dict[str, set[str]]:
    built = grimp.build_graph(*PACKAGES, include_external_packages=False)
    graph: dict[str, set[str]] = {}
    for module in built.modules:
        graph[module] = {
            imported
            for imported in built.find_modules_directly_imported_by(module)
            # a package's __init__ importing its own modules is how packages re-export; not a circle of code
            if not imported.startswith(module + ".")
        }
    return graph


def test_tarjan_finds_a_planted_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_back_through_others():
    circles = strongly_connected(module_graph())
    assert circles == [], "import circles: " + "; ".join(" <-> ".join(c) for c in circles)
