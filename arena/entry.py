"""The `arena` console script: `arena ratings fit` starts on a short path (Typer and the ratings package only);
every other command loads the full command line (`arena.cli.main`)."""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:3] == ["ratings", "fit"]:
        from arena.cli.ratings import fit_main

        fit_main(sys.argv[3:])
        return
    from arena.cli.main import main as full

    full()
