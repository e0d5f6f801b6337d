"""What the readers of XML-based formats share: ZIP containers opened with bounds, XML parsed
without entities, DTDs or the network, and text gathered into paragraphs with their places.

Word (DOCX), OpenDocument (ODT) and EPUB files are ZIP archives of XML documents. A hostile
archive may claim small members that inflate to gigabytes (a ZIP bomb), hold thousands of
members, or carry XML whose entities expand a billion times: members are read with a cap on
the bytes actually inflated (``Archive.read``), archives with too many members are refused,
and XML is parsed with entity expansion off (``parse_xml``), so each costs what its bytes do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingExtraError
from ..records import Locations

# A member of a document archive inflated to more than this is refused (a novel's text is a few
# MB; its images are never read).
MAX_MEMBER = 64 << 20
MAX_MEMBERS = 10_000


class FormatError(ValueError):
    """A file that is not a readable document of its format; the message says why."""


def lxml_etree() -> Any:
    """``lxml.etree``, or ``MissingExtraError`` with the line that installs it."""
    try:
        from lxml import etree
    except ImportError as exc:
        raise MissingExtraError("reading this format", "docs") from exc
    return etree


def parse_xml(data: bytes) -> Any:
    """The root element of an XML document, parsed without resolving entities, loading a DTD
    or reaching the network (an entity bomb stays unexpanded)."""
    etree = lxml_etree()
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
        remove_comments=True, remove_pis=True,
    )  # fmt: skip
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise FormatError(f"damaged XML ({exc})") from exc


class Archive:
    """A ZIP container read with bounds (see the module docstring)."""

    def __init__(self, data: bytes) -> None:
        import io
        import zipfile  # here: a scan of text files imports this module, not zipfile

        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            names = self.zip.namelist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise FormatError(f"not a readable ZIP container ({exc})") from exc
        if len(names) > MAX_MEMBERS:
            raise FormatError(
                f"a ZIP container of {len(names):,} members (at most {MAX_MEMBERS:,})"
            )
        self.names = set(names)

    def read(self, name: str, limit: int = MAX_MEMBER) -> bytes:
        """Member ``name``, inflated, at most ``limit`` bytes (``FormatError`` beyond: the
        sizes an archive states are not trusted, the bytes inflated are counted)."""
        import zipfile

        try:
            with self.zip.open(name) as member:
                data = member.read(limit + 1)
        except KeyError as exc:
            raise FormatError(f"no {name} in the container") from exc
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError) as exc:
            # RuntimeError: an encrypted member
            raise FormatError(f"{name} cannot be read ({exc})") from exc
        if len(data) > limit:
            raise FormatError(f"{name} inflates to more than {limit >> 20} MB (a ZIP bomb?)")
        return data


@dataclass
class Paragraphs:
    """Text gathered a paragraph at a time, blank lines between them (so passages and
    headings see their blocks), with the text offset where each begins and its label."""

    kind: str
    parts: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, text: str, label: str) -> None:
        text = text.strip()
        if not text:
            return
        if self.parts:
            self.parts.append("\n\n")
            self.size += 2
        self.starts.append(self.size)
        self.labels.append(label)
        self.parts.append(text)
        self.size += len(text)

    def text(self) -> str:
        return "".join(self.parts)

    def locations(self) -> Locations | None:
        if not self.starts:
            return None
        return Locations(self.kind, tuple(self.starts), tuple(self.labels))


def text_paragraphs(text: str, breaks: re.Pattern[str]) -> Paragraphs:
    """The paragraphs of a text a converter made (antiword's, striprtf's), split where
    ``breaks`` matches, each located by its number."""
    out = Paragraphs("paragraph")
    for number, paragraph in enumerate(breaks.split(text), 1):
        out.add(paragraph, str(number))
    return out
