"""Paths named in user-supplied files stay inside the file's folder: absolute paths, `..` escapes, symlinks (to a
file or a folder) leading out and symlink loops are refused; `..` and symlinks that stay inside are fine. The
held-out labels file of `arena judge check` follows the rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from arena.judge.heldout import LabelsError, read_labels
from arena.judge.scenario_rubrics import load_rubrics
from arena.runtime.inside import OutsideFolder, inside


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/files/{a.png, sub/, link-in -> a.png, link-out -> ../private.png, dir-out -> ../elsewhere, loop}."""
    files = tmp_path / "files"
    (files / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    for path in (files / "a.png", tmp_path / "private.png", tmp_path / "elsewhere" / "b.png"):
        Image.new("RGB", (8, 8), "red").save(path)
    (files / "link-in").symlink_to(files / "a.png")
    (files / "link-out").symlink_to(tmp_path / "private.png")
    (files / "dir-out").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (files / "loop").symlink_to(files / "loop")
    return files


def test_names_that_stay_inside_resolve(tree):
    root = tree.resolve()
    assert inside(tree, "a.png") == root / "a.png"
    assert inside(tree, "sub/../a.png") == root / "a.png"
    assert inside(tree, "link-in") == root / "a.png"
    assert inside(tree, "sub/missing.png") == root / "sub" / "missing.png"  # existence is the caller's check


@pytest.mark.parametrize(
    "name, reason",
    [
        ("../private.png", "leads outside"),
        ("sub/../../private.png", "leads outside"),
        ("link-out", "leads outside"),
        ("dir-out/b.png", "leads outside"),
        ("/etc/passwd", "is an absolute path"),
        ("loop", "cannot be resolved"),
    ],
)
def test_names_leading_out_are_refused(tree, name, reason):
    with pytest.raises(OutsideFolder, match=reason) as caught:
        inside(tree, name)
    assert str(caught.value).startswith(f"'{name}' ")


def test_the_judge_labels_file_refuses_images_outside_its_folder(tree):
    path = tree / "held.jsonl"
    row = {"id": "x", "prompt": "A red square", "image_a": "a.png", "image_b": "link-out", "label": "a"}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(LabelsError, match=rf"^{path}:1: image 'link-out' leads outside"):
        read_labels(path, load_rubrics())
    path.write_text(json.dumps({**row, "image_b": "a.png"}) + "\n")
    assert len(read_labels(path, load_rubrics())) == 1
