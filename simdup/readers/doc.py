"""The legacy Word reader (``.doc``, Word 97-2003): the text ``antiword`` prints, when it is
installed (an external program, run on the bytes through a pipe; GPL, so never linked).

Without ``antiword`` a ``.doc`` file is a skip record saying how to install it. Paragraphs
become blank-line-separated blocks, each located by its number.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator

from ..records import DecodedDocument, SkippedFile
from .markup import FormatError, text_paragraphs

OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_BLANK = re.compile(r"\n\s*\n")
NO_ANTIWORD = "reading .doc files needs antiword (apt install antiword, brew install antiword)"


class DocReader:
    """Word 97-2003 documents (``.doc``, ``.dot``): OLE2 containers named so. Other OLE2 files
    (``.xls``, ``.msg``) are not claimed."""

    name = "doc"
    version = "1"
    extensions: tuple[str, ...] = (".doc", ".dot")
    marks: tuple[bytes, ...] = ()  # sniff never claims a file
    contained = True
    libraries: tuple[str, ...] = ()

    def sniff(self, head: bytes) -> bool:
        return False  # OLE2 holds many formats (.xls, .msg): the extension decides

    def read(
        self, path: str, data: bytes, hint: str | None = None
    ) -> Iterator[DecodedDocument | SkippedFile]:
        if not data.startswith(OLE2):
            raise FormatError("not a Word 97-2003 document (no OLE2 header)")
        program = shutil.which("antiword")
        if program is None:
            yield SkippedFile(path, "decode", NO_ANTIWORD)
            return
        done = subprocess.run(
            [program, "-m", "UTF-8.txt", "-w", "0", "-"], input=data, capture_output=True,
            check=False,
        )  # fmt: skip
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            why = message[-1] if message else f"exit {done.returncode}"
            raise FormatError(f"antiword could not read it ({why})")
        text = done.stdout.decode("utf-8", "replace")
        out = text_paragraphs(text, _BLANK)
        if not out.parts:
            yield SkippedFile(path, "decode", "no text in the document")
            return
        yield DecodedDocument(path, out.text(), "doc", "antiword", 1.0, len(data),
                              out.locations())  # fmt: skip
