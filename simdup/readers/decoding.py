"""Bytes to text: BOM, then strict UTF-8, then chardet on a bounded sample.

Every outcome is recorded: the encoding used and whether it was certain (BOM, valid UTF-8)
or detected. Binary files become a ``SkippedFile`` with the reason. Opening files is the
readers' job (``simdup.readers.files.read_bytes``); this module never touches the file system.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from ..native import speedups
from ..records import DecodedDocument, SkippedFile

# Checked longest first: the UTF-32 LE BOM starts with the UTF-16 LE BOM.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x7fELF", "ELF executable"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
    (b"Rar!\x1a\x07", "RAR archive"),
    (b"\x00asm", "WebAssembly module"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"\x28\xb5\x2f\xfd", "zstd archive"),
)

_TEXTUAL_MAGIC = frozenset({b"BZh", b"GIF87a", b"GIF89a"})
# First bytes of every BOM and signature: most files start with none of them.
_SIGNATURE_STARTS = frozenset(sig[:1] for sig, _ in _BOMS + _MAGIC)

# chardet reports the narrower standard; decode with the superset that real files use.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "big5": "big5hkscs",
    "ascii": "utf-8",
    "iso-8859-1": "cp1252",
    "euc-kr": "cp949",
    "shift_jis": "cp932",
}

CHARDET_SAMPLE_BYTES = 64 * 1024
# Unicode category Cc except the whitespace controls text files use.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
# More undecodable characters than this (per character) and the file is not text.
MAX_REPLACEMENT_RATIO = 0.02
MAX_CONTROL_RATIO = 0.05
# NUL bytes per byte up to which they are stray ones in a text (dropped), not a binary file.
MAX_STRAY_NUL_RATIO = 0.001
# Enough text to estimate that share within a percent (the check runs on every file).
CONTROL_SAMPLE_CHARS = 16 * 1024
# Invalid sequences per non-ASCII character up to which a file is damaged UTF-8.
DAMAGED_UTF8_RATIO = 0.01
# From this chardet confidence on its guess is taken as it is.
CONFIDENT = 0.5
# Tried, with chardet's guess, when chardet is not confident.
_LEGACY = ("gb18030", "big5hkscs", "cp1252")
# Non-ASCII characters that real text in those encodings is made of: CJK ideographs and
# punctuation, full-width forms, Latin letters with diacritics, typographic punctuation.
_READABLE = re.compile(
    "[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
    "\u00c0-\u00ff\u0100-\u024f\u2010-\u2027\u00a0\u00a9\u00ab\u00b0\u00b7\u00bb]"
)


class DecodeFailure(Exception):
    """Raised inside this module; becomes a ``SkippedFile``."""


EMPTY = "empty file"


def _chardet_sample(data: bytes) -> bytes:
    """A bounded sample for chardet made of the lines that hold non-ASCII bytes.

    ASCII says nothing about a legacy encoding, and the first bytes of a file are often ASCII
    headers, so sample where the evidence is.
    """
    if len(data) <= CHARDET_SAMPLE_BYTES:
        return data
    parts: list[bytes] = []
    size = 0
    for line in data.splitlines():
        if line.isascii():
            continue
        parts.append(line)
        size += len(line) + 1
        if size >= CHARDET_SAMPLE_BYTES:
            break
    return b"\n".join(parts) if parts else data[:CHARDET_SAMPLE_BYTES]


# Characters that make up real text: letters and digits of any script, CJK, punctuation, spaces.
_PLAUSIBLE = re.compile(r"[\w\s\u3000-\u303f\uff00-\uffef!-/:-@\[-`{-~\u2010-\u206f]")


_WORDISH = re.compile(r"[^\W_]")


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 without a BOM: the byte order whose decoding is plausible text, if either is.

    ASCII-heavy UTF-16 has a NUL in every other byte; Chinese UTF-16 has NULs only around its
    ASCII characters, so the decoded text itself is judged, not just where the NULs fall.
    """
    sample = data[: CHARDET_SAMPLE_BYTES - CHARDET_SAMPLE_BYTES % 2]
    if len(data) < 2 or len(data) % 2:
        return None
    # Mostly-ASCII text: the high byte of each unit is NUL, which tells the byte order.
    even_nul, odd_nul = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    order = None
    if odd_nul >= 0.3 * half and even_nul <= 0.05 * half:
        order = "utf-16-le"
    elif even_nul >= 0.3 * half and odd_nul <= 0.05 * half:
        order = "utf-16-be"
    if order is None:
        # No NUL pattern of ASCII in UTF-16: then only bytes that are not UTF-8 can be UTF-16
        # (of CJK text). Valid UTF-8 with a few stray NULs read as UTF-16 would be ASCII
        # turned into ideographs.
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return None
    best: tuple[int, str] | None = None
    for encoding in (order,) if order else ("utf-16-le", "utf-16-be"):
        try:
            text = sample.decode(encoding)
        except UnicodeDecodeError:
            continue
        if not text or _looks_binary_text(text):
            continue
        if len(_PLAUSIBLE.findall(text)) < 0.95 * len(text):
            continue
        # Both byte orders can look like text ("00" vs two ideographic spaces): prefer the
        # one with more letters, digits and ideographs.
        words = len(_WORDISH.findall(text))
        if best is None or words > best[0]:
            best = (words, encoding)
    return best[1] if best else None


