"""Write the bytecode of what the arena imports, once, at install time (`make run` calls it).

uv installs packages without bytecode, and where PYTHONDONTWRITEBYTECODE is set (this machine, many container
images) Python never caches it either, so every `arena` command and every server start compiled numpy, scipy,
SQLAlchemy and the arena itself from source again (about 1 CPU s for `arena ratings fit`, bench/bench_cli.py).
Compiling every installed file instead (uv's --compile-bytecode) cost 8-9 s of a 15 s install; this writes only
what is imported: the arena's own packages (all of them, compileall), then, with bytecode writing switched on for
this one process, the server, every CLI command and the scipy parts other rating code loads lazily.

Python ignores a cached file whose source changed, so editing the code needs no second run.
"""

from __future__ import annotations

import compileall
import contextlib
import importlib
import io
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "ratings", "prompts_taxonomy", "scheduler")
# Imported inside functions: Typer's parameter conversion, and scipy where the rating job and other commands use it
# (Plackett-Luce boards, certainty figures, agreement statistics; `arena ratings fit` itself no longer imports it).
LAZY = (
    "typer._adapters",
    "scipy.sparse",
    "scipy.sparse.csgraph",
    "scipy.special",
    "scipy.linalg",
    "scipy.stats",
    "scipy.optimize",
)


def main() -> int:
    """Compile the checkout's packages, then import the entry points with bytecode writing on."""
    ok = all(compileall.compile_dir(ROOT / name, quiet=1, workers=0) for name in PACKAGES)
    sys.dont_write_bytecode = False
    import arena.cli
    import arena.entry  # the console script

    modules = ["arena.app", *LAZY]
    modules += [f"arena.cli.{m.name}" for m in pkgutil.iter_modules(arena.cli.__path__)]
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # an optional extra that is not installed: nothing to warm there
            print(f"warm_bytecode: skipped {name} ({type(exc).__name__}: {exc})", file=sys.stderr)
    for argv in (["--help"], ["ratings", "fit", "--help"]):  # what Typer imports only to run a command
        sys.argv = ["arena", *argv]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            arena.entry.main()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
