"""The ratings package is pure math: it imports only numpy, scipy and the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import ratings

ALLOWED = {"numpy", "scipy", "ratings"}


def test_ratings_imports_only_numpy_scipy_and_the_standard_library():
    package = Path(ratings.__file__).parent
    offenders = []
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in ALLOWED and top not in sys.stdlib_module_names and top != "__future__":
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_everything_published_in_all_exists():
    for name in ratings.__all__:
        assert hasattr(ratings, name), name
