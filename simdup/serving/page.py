"""The page of ``simdup serve``: one self-contained HTML document (its style and script inline,
nothing fetched from elsewhere), in Chinese or English.

The teacher drops the documents (a class: files or a ZIP of them) and optionally the sources;
the script posts them to ``api/check`` with an upload bar, then shows "checking"; the answer's
``documents`` (the highest copy ratio first) become the class table, each row linking to the
document's report (``results/ID/report.html?doc=N``, shown below the table) and its HTML and
JSON downloads.
"""

from __future__ import annotations

import html
import json

from .uploads import Limits

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "title": "simdup · duplicate check",
        "intro": "Drop one document or a whole class (Word, PDF, OpenDocument, Markdown, text, "
        "or a ZIP of them). Sources are optional: without any, the documents are checked "
        "against each other and against the sources this server was started with.",
        "documents": "Documents to check",
        "sources": "Sources (optional)",
        "drop": "Drop files here or click to choose",
        "exact_only": "Verbatim copies only",
        "check": "Check",
        "uploading": "Uploading…",
        "checking": "Checking…",
        "done": "Done: {n} document(s).",
        "rank": "#",
        "document": "Document",
        "ratio": "Copy ratio",
        "largest": "Largest source",
        "report": "Report",
        "view": "view",
        "skipped": "Could not be read",
        "error": "The check failed",
        "none": "nothing found",
        "limit": "At most {mb} MB and {files} files per check.",
        "chosen": "{n} file(s)",
    },
    "zh": {
        "title": "simdup · 查重",
        "intro": "拖入一篇文档或整个班级的文档（Word、PDF、OpenDocument、Markdown、"
        "文本，或它们的 ZIP 压缩包）。比对来源可不选：不选时，"
        "文档之间互相比对，并与服务器启动时指定的来源比对。",
        "documents": "待查文档",
        "sources": "比对来源（可选）",
        "drop": "把文件拖到这里，或点击选择",
        "exact_only": "只查逐字复制",
        "check": "开始查重",
        "uploading": "正在上传…",
        "checking": "正在查重…",
        "done": "完成：{n} 篇文档。",
        "rank": "序号",
        "document": "文档",
        "ratio": "复制比",
        "largest": "最大来源",
        "report": "报告",
        "view": "查看",
        "skipped": "无法读取",
        "error": "查重失败",
        "none": "未发现",
        "limit": "每次最多 {mb} MB、{files} 个文件。",
        "chosen": "{n} 个文件",
    },
}

_STYLE = """
body{font:15px/1.5 system-ui,"Noto Sans CJK SC","Microsoft YaHei",sans-serif;margin:0;
color:#1d2430;background:#f6f7f9}
main{max-width:1000px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 8px}
.zones{display:flex;gap:16px;flex-wrap:wrap;margin:16px 0}
.zone{flex:1 1 300px;border:2px dashed #8a94a6;border-radius:10px;padding:18px;background:#fff;
cursor:pointer;text-align:center;display:block}
.zone.over{border-color:#2563eb;background:#eef4ff}
.zone b{display:block;margin-bottom:6px}
/* The zone is the input's label: a click anywhere picks files, so the browser's own button
(in the browser's language, with its own count) is kept for keyboards and screen readers only. */
.zone input{position:absolute;width:1px;height:1px;opacity:0;overflow:hidden}
.zone:focus-within{outline:2px solid #2563eb}
.zone{position:relative}
.count{display:block;margin-top:6px;color:#52607a;font-size:13px}
button{font:inherit;padding:8px 22px;border:0;border-radius:6px;background:#2563eb;color:#fff;
cursor:pointer}
button:disabled{background:#9aa6b8;cursor:default}
progress{width:100%;height:14px;margin:12px 0 4px}
#status{min-height:1.5em;color:#334}
#status.error{color:#b42318}
table{border-collapse:collapse;width:100%;background:#fff;margin:16px 0}
th,td{border-bottom:1px solid #e3e6eb;padding:7px 10px;text-align:left;vertical-align:top}
th{background:#eef0f4}
td.ratio{font-variant-numeric:tabular-nums;font-weight:600}
td.high{color:#b42318}
td a{margin-right:10px}
iframe{width:100%;height:80vh;border:1px solid #cdd3dc;background:#fff}
.note{color:#52607a;font-size:13px}
"""

