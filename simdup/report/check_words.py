"""The words of the duplicate-check reports (``check --lang``), in Chinese and English.

A report a teacher reads speaks the teacher's language: every human-facing phrase of the text
and HTML reports is taken from here (JSON keys and values stay English: programs read them).
The Chinese terms are the ones duplicate-check services print (总文字复制比, 去除引用文献复制比,
去除本人文献复制比, 单篇最大文字复制比), so a report reads like the ones students and teachers
know. ``language`` picks the language from the option, else from the locale.
"""

from __future__ import annotations

import os

from ..records import Place

LANGUAGES = ("zh", "en")

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "report": "Duplicate check",
        "report_of": "Duplicate check: {name}",
        "copy_ratio": "copy ratio",
        "no_quotes": "without quotations",
        "no_own": "without own work",
        "reworded_ratio": "of which reworded or summarised (no run of words copied as it was)",
        "largest": "largest single source",
        "counted": "counted characters {units}, copied {copied}",
        "counted_note": "{copied} of {units} counted characters are in copied fragments; "
        "{fragments} from {sources}.",
        "sections": "Sections",
        "before_first": "(before the first heading)",
        "sources": "Sources",
        "no_sources": "No source shares text with this document.",
        "own_work": "own work",
        "category_own": "own work",
        "category_checked": "checked in this run",
        "category_index": "index",
        "category_file": "file",
        "class_title": "Documents, highest copy ratio first",
        "document_col": "document",
        "fragments": "Fragments",
        "fragments_col": "fragments",
        "no_fragments": "No copied fragments.",
        "text": "The document",
        "more_fragments": "... and {n} more (--format json or html lists all)",
        "left_out": "left out ({why}): {where}",
        "left_out_note": "Left out of the count: {what}.",
        "warning": "warning",
        "warnings": "Warnings",
        "skipped": "skipped {path}: {reason}",
        "skipped_title": "Files that could not be read",
        "none": "None.",
        "summary": "{documents} checked against {sources}; a fragment is at least {words} words "
        "or {cjk} Chinese characters ({algorithm})",
        "checked": "{documents} checked against {sources}; {skipped} skipped.",
        "no_document": "No document was checked.",
        "measured": "How this was measured",
        "measured_rule": "A copied fragment shares at least {words} words or {cjk} Chinese "
        "characters with a source, allowing up to {gap} differing words between exact runs. "
        "Ratios are shares of the document's counted characters: a Chinese character counts 1, "
        "a word its letters and digits; spaces and punctuation count nothing.",
        "measured_left_out": " Reference lists and citation markers are left out.",
        "all_settings": "All settings",
        "section": "section",
        "share": "share",
        "characters": "characters",
        "kind": "kind",
        "source": "source",
        "this_document": "this document",
        "similarity": "similarity {pct}",
        "reworded": "reworded",
        "translated": "translated",
        "paraphrased": "paraphrased",
        "summarised": "summarised",
        "verbatim_share": "{pct} of it verbatim",
        "legend": "Marked text: {copied} {own} {quoted} {excluded}. Hover over a mark for its "
        "source; click it for the fragment.",
        "top": "top",
        # kinds of fragments, reasons text is left out, warnings
        "kind_copied": "copied",
        "kind_quoted": "quoted",
        "kind_own": "own earlier work",
        "kind_excluded": "left out of the count",
        "copied_from": "copied from",
        "quoted_from": "quoted from",
        "own_from": "the author's own work,",
        "why_references": "the reference list",
        "why_marker": "a citation marker",
        "why_template": "text of an --ignore template",
        "label_long-quotation": "long quotation",
        "label_invisible": "invisible characters",
        "label_look-alike": "look-alike letters",
        "warn_long-quotation": "a quotation of about {count} words: counted as cited, but other "
        "checkers may count it as copied",
        "warn_invisible": "{count} zero-width characters or soft hyphens: read as plain text",
        "warn_look-alike": "{count} words mixing Latin letters with Cyrillic or Greek "
        "look-alikes: read as plain text",
        "quotation_note": "inside a quotation: not counted in the ratio without quotations",
        "and_more": "… and {n} more",
        "here": "here",
        "passed_over": "(passed over)",
        "stage": "stage",
        "reason": "reason",
        "file": "file",
        # places
        "page": "p. {span}",
        "pages": "pp. {span}",
        "paragraph": "¶ {span}",
        "chapter": "ch. {span}",
        "line": "line {span}",
        "lines": "lines {span}",
        "in_section": "{where}, in “{section}”",
        # counted nouns: singular and plural
        "document": "document|documents",
        "source_n": "source|sources",
        "fragment_n": "fragment|fragments",
        "file_n": "file|files",
    },
    "zh": {
        "report": "查重报告",
        "report_of": "查重报告：{name}",
        "copy_ratio": "总文字复制比",
        "no_quotes": "去除引用文献复制比",
        "no_own": "去除本人文献复制比",
        "reworded_ratio": "其中改写（降重）、概括部分",
        "largest": "单篇最大文字复制比",
        "counted": "计数字符 {units}，其中复制 {copied}",
        "counted_note": "{units} 个计数字符中有 {copied} 个在复制片段中；"
        "{fragments}，来自 {sources}。",
        "sections": "各章节复制比",
        "before_first": "（第一个标题之前）",
        "sources": "相似来源",
        "no_sources": "没有与本文相同文字的来源。",
        "own_work": "本人文献",
        "category_own": "本人文献",
        "category_checked": "同批检测文档",
        "category_index": "比对库",
        "category_file": "比对文件",
        "class_title": "各文档复制比（从高到低）",
        "document_col": "文档",
        "fragments": "复制片段",
        "fragments_col": "复制片段",
        "no_fragments": "没有复制片段。",
        "text": "全文标注",
        "more_fragments": "……另有 {n} 个（--format json 或 html 列出全部）",
        "left_out": "未计入（{why}）：{where}",
        "left_out_note": "未计入检测的内容：{what}。",
        "warning": "提示",
        "warnings": "提示",
        "skipped": "无法读取 {path}：{reason}",
        "skipped_title": "无法读取的文件",
        "none": "无。",
        "summary": "共检测 {documents}，比对 {sources}；复制片段至少 {words} 个词或 {cjk} 个汉字"
        "（{algorithm}）",
        "checked": "共检测 {documents}，比对 {sources}；{skipped}未能读取。",
        "no_document": "没有检测任何文档。",
        "measured": "检测方法",
        "measured_rule": "复制片段指与某一来源相同的至少 {words} 个词或 {cjk} 个汉字的连续文字，"
        "完全相同的片段之间允许最多 {gap} 个不同的词。复制比是复制字符占本文计数字符的比例："
        "一个汉字计 1，一个词计其字母和数字的个数；空格和标点不计。",
        "measured_left_out": "参考文献和引文标注不计入。",
        "all_settings": "全部设置",
        "section": "章节",
        "share": "占比",
        "characters": "字符数",
        "kind": "类别",
        "source": "来源",
        "this_document": "本文",
        "similarity": "相似度 {pct}",
        "reworded": "改写",
        "translated": "翻译",
        "paraphrased": "意译",
        "summarised": "概括",
        "verbatim_share": "其中 {pct} 原文照抄",
        "legend": "标注：{copied} {own} {quoted} {excluded}。"
        "鼠标停在标注上可看来源，点击可跳到片段。",
        "top": "返回顶部",
        "kind_copied": "复制",
        "kind_quoted": "引用",
        "kind_own": "本人已发表文献",
        "kind_excluded": "未计入",
        "copied_from": "复制自",
        "quoted_from": "引用自",
        "own_from": "本人文献",
        "why_references": "参考文献",
        "why_marker": "引文标注",
        "why_template": "--ignore 模板中的文字",
        "label_long-quotation": "长引用",
        "label_invisible": "不可见字符",
        "label_look-alike": "形近字母",
        "warn_long-quotation": "约 {count} 个词的长引用：按引用计算，但其他查重系统可能算作复制",
        "warn_invisible": "{count} 个零宽字符或软连字符：已按普通文字检测",
        "warn_look-alike": "{count} 个夹杂西里尔或希腊形近字母的词：已按普通文字检测",
        "quotation_note": "位于引号内：不计入去除引用文献复制比",
        "and_more": "……另有 {n} 个",
        "here": "本文",
        "passed_over": "（已跳过）",
        "stage": "阶段",
        "reason": "原因",
        "file": "文件",
        "page": "第 {span} 页",
        "pages": "第 {span} 页",
        "paragraph": "第 {span} 段",
        "chapter": "第 {span} 章",
        "line": "第 {span} 行",
        "lines": "第 {span} 行",
        "in_section": "{where}，位于“{section}”",
        "document": "{n} 篇文档",
        "source_n": "{n} 个来源",
        "fragment_n": "{n} 个片段",
        "file_n": "{n} 个文件",
    },
}


