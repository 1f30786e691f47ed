"""The two-axis taxonomy (use case x capability), style tags and modalities, read from a TOML data file."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")
TAXONOMY_FILE = DATA_DIR / "taxonomy.toml"


@dataclass(frozen=True)
class Label:
    """One label on one axis: its slug, display name, description, example tasks and voter hint."""

    axis: str
    slug: str
    name: str
    description: str = ""
    hint: str = ""
    examples: tuple[str, ...] = ()
    position: int = 0


@dataclass(frozen=True)
class Taxonomy:
    """The taxonomy as loaded: ordered labels per axis, and the 90 (use case, capability) cells."""

    version: str
    modalities: tuple[Label, ...]
    use_cases: tuple[Label, ...]
    capabilities: tuple[Label, ...]
    styles: tuple[Label, ...]
    _by_axis: dict[str, dict[str, Label]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for axis, labels in self.axes().items():
            self._by_axis[axis] = {label.slug: label for label in labels}

    def axes(self) -> dict[str, tuple[Label, ...]]:
        """Labels keyed by axis name: modality, use_case, capability, style."""
        return {
            "modality": self.modalities,
            "use_case": self.use_cases,
            "capability": self.capabilities,
            "style": self.styles,
        }

    def has(self, axis: str, slug: str) -> bool:
        """Whether `slug` is a label on `axis`."""
        return slug in self._by_axis.get(axis, {})

    def label(self, axis: str, slug: str) -> Label:
        """The label `slug` on `axis` (KeyError when unknown)."""
        return self._by_axis[axis][slug]

    def slugs(self, axis: str) -> tuple[str, ...]:
        """The slugs on `axis`, in the data file's order."""
        return tuple(self._by_axis[axis])

    def cells(self) -> list[tuple[str, str]]:
        """Every (use case, capability) cell, use-case major."""
        return [(u.slug, c.slug) for u in self.use_cases for c in self.capabilities]


def _labels(axis: str, rows: list[dict[str, object]]) -> tuple[Label, ...]:
    labels = []
    for position, row in enumerate(rows):
        examples = row.get("examples", [])
        labels.append(
            Label(
                axis=axis,
                slug=str(row["slug"]),
                name=str(row["name"]),
                description=str(row.get("description", "")),
                hint=str(row.get("hint", "")),
                examples=tuple(str(e) for e in examples) if isinstance(examples, list) else (),
                position=position,
            )
        )
    slugs = [label.slug for label in labels]
    if len(set(slugs)) != len(slugs):
        raise ValueError(f"duplicate {axis} slug in taxonomy file")
    return tuple(labels)


def parse_taxonomy(text: str) -> Taxonomy:
    """Parse taxonomy TOML text into a `Taxonomy`."""
    data = tomllib.loads(text)
    return Taxonomy(
        version=str(data.get("version", "")),
        modalities=_labels("modality", data["modalities"]),
        use_cases=_labels("use_case", data["use_cases"]),
        capabilities=_labels("capability", data["capabilities"]),
        styles=_labels("style", data.get("styles", [])),
    )


@cache
def load_taxonomy(path: Path = TAXONOMY_FILE) -> Taxonomy:
    """Load (and cache) the taxonomy shipped with the package, or another file."""
    return parse_taxonomy(Path(path).read_text(encoding="utf-8"))
