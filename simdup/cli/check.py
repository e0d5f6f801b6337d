"""``simdup check DOC... --against PATHS``: a duplicate-check report (查重) for each document."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import click

from ..checking import CheckOptions, FragmentRule, MeaningRule, SentenceRule, check
from ..checking.corpus import EMBEDDING_SOURCES, READING_SOURCES
from ..engines.local import default_jobs
from ..names import display_path
from ..policy.exitcodes import check_exit_code, exit_code_help
from ..readers.discovery import DiscoveryOptions
from ..report.check import percent, render_check_json, render_check_sarif, render_check_text
from ..report.check_words import LANGUAGES, language
from ..report.text import plural
from ..store.cache import cache_root
from ..store.sentence_vectors import open_sentence_cache
from .edge import ProgressBar, usage_errors
from .options import MAX_SIZE_OPTION, format_option, jobs_option, no_cache_option
from .output import check_output

_CHECK_CODES = exit_code_help(
    duplicates="a document's ratio is above --max-ratio (or, with --fail-on-duplicates, it "
    "has any copied fragment)",
    files="a document to check could not be read (with --strict: also a source)",
)
_RATIOS = {"total": "copy ratio", "no-quotes": "without quotations", "no-own": "without own work"}


class Ratio(click.ParamType):  # type: ignore[type-arg]
    """A ratio as ``30%`` or ``0.3``."""

    name = "ratio"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        text = str(value).strip()
        try:
            ratio = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            self.fail(f"{value!r} is not a ratio (write 30% or 0.3)", param, ctx)
        if not 0.0 <= ratio <= 1.0:
            # A bare number above 1 is a percentage written without its sign (--max-ratio 40).
            bare = not text.endswith("%") and 1 < ratio <= 100
            hint = f" (did you mean {text}%?)" if bare else ""
            self.fail(f"{value!r} is not between 0% and 100%{hint}", param, ctx)
        return ratio


@click.command(
    "check",
    epilog=f"""\b
Examples:
  simdup check thesis.docx --against refs/
  simdup check thesis.pdf --db corpus.simdup --self my-papers/ --ignore cover.docx
  simdup check thesis.md --against refs/ --format html -o report.html
  simdup check chapter*.md --against refs/ --max-ratio 20%       exit 1 above 20%