def _looks_binary_text(text: str) -> bool:
    if not text:
        return False
    return count_controls(text, CONTROL_SAMPLE_CHARS) > MAX_CONTROL_RATIO * min(
        len(text), CONTROL_SAMPLE_CHARS
    )


def count_controls_python(text: str, limit: int) -> int:
    """How many of the first ``limit`` characters are controls (``_CONTROL``)."""
    return len(_CONTROL.findall(text[:limit]))


count_controls = speedups.count_controls if speedups else count_controls_python


def decode_bytes(data: bytes) -> tuple[str, str, str, float]:
    """Return ``(text, encoding, source, confidence)`` or raise ``DecodeFailure``."""
    signed = data[:1] in _SIGNATURE_STARTS
    for bom, encoding in _BOMS if signed else ():
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                return (
                    body.decode(encoding),
                    encoding + "-bom" if encoding != "utf-8" else "utf-8-sig",
                    "bom",
                    1.0,
                )
            except UnicodeDecodeError:
                text = body.decode(encoding, errors="replace")
                return _checked_fallback(text, encoding)
    for magic, kind in _MAGIC if signed else ():
        if data.startswith(magic):
            # "BZh" and "GIF89a" are short printable words a text file may start with: they
            # count only when the rest is not clean UTF-8 text. "%PDF-" always means a PDF.
            if magic in _TEXTUAL_MAGIC:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    raise DecodeFailure(f"binary file ({kind})") from None
                if b"\x00" in data or _looks_binary_text(text):
                    raise DecodeFailure(f"binary file ({kind})")
                break
            raise DecodeFailure(f"binary file ({kind})")
    if b"\x00" in data:
        guess = _utf16_without_bom(data)
        if guess is not None:
            try:
                text = data.decode(guess)
            except UnicodeDecodeError:
                pass
            else:
                if not _looks_binary_text(text):
                    return text, guess, "detected", 0.9
        # A few stray NULs in text (13 documents of the PAN corpus hold one): the text is read
        # without them (a repair, as replaced bytes are: "fallback"). Binary files hold many
        # NULs, and what is left must still pass every test of text below.
        nuls = data.count(0)
        if nuls <= max(1, MAX_STRAY_NUL_RATIO * len(data)) and nuls < len(data):
            try:
                text, encoding, _, confidence = decode_bytes(data.replace(b"\x00", b""))
            except DecodeFailure:
                pass
            else:
                return text, encoding, "fallback", confidence
        raise DecodeFailure("binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if _looks_binary_text(text):
            raise DecodeFailure("binary file (control characters)")
        return text, "utf-8", "utf-8", 1.0
    # UTF-8 with a few damaged bytes (a truncated copy, one stray byte): a legacy encoding read
    # as UTF-8 fails on most of its non-ASCII bytes, damaged UTF-8 on very few.
    # It must also show valid multi-byte sequences: a Windows-1252 file with one curly quote
    # is not damaged UTF-8.
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    valid = len(text) - len(text.encode("ascii", "ignore")) - bad  # non-ASCII, not U+FFFD
    if valid > 0 and bad <= max(2, DAMAGED_UTF8_RATIO * valid):
        if _looks_binary_text(text):
            raise DecodeFailure("binary file (control characters)")
        return text, "utf-8", "fallback", valid / (valid + bad)
    import chardet  # imported late: most files are UTF-8 and never need it

    detection: dict[str, Any] = dict(chardet.detect(_chardet_sample(data)))
    name = (detection.get("encoding") or "").lower()
    confidence = float(detection.get("confidence") or 0.0)
    codec = _codec(name) if name else None
    if codec is None or confidence < CONFIDENT:
        # Weak evidence (short or mostly-ASCII text, seen: Latin-1 as mac-cyrillic at 0.01,
        # Big5 with much code at 0.2): among the guess and the legacy encodings simdup is
        # for, take the one whose strict decoding reads most like text.
        codec = _most_readable(data, codec)
        if codec is None:
            raise DecodeFailure("unknown encoding (not UTF-8, no confident guess)")
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        text, _, _, _ = _checked_fallback(data.decode(codec, errors="replace"), codec)
        source = "fallback"
    else:
        source = "detected"
    if _looks_binary_text(text):
        raise DecodeFailure("binary file (control characters)")
    return text, codec, source, confidence


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(_SUPERSETS.get(name, name)).name
    except LookupError:
        return None


def _most_readable(data: bytes, guess: str | None) -> str | None:
    """The candidate encoding whose strict decoding has the largest share of readable
    non-ASCII characters (first one wins ties), or ``None`` if none decodes."""
    best: tuple[float, str] | None = None
    for name in dict.fromkeys([*([guess] if guess else []), *_LEGACY]):
        try:
            text = data.decode(name)
        except UnicodeDecodeError:
            continue
        non_ascii = sum(1 for ch in text if ord(ch) > 0x7F)
        share = len(_READABLE.findall(text)) / non_ascii if non_ascii else 1.0
        if best is None or share > best[0]:
            best = (share, name)
    return best[1] if best else None


def _checked_fallback(text: str, encoding: str) -> tuple[str, str, str, float]:
    bad = text.count("\ufffd")
    if bad > MAX_REPLACEMENT_RATIO * max(len(text), 1):
        raise DecodeFailure(f"undecodable: {bad} invalid sequences for {encoding}")
    return text, encoding, "fallback", 0.0


def decode_again(path: str, data: bytes, detected: str | None) -> DecodedDocument | SkippedFile:
    """``decode_data`` of bytes decoded before, ``detected``: the encoding detection chose for
    them then (encoding source "detected"), which is used again without detecting anew. That
    gives the same text for the same bytes, and spares each process that reads the file again
    loading chardet's models; when the bytes no longer decode so, as ``decode_data``."""
    if detected is None:
        return decode_data(path, data)
    try:
        text = data.decode(detected)
    except (UnicodeDecodeError, LookupError):
        return decode_data(path, data)
    changed = not data or (b"\x00" in data and not detected.startswith("utf-16"))
    if changed or _looks_binary_text(text):  # not what was read before: decide again
        return decode_data(path, data)
    return DecodedDocument(path, text, detected, "detected", 1.0, len(data))


def decode_data(path: str, data: bytes) -> DecodedDocument | SkippedFile:
    """Decode the bytes of a file (or of standard input, ``path`` "-") already read."""
    if not data:
        return SkippedFile(path, "read", EMPTY)
    try:
        text, encoding, source, confidence = decode_bytes(data)
    except DecodeFailure as exc:
        return SkippedFile(path, "decode", str(exc))
    return DecodedDocument(path, text, encoding, source, confidence, len(data))
