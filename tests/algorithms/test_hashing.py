"""simdup.algorithms.hashing: the token hash (XXH3-64 of UTF-8) and the content hash (XXH3-128)."""

from __future__ import annotations

import xxhash

from simdup.algorithms import hashing


def test_token_hash_is_xxh3_64_of_utf8() -> None:
    """token_hash(t) is XXH3_64(t.encode('utf-8'), seed 0), as computed by the xxhash package."""
    for token in ["", "hello", "中文", "naïve", "🙂", "word with spaces"]:
        assert hashing.token_hash(token) == xxhash.xxh3_64_intdigest(token.encode("utf-8"))
    assert hashing.TOKEN_HASH_NAME == "xxh3_64"


def test_token_hash_known_values() -> None:
    """Pinned values from the xxHash specification: stable across runs and machines."""
    assert hashing.token_hash("") == 0x2D06800538D394C2
    assert hashing.token_hash("hello") == 0x9555E8555C62DCFD
    assert hashing.token_hash("中文") == 0x8DBCE87FE32CDDA6


def test_content_hash_is_xxh3_128_hex() -> None:
    """content_hash is the 32-hex-digit XXH3-128 of the UTF-8 text."""
    digest = hashing.content_hash("some text 中文")
    assert digest == xxhash.xxh3_128_hexdigest("some text 中文".encode())
    assert len(digest) == 32
    assert hashing.content_hash("a") != hashing.content_hash("b")
