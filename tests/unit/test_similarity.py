"""Near-duplicate detection: normalized text similarity against a documented threshold."""

from prompts_taxonomy import DEFAULT_THRESHOLD, find_near_duplicates, normalize_text, text_similarity


def test_normalization_ignores_case_punctuation_and_spacing():
    assert normalize_text("  A Red-Car,  on a HILL!! ") == "a red car on a hill"
    assert text_similarity("A red car, on a hill.", "a RED car on a hill") == 1.0


def test_light_rewording_is_a_near_duplicate_and_a_distinct_prompt_is_not():
    base = "A cozy reading nook by a rainy window, warm lamp light, a cat asleep on a knitted blanket"
    reworded = "A cozy reading nook by a rainy window with warm lamp light and a cat asleep on a wool blanket"
    distinct = 'A poster for a rock festival that reads "LOUD NIGHTS 2027" with a guitar silhouette'
    assert text_similarity(base, reworded) > DEFAULT_THRESHOLD
    assert text_similarity(base, distinct) < 0.3


def test_duplicates_are_found_against_the_pool_and_earlier_candidates():
    pool = [("p1", "A watercolor fox sleeping under a birch tree in the snow")]
    candidates = [
        "a watercolor fox sleeping under a birch tree in the snow!",
        "An isometric pixel-art bakery with a striped awning",
        "An isometric pixel art bakery, with a striped awning",
    ]
    found = find_near_duplicates(candidates, pool)
    assert [(d.index, d.other) for d in found] == [(0, "p1"), (2, "line 2")]
    assert all(d.similarity > DEFAULT_THRESHOLD for d in found)
