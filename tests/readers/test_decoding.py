"""simdup.readers.decoding and the plain-text reader: every common encoding decodes to the original
text; non-text is a record; files are read only as discovery found them."""

from __future__ import annotations

import os
import random
import threading
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from simdup.readers import read_document
from simdup.readers.decoding import DecodeFailure, decode_bytes
from simdup.readers.files import _READ_CHUNK, ReadFailure, read_bytes
from simdup.records import DecodedDocument, SkippedFile, SourceFile
from tests.conftest import DocWriter

MAX = 1 << 20

ZH_SIMPLIFIED = (
    "图书馆今年共接待读者三万二千人次，借阅图书八千六百册，比去年增长百分之十二。\n"
    "为了改进读者服务，我们延长了周末的开放时间，并在二楼新设了安静的自习区。\n"
    "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。\n"
)
ZH_TRADITIONAL = (
    "臺灣的高山烏龍茶香氣清雅，回甘持久，深受愛茶人士喜愛。\n"
    "沖泡時水溫宜在九十度上下，第一泡約一分鐘，之後每泡遞增十五秒。\n"
    "茶葉的品質取決於產地、季節與製作工藝，揉捻和焙火尤其重要。\n"
)
EN_CURLY = (
    "\u201cWe\u2019ll meet at noon,\u201d said the captain. \u201cBring the maps, the lantern "
    "and the rope.\u201d\nThe crew agreed; nobody wanted another night on the rocks \u2014 "
    "not after last winter\u2019s storms.\n"
)
ASCII_EN = (
    "Four score and seven years ago our fathers brought forth on this continent a new nation,\n"
    "conceived in liberty, and dedicated to the proposition that all men are created equal.\n"
)
MIXED = "我们使用 Python 3.12 和 NumPy 处理数据，结果写入 report.json 文件。\n" * 3


# (text, encoding written, expected recorded encoding, expected encoding_source)
CASES = [
    pytest.param(MIXED, "utf-8", "utf-8", "utf-8", id="utf-8"),
    pytest.param(ZH_SIMPLIFIED, "utf-8-sig", "utf-8-sig", "bom", id="utf-8-bom"),
    pytest.param(ZH_SIMPLIFIED, "utf-16", "utf-16-le-bom", "bom", id="utf-16-bom"),
    pytest.param(MIXED, "utf-16-le-bom", "utf-16-le-bom", "bom", id="utf-16-le-bom"),
    pytest.param(MIXED, "utf-16-be-bom", "utf-16-be-bom", "bom", id="utf-16-be-bom"),
    pytest.param(ZH_TRADITIONAL, "utf-32-le-bom", "utf-32-le-bom", "bom", id="utf-32-le-bom"),
    pytest.param(EN_CURLY, "utf-32-be-bom", "utf-32-be-bom", "bom", id="utf-32-be-bom"),
    pytest.param(ZH_SIMPLIFIED, "gbk", "gb18030", "detected", id="gbk"),
    pytest.param(ZH_SIMPLIFIED, "gb18030", "gb18030", "detected", id="gb18030"),
    pytest.param(ZH_TRADITIONAL, "big5", "big5hkscs", "detected", id="big5"),
    pytest.param(EN_CURLY, "cp1252", "cp1252", "detected", id="cp1252"),
    pytest.param(ASCII_EN, "utf-16-le", "utf-16-le", "detected", id="utf-16-le-no-bom"),
    pytest.param(ASCII_EN, "utf-16-be", "utf-16-be", "detected", id="utf-16-be-no-bom"),
    pytest.param(ASCII_EN, "utf-8", "utf-8", "utf-8", id="ascii"),
]


@pytest.mark.parametrize(("text", "written", "recorded", "source"), CASES)
@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_file_decodes_to_the_original_text_with_its_encoding(
    write_doc: DocWriter, text: str, written: str, recorded: str, source: str, crlf: bool
) -> None:
    """Each encoding decodes to the exact original text (line endings kept), and the result
    records the encoding and how it was known (BOM, valid UTF-8, or detected)."""
    path = write_doc("doc.txt", text, written, crlf=crlf)
    doc = read_document(str(path), MAX)
    assert isinstance(doc, DecodedDocument), doc
    expected = text.replace("\n", "\r\n") if crlf else text
    assert doc.text == expected
    assert doc.encoding == recorded
    assert doc.encoding_source == source
    assert doc.size == path.stat().st_size
    assert doc.path == str(path)
    if source in ("bom", "utf-8"):
        assert doc.confidence == 1.0
    else:
        assert 0.0 < doc.confidence <= 1.0