\b
What counts:
  copied  a run of at least --min-match words (13 CJK characters per 8
          words) found in a source, with up to --gap differing words
          between two matched runs (verbatim); or sentences whose words
          were reordered, swapped or dropped, found as bags of words
          (reworded), or that condense, in its order, a stretch of the
          source at least half as long again, or that draw nearly all
          their words from all over one source as no other part of the
          document does (summarised; --exact-only leaves both out);
          either only when it brings words of the source that the rest
          of the document does not use (text on the source's subject
          in the author's own words is no copy);
          with --semantic, also
          passages whose sentences mean what the source's say, in other
          words or another language (translated, paraphrased; in other
          words, only when it brings words of the source as above),
          and paragraphs in another language that say what one
          paragraph of the source says as a whole (a translator merges
          and splits sentences; a paragraph's meaning: its sentences'
          together): cosine 0.65, 0.1 above the next
          closest source paragraph, each the other's closest, its
          sentences' closest cosines there 0.55 on average
  ends    a fragment starts and ends on copied words: a reworded
          passage goes on over sentences that gave no seed only when a
          quarter of their words (of one sentence, a tenth) are in the
          source sentences between the seeds around them, so a heading,
          a byline or the author's own text between two copies stays
          out; it ends on
          sentences that share 40% of their words with the source's,
          on its first and last shared words, and a verbatim copy
          where its runs of words end; a passage mostly verbatim keeps
          the text beyond its runs only when a quarter of its words
          are in the source's beyond them; with --semantic, sentences
          beside a pasted one (said as the source says it) join it
          only when they would be a passage alone
  joined  two fragments of one source are one when the stretch between
          them is reworded: as long on both sides, or a quarter of its
          words in the other side's; a verbatim fragment under 16 words
          with nothing else of its source within 30 words is a stock
          phrase (an address, a byline), not reported
  how     each part of a fragment as it was copied: a run of words
          copied as it was counts as verbatim inside a reworded,
          summarised, translated or paraphrased passage too; the
          reworded share is of the parts where no run of words was
          copied as it was
  quoted  copied text inside “…” 「…」 『…』 "…" or a Markdown > block
          quote (《…》 is a title, not a quotation): counted, and
          reported apart (--ratio no-quotes leaves it out)
  own     copied text found in the author's own work: a source under
          --self, or the same work in another format (a PDF of the Word
          file; what compare calls a near-duplicate): counted, and
          reported apart (--ratio no-own leaves it out)
  left out  the reference list (参考文献, References, Bibliography, ...),
          citation markers [1] [2-5], and text matching an --ignore file
  ratio   copied characters / counted characters (a CJK character
          counts 1, a word its letters and digits; spaces, punctuation
          and headings none)
  order   several documents are listed first, the highest copy ratio
          first, and reported in that order

{_CHECK_CODES}""",
)
@click.argument("documents", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--against",
    "against",
    multiple=True,
    type=click.Path(exists=True, path_type=str),
    metavar="PATH",
    help="Files or folders of sources to check against (repeatable).",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, exists=True, path_type=str),
    metavar="DB",
    help="Also check against the documents of a named index (simdup index add), read again "
    "from their paths.",
)
@click.option(
    "--self",
    "own",
    multiple=True,
    type=click.Path(exists=True, path_type=str),
    metavar="PATH",
    help="The author's own earlier work: its fragments are reported apart (--ratio no-own). A "
    "source that is the same work in another format (its PDF, what compare calls a "
    "near-duplicate) is own work too.",
)
@click.option(
    "--ignore",
    multiple=True,
    type=click.Path(exists=True, path_type=str),
    metavar="FILE",
    help="A template whose text is left out of the count (a cover page, a declaration).",
)
@click.option(
    "--min-match",
    type=click.FloatRange(4, 1000),
    default=FragmentRule().min_match,
    show_default=True,
    metavar="WORDS",
    help="The shortest copied fragment, in words; 13 CJK characters count as 8 words.",
)
@click.option(
    "--gap",
    type=click.IntRange(0, 50),
    default=FragmentRule().gap,
    show_default=True,
    metavar="WORDS",
    help="Differing words (or CJK characters) bridged between two matched runs.",
)
@click.option(
    "--exact-only",
    is_flag=True,
    help="Find verbatim fragments only, not reworded or summarised passages (sentences "
    "compared as bags of words).",
)
@click.option(
    "--semantic",
    is_flag=True,
    help="Also find passages that say what a source says in other words or another language "
    '(translated, paraphrased), by sentence embeddings (pip install "simdup[semantic]").',
)
@no_cache_option(
    "With --semantic: neither read nor keep the sources' sentence embeddings in the sentence "
    "cache (sentences.sqlite in simdup's cache folder)."
)
@click.option(
    "--keep-references",
    is_flag=True,
    help="Count the reference list and citation markers too.",
)
@click.option(
    "--max-ratio",
    type=Ratio(),
    metavar="RATIO",
    help="Exit 1 when a document's ratio (see --ratio) is above RATIO (30% or 0.3).",
)
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=None,
    help="The language of the text and HTML reports: zh (中文) or en (default: the locale's, "
    "zh when LANG starts with zh). JSON keys stay English.",
)
@click.option(
    "--ratio",
    "which",
    type=click.Choice(list(_RATIOS)),
    default="total",
    show_default=True,
    help="The ratio --max-ratio compares: all copied text, without quotations, or without the "
    "author's own work.",
)
@click.option(
    "--fail-on-duplicates",
    is_flag=True,
    help="Exit 1 when a document has any copied fragment counted by --ratio.",
)
@click.option("--strict", is_flag=True, help="Exit 3 when a source could not be read.")
@format_option(["text", "json", "html", "sarif"], show_default=True)
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE (atomically).")
@MAX_SIZE_OPTION
@jobs_option(
    "Worker processes that align a document with its sources when it has many (default: all "
    "cores; the same report with any number)."
)
@click.option("-q", "--quiet", is_flag=True, help="No progress and no skip summary on stderr.")
@click.pass_context
def check_command(ctx: click.Context, /, documents: tuple[str, ...], **kw: Any) -> None:
    """A duplicate-check report for each DOCUMENT (查重): its copy ratio, the ratio without
    quotations and without the author's own work, the largest single source, a ratio per
    section, the sources with their shares, and every copied fragment with its place on both
    sides.

    DOCUMENT may be a text, Markdown, Word, PDF, OpenDocument, EPUB, RTF or HTML file, or a
    folder of them.
    """
    if not (kw["against"] or kw["db"] or kw["own"]):
        raise click.UsageError("give sources to check against: --against PATH, --db DB or --self")
    with usage_errors():
        target = check_output(kw["output"], [*documents, *kw["against"], *kw["own"]])
        options = CheckOptions(
            rule=FragmentRule(min_match=kw["min_match"], gap=kw["gap"]),
            reworded=None if kw["exact_only"] else SentenceRule(),
            semantic=MeaningRule() if kw["semantic"] else None,
            exclude_references=not kw["keep_references"],
            exclude_markers=not kw["keep_references"],
            discovery=DiscoveryOptions(max_size=kw["max_size"]),
        )
        quiet = kw["quiet"]
        # A line naming the stage, a bar with counts and the time left while the sources'
        # sentences are embedded (--semantic); on a terminal only.
        bar = ProgressBar(not quiet and sys.stderr is not None, READING_SOURCES)

        def progress(what: str) -> None:
            stages = (READING_SOURCES, EMBEDDING_SOURCES)
            bar.stage(what if what in stages else f"checking {display_path(what)}")

        with contextlib.ExitStack() as stack:
            stack.callback(bar.close)
            cache = None
            if kw["semantic"] and not kw["no_cache"]:
                roots = [*documents, *kw["against"], *kw["own"]]
                cache = open_sentence_cache(cache_root(), roots)
                if cache is not None:
                    stack.callback(cache.close)
            result = check(
                documents,
                against=kw["against"],
                own=kw["own"],
                db=kw["db"],
                ignore=kw["ignore"],
                options=options,
                progress=progress,
                sentence_cache=cache,
                steps=bar,
                jobs=kw["jobs"] or default_jobs(),
            )
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_check_json(result, stream)
            elif kw["fmt"] == "sarif":
                render_check_sarif(result, stream)
            elif kw["fmt"] == "html":
                from ..report.check_html import render_check_html

                render_check_html(result, stream, language(kw["lang"]))
            else:
                render_check_text(result, stream, language(kw["lang"]))
    which = kw["which"]
    limit = 0.0 if kw["fail_on_duplicates"] else kw["max_ratio"]
    over = []
    if limit is not None:
        over = [d for d in result.documents if d.ratio(which) > limit]
    unread = [s for s in result.skipped if _named(s.path, documents)]
    # The reason for a failing exit code is printed even with --quiet.
    for doc in over:
        sys.stderr.write(
            f"simdup: {display_path(doc.path)}: {_RATIOS[which]} {percent(doc.ratio(which))} "
            f"is above {percent(limit or 0.0)}\n"
        )
    for skip in unread:
        sys.stderr.write(f"simdup: {display_path(skip.path)} could not be read: {skip.reason}\n")
    sources_skipped = [s for s in result.skipped if not _named(s.path, documents)]
    if sources_skipped and (kw["strict"] or not quiet):
        unread_sources = plural(len(sources_skipped), "source file")
        sys.stderr.write(f"simdup: {unread_sources} could not be read\n")
    ctx.exit(
        check_exit_code(
            over_limit=len(over),
            unread=len(unread),
            skipped=len(sources_skipped),
            strict=kw["strict"],
        )
    )


def _named(path: str, documents: tuple[str, ...]) -> bool:
    """Whether ``path`` is one of the documents to check or lies in one of their folders."""
    for named in documents:
        if path == named or path.startswith(named.rstrip(os.sep) + os.sep):
            return True
    return False
