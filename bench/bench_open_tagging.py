"""Accuracy of the open-prompt tagger on the starter pool's known tags.

Run ``python -m bench.bench_open_tagging`` (``--step 5`` to use every fifth prompt only). The tagger
(`arena.prompts.open_tags`) labels each prompt with the use case and the capability of its nearest taxonomy
reference (examples, name, description of each label, all-MiniLM-L6-v2 cosine). No starter prompt is a
reference, so accuracy on the pool's curated tags is a held-out figure (no leave-one-out needed). Beside it,
in the same run: the majority-label baseline (always the most frequent label), the lexical fallback
(TF-IDF character n-grams) and, for comparison only, leave-one-out 10-NN among the pool's own prompts (what a
tagger could reach using the curated pool as references). Each figure has its CPU time and the load average.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter

import numpy as np

from arena.prompts.embeddings import embedder, minilm_available
from arena.prompts.open_tags import starter_known_tags, tag_texts
from prompts_taxonomy.tagging import TAG_AXES, accuracy


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def _loo_knn(vectors: np.ndarray, truth: list[str], k: int = 10) -> float:
    scores = vectors @ vectors.T
    np.fill_diagonal(scores, -np.inf)
    nearest = np.argsort(-scores, axis=1)[:, :k]
    hits = 0
    for i, row in enumerate(nearest):
        votes = Counter(truth[j] for j in row)
        best = max(votes.values())
        # ties: the label of the nearest neighbour among the tied ones
        label = next(truth[j] for j in row if votes[truth[j]] == best)
        hits += label == truth[i]
    return hits / len(truth)


def main() -> None:
    """Print the accuracy table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", type=int, default=1, help="use every STEP-th starter prompt")
    args = parser.parse_args()
    rows = starter_known_tags()[:: args.step]
    texts = [r["text"] for r in rows]
    print(f"starter prompts: {len(rows)} (step {args.step}); {_load()}")
    results: dict[str, dict[str, float]] = {}
    cpu: dict[str, float] = {}
    methods = ["minilm", "lexical"] if minilm_available() else ["lexical"]
    for method in methods:
        start = time.process_time()
        tags = tag_texts(texts, method=method)
        cpu[method] = time.process_time() - start
        results[method] = {
            axis: accuracy([getattr(t, axis) for t in tags], [r[axis] for r in rows]) for axis in TAG_AXES
        }
    results["majority"] = {
        axis: Counter(r[axis] for r in rows).most_common(1)[0][1] / len(rows) for axis in TAG_AXES
    }
    cpu["majority"] = 0.0
    if "minilm" in methods:
        start = time.process_time()
        vectors = np.asarray(embedder("minilm").embed(texts), dtype=np.float64)
        results["pool LOO 10-NN (comparison)"] = {
            axis: _loo_knn(vectors, [r[axis] for r in rows]) for axis in TAG_AXES
        }
        cpu["pool LOO 10-NN (comparison)"] = time.process_time() - start
    base = results["majority"]
    print(f"{'method':30} {'use case':>9} {'x major':>8} {'capability':>11} {'x major':>8} {'cpu s':>7}")
    for name, acc in results.items():
        print(
            f"{name:30} {acc['use_case']:9.3f} {acc['use_case'] / base['use_case']:8.2f}"
            f" {acc['capability']:11.3f} {acc['capability'] / base['capability']:8.2f} {cpu[name]:7.1f}  {_load()}"
        )


if __name__ == "__main__":
    main()