def test_bom_is_not_part_of_the_text() -> None:
    """The byte-order mark is stripped, never decoded as U+FEFF."""
    for data in (b"\xef\xbb\xbfhello", b"\xff\xfeh\x00i\x00", b"\xfe\xff\x00h\x00i"):
        text, _, source, _ = decode_bytes(data)
        assert not text.startswith("\ufeff")
        assert source == "bom"


def test_utf32_le_bom_is_not_mistaken_for_utf16() -> None:
    """FF FE 00 00 is the UTF-32 LE BOM, though it starts with the UTF-16 LE BOM."""
    text, encoding, _, _ = decode_bytes(b"\xff\xfe\x00\x00" + "中文 text".encode("utf-32-le"))
    assert (text, encoding) == ("中文 text", "utf-32-le-bom")


# ---------------------------------------------------------------- not text


def _png() -> bytes:
    rng = random.Random(20240301)
    return b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(2000))


def _zip(tmp_path: Path) -> bytes:
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("inner.txt", "hello " * 100)
    return archive.read_bytes()


@pytest.mark.parametrize(
    ("kind", "make"),
    [
        ("PNG", lambda tmp: _png()),
        ("ZIP", _zip),
        ("gzip", lambda tmp: b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4),
        ("ELF", lambda tmp: b"\x7fELF\x02\x01\x01" + b"\x00" * 100),
        ("NUL", lambda tmp: b"header\x00\x01\x02\x00\x00\xff\xfe\x00data" * 50),
        ("control", lambda tmp: bytes(range(1, 9)) * 200),
    ],
)
def test_binary_files_are_skipped_at_decode(tmp_path: Path, kind: str, make: object) -> None:
    """Binary content (magic numbers, NUL bytes, control characters) is a SkippedFile at stage
    'decode' whose reason starts with 'binary file'."""
    path = tmp_path / f"file.{kind.lower()}"
    path.write_bytes(make(tmp_path))  # type: ignore[operator]
    result = read_document(str(path), MAX)
    assert isinstance(result, SkippedFile), result
    assert result.stage == "decode"
    assert result.reason.startswith("binary file"), result.reason
    assert result.path == str(path)


def test_magic_number_is_named_in_the_reason() -> None:
    """The reason names the detected file type."""
    with pytest.raises(DecodeFailure, match=r"binary file \(PNG image\)"):
        decode_bytes(_png())
    with pytest.raises(DecodeFailure, match=r"binary file \(PDF document\)"):
        decode_bytes(b"%PDF-1.4 rest")


def test_sample_corpus_binary_is_skipped(sample_corpus: Path) -> None:
    """misc/image.bin of the sample corpus is binary."""
    result = read_document(str(sample_corpus / "misc" / "image.bin"), MAX)
    assert isinstance(result, SkippedFile)
    assert (result.stage, result.reason) == ("decode", "binary file (PNG image)")


def test_empty_file_is_skipped_at_read(tmp_path: Path) -> None:
    """A 0-byte file is a SkippedFile at stage 'read' with reason 'empty file'."""
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    assert read_document(str(path), MAX) == SkippedFile(str(path), "read", "empty file")


def test_file_larger_than_max_size_is_skipped_at_read(write_doc: DocWriter) -> None:
    """A file over max_size is a SkippedFile at stage 'read' naming the limit."""
    path = write_doc("big.txt", "x" * 101)
    result = read_document(str(path), 100)
    assert isinstance(result, SkippedFile)
    assert result.stage == "read"
    assert "max-size" in result.reason and "100" in result.reason
    assert isinstance(read_document(str(path), 101), DecodedDocument)


def test_missing_file_is_skipped_at_read(tmp_path: Path) -> None:
    """A file that does not exist is a record, not an exception."""
    result = read_document(str(tmp_path / "nope.txt"), MAX)
    assert isinstance(result, SkippedFile)
    assert result.stage == "read"
    assert "No such file" in result.reason


def test_directory_is_skipped_at_read(tmp_path: Path) -> None:
    """A directory given to read_document is not a regular file."""
    result = read_document(str(tmp_path), MAX)
    assert isinstance(result, SkippedFile)
    assert result.stage == "read"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="os.mkfifo is not available")
