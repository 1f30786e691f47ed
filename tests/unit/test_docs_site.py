"""The documentation site builds with `mkdocs build --strict`, and the README stays a short map into it.

Strict mode plus mkdocs.yml's `validation` settings turn a link to a missing page or file, a link to a missing
heading and a page left out of the nav into build failures; the tests below break each on a copy to prove it.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]
    return subprocess.run([*command, "--site-dir", str(site)], capture_output=True, text=True, timeout=120)


def _nav_pages(nav: list) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        for value in entry.values():
            pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def _page_html(site: Path, page: str) -> Path:
    """Where mkdocs (directory URLs) writes a page: index.md -> index.html, x.md -> x/index.html."""
    stem = page.removesuffix(".md")
    return site / "index.html" if stem == "index" else site / stem / "index.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    result = _build(ROOT / "mkdocs.yml", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_the_site_builds_in_strict_mode_with_every_nav_page(site: Path) -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = _nav_pages(config["nav"])
    assert {"configuration.md", "cli.md", "methodology.md", "operations.md", "eval-harness.md"} <= set(pages)
    assert {"judge.md", "deploy.md", "benchmarks.md"} <= set(pages)
    missing = [page for page in pages if not _page_html(site, page).is_file()]
    assert not missing, f"nav pages not built: {missing}"


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        ("link", "nothere.md"),
        ("anchor", "#no-such-heading"),
        ("omitted", "stray.md"),
    ],
)
def test_the_strict_build_fails_on_a_broken_docs_page(tmp_path: Path, breakage: str, expected: str) -> None:
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    if breakage == "omitted":
        (docs / "stray.md").write_text("# A page nobody listed\n", encoding="utf-8")
    else:
        target = "nothere.md" if breakage == "link" else "methodology.md#no-such-heading"
        with (docs / "cli.md").open("a", encoding="utf-8") as page:
            page.write(f"\nSee [this]({target}).\n")
    result = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    assert expected in result.stdout + result.stderr


def test_the_readme_stays_under_300_lines() -> None:
    assert len(README.splitlines()) < 300


def test_every_readme_link_resolves_to_a_file_and_heading(site: Path) -> None:
    broken = []
    for target in README_LINK.findall(README):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        if not (ROOT / path).exists():
            broken.append(target)
        elif anchor and path.startswith("docs/") and path.endswith(".md"):
            html = _page_html(site, path.removeprefix("docs/")).read_text(encoding="utf-8")
            if f'id="{anchor}"' not in html:
                broken.append(target)
    assert not broken, f"README links that lead nowhere: {broken}"
