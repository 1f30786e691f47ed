"""Freshness: how closely each pool prompt resembles the live corpus of recent real prompts.

A pool prompt's freshness is its nearest-neighbour cosine similarity to the corpus: the best match among the
month's real prompts. Vectors come from a sentence-embedding model when one is installed (see
`arena.prompts.embeddings`) or from the lexical fallback here: TF-IDF over character 3- to 5-grams of the normalized
text (words padded with spaces, sublinear term frequency, smoothed idf fitted on pool and corpus together,
L2-normalized), which rewards shared vocabulary and phrasing rather than meaning.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

from prompts_taxonomy.similarity import normalize_text

NGRAM_SIZES = (3, 4, 5)

__all__ = ["NGRAM_SIZES", "Nearest", "char_ngrams", "lexical_vectors", "nearest_neighbours"]


def char_ngrams(text: str, sizes: Sequence[int] = NGRAM_SIZES) -> Counter[str]:
    """Character n-gram counts of each space-padded word of the normalized text."""
    counts: Counter[str] = Counter()
    for word in normalize_text(text).split():
        padded = f" {word} "
        for size in sizes:
            if len(padded) < size:
                continue
            counts.update(padded[i : i + size] for i in range(len(padded) - size + 1))
    return counts


def lexical_vectors(groups: Sequence[Sequence[str]]) -> list[sparse.csr_matrix]:
    """TF-IDF character n-gram vectors for several groups of texts sharing one vocabulary and idf.

    Returns one L2-normalized sparse matrix (texts x n-grams) per group, in the order given.
    """
    from scipy import sparse

    docs = [char_ngrams(t) for group in groups for t in group]
    vocab: dict[str, int] = {}
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc.keys())
        for gram in doc:
            vocab.setdefault(gram, len(vocab))
    n_docs = len(docs)
    idf = np.zeros(len(vocab))
    for gram, index in vocab.items():
        idf[index] = math.log((1 + n_docs) / (1 + df[gram])) + 1.0
    rows, cols, vals = [], [], []
    for row, doc in enumerate(docs):
        for gram, count in doc.items():
            rows.append(row)
            cols.append(vocab[gram])
            vals.append((1.0 + math.log(count)) * idf[vocab[gram]])
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(n_docs, len(vocab)), dtype=np.float64)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    matrix = sparse.diags(1.0 / norms) @ matrix
    out, start = [], 0
    for group in groups:
        out.append(sparse.csr_matrix(matrix[start : start + len(group)]))
        start += len(group)
    return out


@dataclass(frozen=True)
class Nearest:
    """Per pool text: the best cosine similarity to the corpus and the index of that corpus text."""

    similarity: np.ndarray
    index: np.ndarray


def nearest_neighbours(pool: np.ndarray | sparse.spmatrix, corpus: np.ndarray | sparse.spmatrix) -> Nearest:
    """Nearest corpus row for each pool row, by dot product of L2-normalized rows (cosine similarity)."""
    from scipy import sparse

    n_pool, n_corpus = pool.shape[0], corpus.shape[0]
    if n_corpus == 0:
        return Nearest(np.zeros(n_pool), np.full(n_pool, -1))
    scores = pool @ corpus.T
    scores = scores.toarray() if sparse.issparse(scores) else np.asarray(scores)
    index = np.argmax(scores, axis=1) if n_pool else np.zeros(0, dtype=int)
    best = scores[np.arange(n_pool), index] if n_pool else np.zeros(0)
    return Nearest(np.clip(best, -1.0, 1.0).astype(float), index.astype(int))
