"""The `arena` console script: `arena ratings fit` starts on a short path (the ratings package, and Typer only for
command lines `arena.cli.ratings_fit.parse_quick` leaves to it); every other command loads the full command line
(`arena.cli.main`)."""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:3] == ["ratings", "fit"]:
        from arena.cli.ratings_fit import quick_main

        if quick_main(sys.argv[3:]):  # its usual command lines, without Typer's start-up
            return
        from arena.cli.ratings import fit_main

        fit_main(sys.argv[3:])
        return
    from arena.cli.main import main as full

    full()
