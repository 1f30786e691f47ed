"""CLI conventions: `arena --version` beside `arena version`, and help pages whose flags carry no `<bool>` type
(Typer's Rich help printed one for every flag, `--help` included)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from arena import __version__
from arena.cli.main import app
from tests.unit.test_cli_startup import _command_lines

RUNNER = CliRunner()


def test_version_option_and_command_print_the_version():
    for args in (["--version"], ["version"]):
        result = RUNNER.invoke(app, args)
        assert result.exit_code == 0 and result.stdout == f"{__version__}\n"


def test_no_help_page_shows_a_bool_type_and_every_flag_is_listed_bare():
    pages = {
        " ".join(words): RUNNER.invoke(app, [*words, "--help"], terminal_width=120)
        for words in _command_lines(app)
    }
    assert all(page.exit_code == 0 for page in pages.values())
    noisy = [
        line
        for line, page in pages.items()
        if "<bool>" in page.stdout or "bool" in page.stdout.lower().split()
    ]
    assert noisy == []
    generate = pages["generate"].stdout
    assert re.search(r"^  --json\s+Print JSON\.$", generate, re.M)
    assert re.search(r"^  --retry-failed / --no-retry-failed$", generate, re.M)
    assert re.search(
        r"^  --limit <int range>\s+At most this many outputs, prompt by prompt", generate, re.M
    )  # values keep a type
    assert re.search(r"^  --version\s+Print the version and exit\.$", pages[""].stdout, re.M)
