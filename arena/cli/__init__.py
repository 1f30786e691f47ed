"""The `arena` command line. The Typer app is assembled in `arena.cli.main`; this `__init__` imports nothing, so
`arena ratings fit` (`arena.cli.ratings`) starts without loading the rest of the application."""