def test_fifo_does_not_block(tmp_path: Path) -> None:
    """read_document on a FIFO with no writer returns a 'read' skip at once instead of waiting."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(read_document(str(fifo), MAX)))
    worker.daemon = True
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # unblock the reader so the thread can end, then fail
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("read_document blocked on a FIFO")
    [result] = results
    assert isinstance(result, SkippedFile)
    assert result.stage == "read"
    assert result.reason == "not a regular file"


def test_invalid_utf8_with_few_bad_bytes_is_decoded_by_detection() -> None:
    """Mostly-Latin text that is not valid UTF-8 still decodes (via detection), not skipped."""
    data = ("caf\u00e9 na\u00efve r\u00e9sum\u00e9 " * 20).encode("cp1252")
    text, encoding, source, _ = decode_bytes(data)
    assert "café" in text
    assert source in ("detected", "fallback")
    assert encoding


@pytest.mark.parametrize(
    "text",
    [
        "BZhang Wei took the minutes of the meeting; the budget was approved.\n",
        "GIF89a added transparency and animation; this note explains the format.\n",
    ],
)
def test_plain_text_starting_with_a_printable_magic_is_text(text: str) -> None:
    """Valid UTF-8 prose is text even when its first letters spell a file format's magic."""
    assert decode_bytes(text.encode("utf-8"))[:3] == (text, "utf-8", "utf-8")


_CODE = (
    "\n```js\nlet x = 1;\nconsole.log(`value: ${x}`);\n```\n\n- [link](https://example.com/a/b)\n"
)


@pytest.mark.parametrize(
    ("text", "codec", "expected"),
    [
        (
            "# 標題\n\n" + _CODE * 20 + "臺灣位於東亞，首都是臺北。這裡的夜市文化非常豐富。",
            "big5",
            "big5hkscs",
        ),
        ("# 标题\n\n" + _CODE * 30 + "图书馆今年的借阅量比去年增加了很多。", "gbk", "gb18030"),
        ("Café déjà vu, naïve résumé. " * 3, "latin-1", "cp1252"),
        ("It\u2019s a caf\u00e9 note about things.", "cp1252", "cp1252"),
    ],
)
def test_weak_chardet_guesses_fall_back_to_the_most_readable_decoding(
    text: str, codec: str, expected: str
) -> None:
    """Mostly-ASCII files (code-heavy Chinese, short Western text) give chardet little
    evidence; simdup then decodes with whichever of chardet's guess, GB18030, Big5-HKSCS and
    Windows-1252 reads most like text, and gets the original back."""
    decoded, encoding, source, _ = decode_bytes(text.encode(codec))
    assert (decoded, encoding, source) == (text, expected, "detected")


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="needs O_NOFOLLOW")
def test_a_file_changed_after_discovery_is_not_read(tmp_path: Path) -> None:
    """read_document(SourceFile) reads only the file discovery found: a symbolic link put at its
    path is not followed (unless ``follow``), and another file (a link followed, a rename over
    the path) is refused by device and inode. A plain str path is named by the user: links are
    followed and there is nothing to check against."""
    outside = tmp_path / "outside.txt"
    outside.write_text(ASCII_EN, encoding="utf-8")
    path = tmp_path / "doc.txt"
    path.write_text(MIXED, encoding="utf-8")
    st = os.stat(path)
    found = SourceFile(str(path), st.st_size, st.st_dev, st.st_ino)
    assert isinstance(read_document(found, MAX), DecodedDocument)
    os.link(path, tmp_path / "kept.txt")  # its inode number is not given to a new file

    path.unlink()
    path.symlink_to(outside)
    assert read_document(found, MAX) == SkippedFile(
        str(path), "read", "replaced by a symbolic link after discovery (not followed)"
    )
    followed = replace(found, follow=True)
    assert read_document(followed, MAX) == SkippedFile(
        str(path), "read", "changed after discovery (another file is now at this path)"
    )
    # Identity unknown (0): a followed link is read, an unfollowed one still is not.
    assert isinstance(read_document(SourceFile(str(path), 0, follow=True), MAX), DecodedDocument)
    assert read_document(SourceFile(str(path), 0), MAX).reason.startswith("replaced by a symbolic")
    doc = read_document(str(path), MAX)
    assert isinstance(doc, DecodedDocument) and doc.text == ASCII_EN

    path.unlink()
    (tmp_path / "new.txt").write_text(MIXED, encoding="utf-8")
    os.replace(tmp_path / "new.txt", path)
    assert read_document(found, MAX) == SkippedFile(
        str(path), "read", "changed after discovery (another file is now at this path)"
    )
    st = os.stat(path)
    assert isinstance(read_document(replace(found, inode=st.st_ino), MAX), DecodedDocument)