_SCRIPT = """
const W = JSON.parse(document.getElementById('words').textContent);
const params = new URLSearchParams(location.search);
const token = params.get('token');
const lang = document.documentElement.dataset.lang;
const picked = {document: [], source: []};
function withToken(url) {
  return token ? url + (url.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : url;
}
function say(text, error) {
  const s = document.getElementById('status');
  s.textContent = text; s.className = error ? 'error' : '';
}
for (const zone of document.querySelectorAll('.zone')) {
  const role = zone.dataset.role, input = zone.querySelector('input');
  const show = () => { zone.querySelector('.count').textContent =
    picked[role].length ? W.chosen.replace('{n}', picked[role].length) : ''; };
  input.addEventListener('change', () => { picked[role] = Array.from(input.files); show(); });
  zone.addEventListener('dragover', e => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', e => {
    e.preventDefault(); zone.classList.remove('over');
    picked[role] = picked[role].concat(Array.from(e.dataTransfer.files)); show();
  });
}
function percent(r) { return (100 * r).toFixed(1) + '%'; }
function cell(row, text, cls) {
  const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; return td;
}
function link(td, text, href, download) {
  const a = document.createElement('a'); a.textContent = text; a.href = href;
  if (download) a.download = download;
  td.appendChild(a); return a;
}
function showTable(answer, id) {
  const body = document.querySelector('#class tbody'); body.textContent = '';
  answer.documents.forEach((doc, i) => {
    const row = body.insertRow();
    const base = 'results/' + id + '/report.';
    const q = '?doc=' + i + '&lang=' + lang;
    cell(row, String(i + 1));
    cell(row, doc.path, 'path');
    cell(row, percent(doc.copy_ratio), 'ratio' + (doc.copy_ratio >= 0.3 ? ' high' : ''));
    cell(row, doc.largest_source ? doc.largest_source + ' (' + percent(doc.largest_source_ratio)
      + ')' : W.none, 'largest');
    const td = row.insertCell();
    link(td, W.view, '#').addEventListener('click', e => {
      e.preventDefault();
      const frame = document.getElementById('report');
      frame.hidden = false; frame.src = withToken(base + 'html' + q);
    });
    link(td, 'HTML', withToken(base + 'html' + q + '&download=1'), 'report-' + (i + 1) + '.html');
    link(td, 'JSON', withToken(base + 'json' + q + '&download=1'), 'report-' + (i + 1) + '.json');
  });
  document.getElementById('class').hidden = answer.documents.length === 0;
  const skipped = document.getElementById('skipped'); skipped.textContent = '';
  for (const s of answer.skipped) {
    const li = document.createElement('li'); li.textContent = s.path + ': ' + s.reason;
    skipped.appendChild(li);
  }
  document.getElementById('skipped-title').hidden = answer.skipped.length === 0;
}
document.getElementById('check').addEventListener('click', () => {
  if (!picked.document.length) { say(W.drop, true); return; }
  const form = new FormData();
  for (const role of ['document', 'source'])
    for (const f of picked[role]) form.append(role, f, f.name);
  const exact = document.getElementById('exact-only').checked ? '&exact_only=1' : '';
  const xhr = new XMLHttpRequest();
  const bar = document.getElementById('progress');
  const button = document.getElementById('check');
  button.disabled = true; bar.hidden = false; bar.value = 0; say(W.uploading);
  xhr.upload.onprogress = e => { if (e.lengthComputable) bar.value = e.loaded / e.total; };
  xhr.upload.onload = () => { bar.removeAttribute('value'); say(W.checking); };
  xhr.onerror = () => { button.disabled = false; bar.hidden = true; say(W.error, true); };
  xhr.onload = () => {
    button.disabled = false; bar.hidden = true;
    let answer = null;
    try { answer = JSON.parse(xhr.responseText); } catch (e) { answer = null; }
    if (xhr.status !== 200 || !answer) {
      say(W.error + ': ' + (answer && answer.error ? answer.error : xhr.status), true); return;
    }
    showTable(answer, xhr.getResponseHeader('X-Simdup-Result'));
    say(W.done.replace('{n}', answer.documents.length));
    document.body.dataset.state = 'done';
  };
  xhr.open('POST', withToken('api/check?lang=' + lang + exact));
  xhr.send(form);
});
"""


def render_page(lang: str, limits: Limits) -> str:
    """The page in ``lang`` ("zh" or "en")."""
    w = WORDS[lang]
    e = html.escape
    # Inside <script type=application/json>: "</" would end the element.
    words = json.dumps(w, ensure_ascii=False).replace("</", "<\\/")
    limit = w["limit"].format(mb=limits.max_bytes >> 20, files=limits.max_files)
    zones = "".join(
        f'<label class=zone data-role={role} id=zone-{role}><b>{e(w[label])}</b>{e(w["drop"])}'
        f'<input type=file multiple id={label}><span class=count></span></label>'
        for role, label in (("document", "documents"), ("source", "sources"))
    )
    return f"""<!DOCTYPE html>
<html lang="{'zh-CN' if lang == 'zh' else 'en'}" data-lang="{lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel=icon href="data:,"><title>{e(w["title"])}</title><style>{_STYLE}</style></head>
<body><main>
<h1>{e(w["title"])}</h1>
<p>{e(w["intro"])}</p>
<div class=zones>{zones}</div>
<p><label><input type=checkbox id=exact-only> {e(w["exact_only"])}</label></p>
<p><button id=check type=button>{e(w["check"])}</button> <span class=note>{e(limit)}</span></p>
<progress id=progress max=1 hidden></progress>
<div id=status role=status></div>
<table id=class hidden><thead><tr><th>{e(w["rank"])}</th><th>{e(w["document"])}</th>
<th>{e(w["ratio"])}</th><th>{e(w["largest"])}</th><th>{e(w["report"])}</th></tr></thead>
<tbody></tbody></table>
<h2 id=skipped-title hidden>{e(w["skipped"])}</h2><ul id=skipped></ul>
<iframe id=report hidden title="{e(w["report"])}"></iframe>
</main>
<script type="application/json" id=words>{words}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
