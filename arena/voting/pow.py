"""A lightweight proof of work on vote requests: find a nonce whose SHA-256 with the challenge has N leading
zero bits. Cheap for one honest browser (2**N hashes on average), costly for a bot farming thousands of votes."""

from __future__ import annotations

import hashlib
import secrets


def new_challenge() -> str:
    """A fresh random challenge (served with each matchup)."""
    return secrets.token_hex(16)


def leading_zero_bits(digest: bytes) -> int:
    """How many leading bits of `digest` are zero."""
    bits = 0
    for byte in digest:
        if byte == 0:
            bits += 8
            continue
        return bits + (8 - byte.bit_length())
    return bits


def check(challenge: str, nonce: str, difficulty: int) -> bool:
    """Whether `nonce` solves `challenge` at `difficulty` bits."""
    if difficulty <= 0:
        return True
    if not nonce or len(nonce) > 32:
        return False
    digest = hashlib.sha256(f"{challenge}:{nonce}".encode()).digest()
    return leading_zero_bits(digest) >= difficulty


def solve(challenge: str, difficulty: int) -> str:
    """Find a solving nonce (what the browser does; simulated voters and tests use this)."""
    counter = 0
    while not check(challenge, str(counter), difficulty):
        counter += 1
    return str(counter)
