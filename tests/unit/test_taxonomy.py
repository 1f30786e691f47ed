"""The taxonomy data file holds exactly the methodology's axes, each label fully described."""

from prompts_taxonomy import load_taxonomy, parse_taxonomy
from prompts_taxonomy.taxonomy import TAXONOMY_FILE

USE_CASES = [
    "Marketing & Advertising",
    "Retail & E-commerce",
    "Live-Action Film",
    "Animation & Gaming",
    "Architecture & Real Estate",
    "Productivity & Knowledge Work",
    "UI/UX Design",
    "Consumer",
    "Social Media & Creator Content",
    "Frontier",
]
CAPABILITIES = [
    "Reasoning",
    "Knowledge",
    "Text Rendering",
    "Layout",
    "Complex Compositions",
    "Lighting",
    "Material",
    "Physics",
    "Human Anatomy",
]


def test_taxonomy_has_exactly_the_ten_use_cases_and_nine_capabilities_of_the_methodology():
    taxonomy = load_taxonomy()
    assert [u.name for u in taxonomy.use_cases] == USE_CASES
    assert [c.name for c in taxonomy.capabilities] == CAPABILITIES
    assert len(taxonomy.cells()) == 90


def test_every_use_case_and_capability_has_a_description_examples_and_a_voter_hint():
    taxonomy = load_taxonomy()
    for label in taxonomy.use_cases + taxonomy.capabilities:
        assert len(label.description) > 20, label.slug
        assert len(label.examples) >= 3, label.slug
        assert 20 < len(label.hint) < 140, label.slug


def test_two_modalities_and_optional_style_tags_are_defined():
    taxonomy = load_taxonomy()
    assert taxonomy.slugs("modality") == ("text_to_image", "image_editing")
    styles = set(taxonomy.slugs("style"))
    assert {"photorealistic", "illustration", "3d_render", "graphic_design"} <= styles
    assert all(s.hint for s in taxonomy.styles)


def test_a_duplicate_slug_in_the_data_file_is_refused():
    text = TAXONOMY_FILE.read_text(encoding="utf-8").replace('slug = "consumer"', 'slug = "frontier"')
    try:
        parse_taxonomy(text)
    except ValueError as exc:
        assert "duplicate use_case slug" in str(exc)
    else:
        raise AssertionError("duplicate slug accepted")
