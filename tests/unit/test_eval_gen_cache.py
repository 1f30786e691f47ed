"""The generation cache key changes with every input that decides the image and with nothing else."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.evals.gen_cache import generation_key
from arena.evals.suite_types import Case

CASE = Case(
    id="c", task="editing", prompt="Make it red.", references=(Path("ref.png"),), edit_region=(0, 0, 1, 1)
)
BASE = ("model-a", "openai", {"size": "512x512"}, CASE, 42, (b"ref",), b"mask")


def key(**change: object) -> str:
    names = ("slug", "adapter", "params", "case", "seed", "references", "mask")
    values = dict(zip(names, BASE, strict=True)) | change
    return generation_key(**values)  # type: ignore[arg-type]


def test_every_input_that_decides_the_image_changes_the_key():
    base = key()
    assert key() == base and key(params={"size": "512x512"}) == base  # stable, not identity-based
    changed = [
        key(slug="model-b"),
        key(adapter="openai_compatible"),
        key(params={"size": "1024x1024"}),
        key(case=replace(CASE, prompt="Make it blue.")),
        key(case=replace(CASE, steps=("Make it red.", "Add a star."))),
        key(case=replace(CASE, task="generation")),
        key(case=replace(CASE, edit_region=(0, 0, 0.5, 0.5))),
        key(seed=43),
        key(references=(b"other",)),
        key(references=(b"ref", b"second")),
        key(mask=None),
        key(mask=b"other mask"),
    ]
    assert base not in changed and len(set(changed)) == len(changed)


def test_what_does_not_decide_the_image_keeps_the_key():
    assert key(case=replace(CASE, id="renamed", criteria="any", tags=("x",), expected="y")) == key()
