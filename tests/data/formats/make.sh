#!/usr/bin/env bash
# Remakes the format fixtures from source.md and structure.md with the writers people use (pandoc
# 2.17, LibreOffice 7.4, Chromium; a CJK font such as fonts-wqy-microhei or fonts-noto-cjk; pypdf
# for page labels).
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