def test_a_file_read_again_is_decoded_with_the_encoding_detected_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """read_document with a hint (the encoding detection chose before) reads with it, without
    detecting anew (chardet is not called), and gives read_document's text; bytes that no
    longer decode so, or a file decoded otherwise before, go through the plain rules."""
    import chardet

    path = tmp_path / "gbk.txt"
    path.write_bytes(("中文的文本，用于检测编码。" * 20).encode("gbk"))
    first = read_document(str(path), 1 << 20)
    assert isinstance(first, DecodedDocument) and first.encoding_source == "detected"

    def no_detection(*args: object, **kwargs: object) -> None:
        raise AssertionError("chardet was called")

    monkeypatch.setattr(chardet, "detect", no_detection)
    again = read_document(str(path), 1 << 20, first.encoding)
    assert isinstance(again, DecodedDocument)
    assert (again.text, again.encoding, again.size) == (first.text, first.encoding, first.size)
    # Bytes that the encoding no longer decodes: decided again (here UTF-8, no chardet).
    path.write_bytes("now UTF-8 text: 中文 \udcff".encode("utf-8", "surrogateescape"))
    changed = read_document(str(path), 1 << 20, first.encoding)
    assert isinstance(changed, DecodedDocument)
    assert changed.encoding == "utf-8" and changed.text.startswith("now UTF-8 text")
    # Bytes that became binary, and a file that is gone.
    path.write_bytes(b"\x00\x01binary\x00" * 10)
    assert isinstance(read_document(str(path), 1 << 20, first.encoding), SkippedFile)
    path.unlink()
    gone = read_document(str(path), 1 << 20, first.encoding)
    assert isinstance(gone, SkippedFile) and gone.stage == "read"
    # Nothing detected before: read_document itself.
    utf8 = tmp_path / "utf8.txt"
    utf8.write_text("plain text", "utf-8")
    plain = read_document(str(utf8), 1 << 20, None)
    assert isinstance(plain, DecodedDocument) and plain.text == "plain text"


@pytest.mark.parametrize(
    "size", [1, 2, _READ_CHUNK - 1, _READ_CHUNK, _READ_CHUNK + 1, 3 * _READ_CHUNK + 5]
)
def test_files_are_read_whole_around_the_read_size(tmp_path: Path, size: int) -> None:
    """The first read asks for the size fstat gave (and one byte more), the next ones for a
    chunk at a time: every size around those reads comes back whole, and one byte over the
    limit is refused."""
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert read_bytes(str(path), size) == data
    if size > 1:
        with pytest.raises(ReadFailure, match="max-size"):
            read_bytes(str(path), size - 1)


def test_utf8_with_stray_nul_bytes_is_read_without_them() -> None:
    """Text with a stray NUL byte (13 PAN corpus documents hold one) has no UTF-16 NUL pattern
    and is valid UTF-8: read as UTF-16 it would be ideographs. It is read as UTF-8 with its NUL
    dropped, and says it was repaired ("fallback")."""
    line = "There are three basic joint types in the body, 人体有三种关节。\n"
    body = (line * 40).encode("utf-8")
    data = body[:100] + b"\x00" + body[100:]
    text, encoding, source, _ = decode_bytes(data)
    assert (text, encoding, source) == (line * 40, "utf-8", "fallback")


def test_legacy_text_with_a_stray_nul_byte_is_read_in_its_encoding() -> None:
    """The rest of the bytes are decoded as any file is: GB18030 stays GB18030."""
    text = "这是一段用于测试的中文文本，其中有一个多余的空字节。" * 30
    data = text.encode("gb18030")
    decoded, encoding, source, _ = decode_bytes(data[:40] + b"\x00" + data[40:])
    assert (decoded, encoding, source) == (text, "gb18030", "fallback")


@pytest.mark.parametrize(
    "data",
    [
        # NULs past one byte in a thousand are no stray ones, whatever the rest is.
        (b"plain words " * 100 + b"\x00\x00"),
        b"\x00" * 10,
        bytes(range(256)) * 4,  # one NUL in 256 bytes, and the rest are controls
        b"\x00" + b"\x01\x02\x03\x04\x05" * 400,  # a stray NUL, but controls after it
    ],
    ids=["two-nuls-in-1202-bytes", "only-nuls", "every-byte", "controls"],
)
def test_nul_bytes_that_are_not_stray_ones_still_mean_binary(data: bytes) -> None:
    """Binary files hold many NULs, or what is left without them is not text."""
    with pytest.raises(DecodeFailure, match="binary file"):
        decode_bytes(data)
