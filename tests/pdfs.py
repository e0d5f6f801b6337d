"""PDF files written byte by byte, for the cases no PDF writer makes on purpose: a page tree
that loops, a content stream that inflates to hundreds of megabytes, ten thousand pages, a page
with an image and no text. Real writers' files are the committed fixtures in ``data/formats``.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def text_content(lines: Sequence[str]) -> bytes:
    """A page content stream printing ``lines`` (Latin-1) top down in Helvetica 11 pt."""
    shown = b"".join(b"(" + _escape(line) + b") Tj T*\n" for line in lines)
    return b"BT /F1 11 Tf 14 TL 72 720 Td\n" + shown + b"ET\n"


# A 2x2 grey image drawn 100 pt wide: a page of a scan, with no text on it.
IMAGE_CONTENT = b"q 100 0 0 100 72 600 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x00\xff\xff\x00 EI Q\n"


def write_pdf(
    contents: Sequence[bytes],
    *,
    compress: bool = False,
    deflated: bool = False,
    loop: bool = False,
) -> bytes:
    """A PDF whose pages draw ``contents`` (one content stream each; ``compress``: deflated
    here; ``deflated``: deflated already), with a valid cross-reference table. ``loop``: the
    page tree lists itself among its kids."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for content in contents:
        data = zlib.compress(content, 9) if compress else content
        flate = b" /Filter /FlateDecode" if compress or deflated else b""
        stream = add(b"<< /Length %d%s >>\nstream\n" % (len(data), flate) + data + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
                % (pages, font, stream)
            )
        )
    if loop:
        kids.append(pages)
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages
    objects[pages - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        xref,
    )
    return bytes(out)


def stream_bomb(inflated: int) -> bytes:
    """A one-page PDF whose content stream inflates to ``inflated`` bytes of spaces (a
    compressed-stream bomb: ~1,000 times smaller than what it inflates to)."""
    compressor = zlib.compressobj(9)
    block = b" " * (1 << 20)
    data = bytearray()
    for _ in range(inflated >> 20):
        data += compressor.compress(block)
    data += compressor.flush()
    return write_pdf([bytes(data)], deflated=True)