def language(lang: str | None = None) -> str:
    """``lang`` if given ("zh" or "en"), else the locale's: Chinese when ``LC_ALL``,
    ``LC_MESSAGES`` or ``LANG`` (the first set) starts with ``zh``, else English."""
    if lang:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGUAGES)})")
        return lang
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


class Words:
    """The phrases of one language: ``words["copy_ratio"]``, ``words.n(3, "source_n")``."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self._words = WORDS[lang]

    def __getitem__(self, key: str) -> str:
        return self._words[key]

    def get(self, key: str, default: str) -> str:
        return self._words.get(key, default)

    def __call__(self, key: str, **values: object) -> str:
        return self._words[key].format(**values)

    def n(self, count: int, noun: str) -> str:
        """A count with its noun: '1 source', '3 sources', '3 个来源'."""
        phrase = self._words[noun]
        if self.lang == "zh":
            return phrase.format(n=count)
        one, _, many = phrase.partition("|")
        return f"{count} {one if count == 1 else many}"

    def warning(self, kind: str, message: str, count: int) -> str:
        """What a warning says: its message (English) in English, else said from its kind and
        count."""
        if self.lang == "en" and message:
            return message
        return self(f"warn_{kind}", count=count)

    def how(self, how: str, units: int, verbatim_units: int) -> str:
        """How a fragment was copied, as a report says it: "" for a verbatim one; its other
        way (reworded, summarised, translated, paraphrased), with the share of its counted
        characters in verbatim parts when it has any ("reworded, 40% of it verbatim")."""
        if how == "verbatim":
            return ""
        if not verbatim_units or not units:
            return self[how]
        sep = "，" if self.lang == "zh" else ", "
        return f"{self[how]}{sep}{self('verbatim_share', pct=f'{verbatim_units / units:.0%}')}"

    def place(self, place: Place | None, start: int = 0, end: int = 0) -> str:
        """Where a range is, as a reader says it (page, paragraph, chapter, line); the
        characters only when the reader found no part."""
        if place is None:
            return f"chars {start}–{end}" if self.lang == "en" else f"第 {start}–{end} 字符"
        span = place.first if place.first == place.last else f"{place.first}–{place.last}"
        many = place.first != place.last
        key = {"page": "pages" if many else "page", "line": "lines" if many else "line"}.get(
            place.kind, place.kind
        )
        if key not in self._words:
            return place.label()
        return self._words[key].format(span=span)
