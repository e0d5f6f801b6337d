#!/usr/bin/env bash
# Remakes the format fixtures from source.md, structure.md and essay.md with the writers people
# use (pandoc 2.17, LibreOffice 7.4, Chromium; a CJK font such as fonts-wqy-microhei or
# fonts-noto-cjk; pypdf for page labels).
# The fixtures are committed: tests never run this. Run it from this folder.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for format in docx odt epub html rtf; do
    pandoc source.md -s -o "thesis.$format"
done
# Word 97-2003 and a LibreOffice PDF, from the Word file.
cp thesis.docx "$work/thesis-lo.docx"
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to doc \
    --outdir "$work" thesis.docx >/dev/null
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf \
    --outdir "$work" "$work/thesis-lo.docx" >/dev/null
cp "$work/thesis.doc" "$work/thesis-lo.pdf" .
# A Chromium PDF with a running header and footer (fixed elements repeat on every printed page)
# and printed page labels i, 1, 2 (front matter numbered apart), as theses have.
cat > "$work/print.html" <<'HTML'
<style>
  .running { position: fixed; left: 0; right: 0; font-size: 9pt; color: #555; }
  .head { top: 0; } .foot { bottom: 0; }
  body { margin: 3em 0; }
</style>
<div class="running head">近似重复文本检测的实践 — 学位论文草稿</div>
<div class="running foot">Draft for review, not for circulation</div>
HTML
pandoc source.md -s --include-before-body="$work/print.html" -o "$work/print-page.html"
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
    "--user-data-dir=$work/chromium" "--print-to-pdf=$work/chromium.pdf" \
    "$work/print-page.html" 2>/dev/null
python3 - "$work/chromium.pdf" thesis.pdf <<'PY'
import sys
from pypdf import PdfWriter
writer = PdfWriter(clone_from=sys.argv[1])
writer.set_page_label(0, 0, style="/r")
writer.set_page_label(1, len(writer.pages) - 1, style="/D", start=1)
writer.compress_identical_objects()
writer.write(sys.argv[2])
PY
ls -l thesis.*
# A PDF whose words are hyphenated at line ends (Chromium prints soft hyphens as U+2010).
cat > "$work/hyphenated.html" <<'HTML'
<html lang=en><body style="font-size:20px"><p style="width:4.2em">The extraordinarily spatio&shy;temporal characteristics of interdisciplinary investi&shy;gations.</p></body></html>
HTML
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
    "--user-data-dir=$work/chromium" "--print-to-pdf=hyphenated.pdf" \
    "$work/hyphenated.html" 2>/dev/null

# A justified paragraph whose first line a web address too long for it stretches: wide spaces,
# all alike, in running text (no table row).
cat > "$work/justified.html" <<'HTML'
<html lang=en><body style="font-size:14px"><p style="width:18em;text-align:justify">The reference is available at https://example.org/a/very/long/path/that/cannot/break/anywhere/at/all and more words follow here to fill the line with running text.</p></body></html>
HTML
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
    "--user-data-dir=$work/chromium" "--print-to-pdf=justified.pdf" \
    "$work/justified.html" 2>/dev/null

# A LibreOffice PDF of structure.md: a paragraph ending in a citation marker (冲动。[2]) under
# which a numbered heading follows at the body's size, and a table followed by a paragraph.
pandoc structure.md -s -o "$work/structure-lo.docx"
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf \
    --outdir "$work" "$work/structure-lo.docx" >/dev/null
cp "$work/structure-lo.pdf" .

# An English essay (essay.md) with hyphenated compounds, printed in a narrow column with its long
# words hyphenated (issue 48): soft hyphens put in at the break points an English hyphenation
# dictionary gives (LibreOffice and Chromium break a line at a soft hyphen and print a hyphen
# there; they hyphenate nothing else without a dictionary), the compounds' own hyphens left as
# they are, so lines end in both kinds. LibreOffice prints it from Word with a 5.2 cm column,
# Chromium from HTML 17 ems wide.
python3 - essay.md "$work/essay-shy.md" <<'PY'
import re
import sys
BREAKS = """pro-gram-mers pro-gram un-der-stand-ing un-der-tak-ing in-ter-dis-ci-pli-nary
par-tic-u-lar dif-fi-cul-ties spe-cial-ists sta-tis-tics lin-guis-tics en-gi-neer-ing
in-com-pat-i-ble vo-cab-u-lar-ies ab-bre-vi-a-tions in-com-pre-hen-si-ble new-com-ers
doc-u-men-ta-tion im-ple-men-ta-tion af-ter-wards re-pro-ducibil-ity spec-i-fi-ca-tions
im-ple-men-ta-tions al-go-rithm con-fer-ence pub-licly ref-er-ence mis-un-der-stand-ing
in-con-sis-ten-cies in-de-pen-dent reim-ple-men-ta-tions in-ter-na-tion-al-iza-tion
di-men-sion char-ac-ter-is-tics com-bin-ing char-ac-ters con-ven-tions con-sid-ered
be-gin-ning retro-fit-ting es-tab-lished code-base no-to-ri-ously ex-pen-sive
re-spon-si-bil-i-ties main-tain-ing trans-la-tions nev-er-the-less or-gan-i-sa-tions
com-pre-hen-si-ble thor-oughly re-viewed main-tain-able trust-wor-thy struc-ture
straight-for-ward poorly doc-u-mented or-gan-ised re-spected through-out""".split()
breaks = {w.replace("-", ""): w.replace("-", "\u00ad") for w in BREAKS}
text = open(sys.argv[1], encoding="utf-8").read()
shy = re.sub(r"[A-Za-z]+", lambda m: breaks.get(m.group(), m.group()), text)
open(sys.argv[2], "w", encoding="utf-8").write(shy)
PY
pandoc "$work/essay-shy.md" -o "$work/essay-wide.docx"
python3 - "$work/essay-wide.docx" "$work/essay-lo.docx" <<'PY'
import sys
import zipfile
SECTION = (b'<w:sectPr><w:pgSz w:w="5240" w:h="8400"/><w:pgMar w:top="720" w:right="720" '
           b'w:bottom="720" w:left="720" w:header="0" w:footer="0" w:gutter="0"/></w:sectPr>')
with zipfile.ZipFile(sys.argv[1]) as source, zipfile.ZipFile(sys.argv[2], "w") as narrow:
    for item in source.infolist():
        data = source.read(item.filename)
        if item.filename == "word/document.xml":
            data = data.replace(b"<w:sectPr />", SECTION)
        narrow.writestr(item, data, zipfile.ZIP_DEFLATED)
PY
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf \
    --outdir "$work" "$work/essay-lo.docx" >/dev/null
cp "$work/essay-lo.pdf" .
echo '<style>body { font-size: 20px; width: 17em; margin: 0; padding: 0; max-width: none; }</style>' \
    > "$work/essay-style.html"
pandoc "$work/essay-shy.md" -s -H "$work/essay-style.html" --metadata pagetitle=essay \
    -o "$work/essay.html"
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
    "--user-data-dir=$work/chromium" "--print-to-pdf=essay-chromium.pdf" \
    "$work/essay.html" 2>/dev/null

# A LibreOffice PDF of table.md: a table whose cells wrap, lines of a cell ending in a compound's
# own hyphen (well-known, near-duplicate), which PDFium runs on into the next line (issue 48).
pandoc table.md -o "$work/table-lo.docx"
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf \
    --outdir "$work" "$work/table-lo.docx" >/dev/null
cp "$work/table-lo.pdf" .

# A LibreOffice PDF of astral.md: characters beyond the BMP (𠮷), which PDFium counts as two, then
# a line LibreOffice writes out of order and a table.
pandoc astral.md -o "$work/astral-lo.docx"
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf \
    --outdir "$work" "$work/astral-lo.docx" >/dev/null
cp "$work/astral-lo.pdf" .
