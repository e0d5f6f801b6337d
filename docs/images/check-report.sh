#!/usr/bin/env bash
# Remakes the screenshots of the 查重 report (check-report-zh.png, check-report-en.png) and a
# printed PDF of each, as a teacher sees them: the formats fixture's thesis (DOCX, made by
# pandoc) checked against sources holding two of its paragraphs, one reworded. Needs simdup
# installed with the docs extra and Chromium. Run it from this folder.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixtures=$PWD/../../tests/data/formats
python3 - "$fixtures/source.md" "$work/refs" <<'PY'
import pathlib, sys
source = pathlib.Path(sys.argv[1]).read_text(encoding="utf-8")
paragraphs = [p for p in source.split("\n\n") if len(p) > 200 and not p.startswith("#")]
refs = pathlib.Path(sys.argv[2])
refs.mkdir()
(refs / "web-article.md").write_text(paragraphs[0] + "\n", encoding="utf-8")
reworded = paragraphs[3].replace("方法", "算法").replace("快速", "迅速")
(refs / "book-chapter.txt").write_text(reworded + "\n", encoding="utf-8")
PY
cp "$fixtures/thesis.docx" "$work/thesis.docx"
for lang in zh en; do
    (cd "$work" && simdup check thesis.docx --against refs --format html --lang "$lang" \
        -o "report-$lang.html")
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "--user-data-dir=$work/p" \
        --window-size=1100,1500 "--screenshot=$PWD/check-report-$lang.png" \
        "file://$work/report-$lang.html" 2>/dev/null
    chromium --headless --no-sandbox --disable-gpu "--user-data-dir=$work/p" \
        --no-pdf-header-footer "--print-to-pdf=$work/report-$lang.pdf" \
        "file://$work/report-$lang.html" 2>/dev/null
    test -s "$work/report-$lang.pdf"
done
echo "screenshots written; the printed PDFs were made and are not kept"
