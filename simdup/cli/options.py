"""The options commands share, and how options become the library's settings: click
decorators, ``ByteSize``, options -> ``ScanOptions`` / ``FeatureParams`` / ``PassageOptions``,
and the configuration file merged under the command line (``[tool.simdup]``, ``.simdup.toml``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..algorithms.index import MAX_THRESHOLD
from ..config import OptionSpec, Settings, find_config, resolve_settings
from ..options import (
    DEFAULT_MIN_EDIT_SIMILARITY,
    DEFAULT_MIN_LENGTH_RATIO,
    DEFAULT_MIN_SIMILARITY,
    DEFAULT_VERIFY_RADIUS,
    ScanOptions,
)
from ..params import MARKUPS, WEIGHTINGS, FeatureParams
from ..passages.options import COMPARE_MIN_MATCH, PassageOptions
from ..policy.exitcodes import exit_code_help
from ..readers.discovery import DEFAULT_MAX_SIZE, DiscoveryOptions
from ..readers.rows import FORMATS, RowOptions
from ..text.segmentation import BACKENDS
from ..text.stopwords import read_stopword_file
from .edge import usage_errors

if TYPE_CHECKING:
    from ..distributed.session import DaskSession
    from ..engines.rows import RowEngine

# Each command lists the exit codes it can give (the top-level help lists them all).
PLAIN_CODES = exit_code_help()


_SIZE_SUFFIXES = {
    "": 1,
    "b": 1,
    "k": 1024,
    "kb": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
}


class ByteSize(click.ParamType):  # type: ignore[type-arg]
    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip().lower()
        number = text.rstrip("kmgb")
        suffix = text[len(number) :]
        try:
            size = int(float(number) * _SIZE_SUFFIXES[suffix])
        except (ValueError, KeyError, OverflowError):  # 12Q, nan: ValueError; inf, 1e999: Overflow
            self.fail(f"{value!r} is not a size like 500K, 64M or 1G", param, ctx)
        if size < 1:
            self.fail("size must be positive", param, ctx)
        return size


def _apply(options: Sequence[Callable[[Any], Any]], f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` decorated by a group of click options, listed in the order ``--help`` shows."""
    for option in reversed(options):
        f = option(f)
    return f


# A click option or group of options: what decorates a command.
OptionDecorator = Callable[[Callable[..., Any]], Callable[..., Any]]


# The options below mean the same in every command that has them, so each is declared once;
# a command that says it its own way passes its help text.


def threshold_option(help: str) -> OptionDecorator:
    """-k/--threshold: the SimHash Hamming threshold (scan, compare, query, dedup)."""
    return click.option(
        "-k",
        "--threshold",
        type=click.IntRange(0, MAX_THRESHOLD),
        default=3,
        show_default=True,
        help=help,
    )


def jobs_option(help: str = "Worker processes (default: all cores).") -> OptionDecorator:
    """-j/--jobs: how many worker processes (default None: one per core)."""
    return click.option("-j", "--jobs", type=click.IntRange(1, 512), default=None, help=help)


def format_option(
    choices: Sequence[str] = ("text", "json"),
    *,
    show_default: bool | None = None,
    help: str | None = None,
) -> OptionDecorator:
    """-f/--format: the report's format, text unless told."""
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(choices),
        default="text",
        show_default=show_default,
        help=help,
    )


def engine_options(*, engine_help: str, scheduler_help: str) -> OptionDecorator:
    """--engine and --scheduler: where the work runs (scan, dedup, decon)."""
    options = [
        click.option(
            "--engine",
            type=click.Choice(["local", "dask"]),
            default="local",
            show_default=True,
            help=engine_help,
        ),
        click.option("--scheduler", metavar="ADDRESS", help=scheduler_help),
    ]
    return lambda f: _apply(options, f)


def dask_session(kw: dict[str, Any], stack: contextlib.ExitStack) -> DaskSession | None:
    """The Dask cluster --engine and --scheduler name (dedup, decon, index add): None for
    this machine, else a connection (--scheduler, else $DASK_SCHEDULER_ADDRESS, else a local
    cluster of --jobs workers) closed with ``stack``."""
    if kw["scheduler"] and kw["engine"] != "dask":
        raise click.UsageError("--scheduler needs --engine dask")
    if kw["engine"] != "dask":
        return None
    from ..errors import MissingExtraError

    try:
        from ..distributed.session import DaskSession

        session = DaskSession(kw["scheduler"], workers=kw["jobs"])
    except MissingExtraError as exc:
        raise click.UsageError(str(exc)) from exc
    stack.callback(session.close)
    return session


def row_engine(kw: dict[str, Any], stack: contextlib.ExitStack) -> RowEngine | None:
    """The row engine --engine and --scheduler name (dedup, dedup --spans, decon): None for
    this machine's (the library's default, with --jobs), else the workers of a Dask cluster
    (``dask_session``)."""
    session = dask_session(kw, stack)
    return session.row_engine() if session is not None else None


def against_index_option(help: str) -> OptionDecorator:
    """--against DB: a named index the command's documents are compared with (scan, dedup)."""
    return click.option(
        "--against", metavar="DB", type=click.Path(dir_okay=False, exists=True), help=help
    )


def records_option(help: str, *, default: str | None = None) -> OptionDecorator:
    """--records: the format of the datasets of rows read. For the default None (scan, index
    add, query: PATHS are files unless --records is given) click shows no default."""
    return click.option(
        "--records", type=click.Choice(FORMATS), default=default, show_default=True, help=help
    )


def text_field_option(help: str) -> OptionDecorator:
    return click.option("--text-field", default="text", show_default=True, help=help)


def id_field_option(help: str) -> OptionDecorator:
    return click.option("--id-field", default=None, help=help)


def accept_damaged_option(help: str) -> OptionDecorator:
    """--accept-damaged: keep the rows read before a truncated or damaged input (dedup,
    decon)."""
    return click.option("--accept-damaged", is_flag=True, help=help)


def cache_path_option(help: str) -> OptionDecorator:
    """--cache PATH: the scan cache folder (scan, cache info, cache clear)."""
    return click.option(
        "--cache", "cache_path", metavar="PATH", type=click.Path(file_okay=False), help=help
    )


def no_cache_option(help: str) -> OptionDecorator:
    return click.option("--no-cache", is_flag=True, help=help)


def cache_size_option(help: str) -> OptionDecorator:
    """--cache-size: the bound of the scan cache folder (scan, cache info)."""
    # Imported here: only the commands with the option load the scan cache's module.
    from ..store.cache import DEFAULT_MAX_BYTES

    return click.option(
        "--cache-size", type=ByteSize(), default=DEFAULT_MAX_BYTES, show_default="2G", help=help
    )


# Files larger than this are skipped: every command that reads files.
MAX_SIZE_OPTION = click.option(
    "--max-size",
    type=ByteSize(),
    default=DEFAULT_MAX_SIZE,
    show_default="64M",
    help="Skip files larger than this.",
)


# What markup texts hold (FeatureParams.markup): one option for every command that reads texts.
MARKUP_OPTION = click.option(
    "--markup",
    type=click.Choice(MARKUPS),
    default=None,
    help="What markup the texts hold, removed before they are compared: markdown (front "
    "matter, HTML tags and comments, link targets), html (tags and comments), none (compared as "
    "written). Default: markdown for files, none for rows of a dataset.",
)


def feature_options(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--stopwords",
            "stopword_file",
            type=click.Path(dir_okay=False),
            help="Add the words in FILE (one per line) to the stopword lists.",
        ),
        click.option("--no-stopwords", is_flag=True, help="Do not drop any stopwords."),
        click.option(
            "--user-dict",
            type=click.Path(dir_okay=False),
            help="Load a jieba user dictionary (word [freq] [tag] per line).",
        ),
        click.option(
            "--weighting",
            type=click.Choice(WEIGHTINGS),
            default="tfidf",
            show_default=True,
            help="Term weights of the SimHash.",
        ),
        MARKUP_OPTION,
        click.option("--keep-markup", is_flag=True, help="Same as --markup none."),
        click.option(
            "--segmenter",
            type=click.Choice(BACKENDS),
            default="auto",
            show_default=True,
            help="Segmentation backend (identical tokens; rjieba is faster).",
        ),
        MAX_SIZE_OPTION,
        click.option(
            "--read-timeout",
            type=click.FloatRange(0.1, None),
            default=DiscoveryOptions().read_timeout,
            show_default=True,
            metavar="SECONDS",
            help="Skip a PDF, Word, OpenDocument, EPUB, RTF or HTML file whose reading takes "
            "longer (each is read in a child process).",
        ),
        click.option(
            "--read-memory",
            type=ByteSize(),
            default=DiscoveryOptions().read_memory,
            show_default="2G",
            help="Skip such a file whose reading needs more memory than this.",
        ),
    ]
    return _apply(options, f)


def verify_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The verification options of scan and query (one rule: ``simdup.join.verify``)."""
    options = [
        click.option(
            "--verify/--no-verify",
            default=True,
            show_default=True,
            help="Also report pairs up to --verify-radius whose word sets are similar enough.",
        ),
        click.option(
            "--verify-radius",
            type=click.IntRange(0, MAX_THRESHOLD),
            default=DEFAULT_VERIFY_RADIUS,
            show_default=True,
            help="Hamming radius of the candidates checked by verification.",
        ),
        click.option(
            "--min-similarity",
            type=click.FloatRange(0.0, 1.0),
            default=DEFAULT_MIN_SIMILARITY,
            show_default=True,
            help="Word-set Jaccard that verification requires.",
        ),
        click.option(
            "--min-length-ratio",
            type=click.FloatRange(0.0, 1.0),
            default=DEFAULT_MIN_LENGTH_RATIO,
            show_default=True,
            help="Verification also requires the shorter text to be at least this share of "
            "the longer.",
        ),
        click.option(
            "--min-edit-similarity",
            type=click.FloatRange(0.7, 1.0),
            default=DEFAULT_MIN_EDIT_SIMILARITY,
            show_default=True,
            help="Two short texts (under 400 characters) are near-duplicates at this edit "
            "similarity of their comparison forms (1 - Levenshtein / longer length).",
        ),
    ]
    return _apply(options, f)


def records_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--records`` and the fields of datasets of rows (scan, index add, query): PATHS are
    then dataset files, one document per row."""
    options = [
        records_option(
            "PATHS are datasets of rows (JSON Lines, CSV, TSV, Parquet; auto: by name, then "
            "first bytes), one document per row."
        ),
        text_field_option("With --records: the text."),
        id_field_option(
            'With --records: a row\'s id (default: its "id" when it has one, else file#row).'
        ),
    ]
    return _apply(options, f)


def row_options(kw: dict[str, Any]) -> RowOptions:
    """The ``RowOptions`` of ``--records``, ``--text-field`` and ``--id-field``."""
    return RowOptions(
        records=kw["records"] or "auto", text_field=kw["text_field"], id_field=kw["id_field"]
    )


def passage_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--passages and its size option (scan and compare)."""
    options = [
        click.option(
            "--passages",
            is_flag=True,
            help="Also report duplicated passages: line ranges of a document that are "
            "near-copies of line ranges of another (a passages section in every format).",
        ),
        click.option(
            "--passage-min-words",
            type=click.IntRange(5, None),
            default=PassageOptions().min_words,
            show_default=True,
            help="With --passages: the shortest passage, in words matched (13 CJK "
            "characters per 8 words), a few differing words bridged; a copy of three or "
            "more whole lines alike counts from half of it.",
        ),
        click.option(
            "--passage-min-match",
            type=click.FloatRange(0, None),
            default=None,
            metavar="WORDS",
            help="With --passages: shorter copies are also found, down to this many words; "
            f"0: off. Default: {COMPARE_MIN_MATCH:g} for compare, off for scan (in a "
            "collection, short shared passages are mostly its templates).",
        ),
        click.option(
            "--passage-reworded",
            is_flag=True,
            help="With --passages: also passages reworded (sentences compared as bags of "
            "words, as check finds them), marked reworded; in a scan, between documents "
            "that also share a run of words.",
        ),
    ]
    return _apply(options, f)


def passage_settings(kw: dict[str, Any], *, scan: bool = False) -> PassageOptions:
    """The ``PassageOptions`` of a command's options (the rest: defaults; short copies are
    looked for by default in ``compare``, not in ``scan``)."""
    min_match = kw["passage_min_match"]
    if min_match is None:
        min_match = 0.0 if scan else COMPARE_MIN_MATCH
    fields: dict[str, Any] = {
        "min_words": kw["passage_min_words"],
        "min_match": min_match,
        "reworded": kw["passage_reworded"],
    }
    if "within" in kw:
        fields["within"] = kw["within"]
    if "max_passage_repeats" in kw:
        fields["max_repeats"] = kw["max_passage_repeats"]
    if kw.get("fmt", "text") != "text":
        fields["max_previews"] = 0  # only the text report shows them: no text is read again
    return PassageOptions(**fields)


def markup_setting(kw: dict[str, Any]) -> str:
    """The ``--markup`` of a command (``--keep-markup``: none), else the default of what it
    reads: none for rows (``--records``, ``dedup``, ``decon``), markdown for files."""
    markup: str | None = kw.get("markup")
    if kw.get("keep_markup"):
        if markup not in (None, "none"):
            raise click.UsageError(f"--keep-markup is --markup none: it does not go with "
                                   f"--markup {markup}")  # fmt: skip
        return "none"
    if markup is not None:
        return markup
    return "none" if kw.get("records") else "markdown"


def feature_params(kw: dict[str, Any]) -> FeatureParams:
    extra = (
        frozenset(read_stopword_file(kw["stopword_file"]))
        if kw.get("stopword_file")
        else frozenset()
    )
    return FeatureParams(
        markup=markup_setting(kw),
        stopwords=not kw["no_stopwords"],
        extra_stopwords=extra,
        user_dict=kw.get("user_dict"),
        weighting=kw["weighting"],
        segmenter=kw["segmenter"],
    )


_SCAN_FIELDS = (
    "threshold",
    "verify",
    "verify_radius",
    "min_similarity",
    "min_length_ratio",
    "min_edit_similarity",
    "cluster_method",
    "jobs",
    "method",
)


_DISCOVERY_FIELDS = (
    "include", "exclude", "hidden", "follow_symlinks", "max_size", "ignore_files",
    "read_timeout", "read_memory",
)  # fmt: skip


def scan_options(kw: dict[str, Any]) -> ScanOptions:
    """The one ``ScanOptions`` of a command, from the options it has (the rest: defaults)."""
    discovery = DiscoveryOptions(**{k: kw[k] for k in _DISCOVERY_FIELDS if k in kw})
    fields = {k: kw[k] for k in _SCAN_FIELDS if k in kw}
    return ScanOptions(features=feature_params(kw), discovery=discovery, **fields)


def option_specs(command: click.Command) -> list[OptionSpec]:
    """What a configuration file may set: every option of ``command``, under its long name."""

    def converter(param: click.Option) -> Callable[[Any], Any]:
        def convert(value: Any) -> Any:
            try:
                return param.type.convert(value, param, None)
            except click.BadParameter as exc:
                raise ValueError(exc.message) from exc

        return convert

    specs = []
    for param in command.params:
        if not isinstance(param, click.Option) or param.name is None:
            continue
        key = next(o for o in param.opts if o.startswith("--")).lstrip("-")
        specs.append(
            OptionSpec(
                key,
                param.name,
                converter(param),
                multiple=param.multiple,
                is_flag=param.is_flag,
                is_path=isinstance(param.type, click.Path),
            )
        )
    return specs


def _from_command_line(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source not in (
        click.core.ParameterSource.DEFAULT,
        click.core.ParameterSource.DEFAULT_MAP,
    )


def scan_settings(
    ctx: click.Context, command: click.Command, paths: Sequence[str], given: dict[str, Any]
) -> Settings:
    """The settings of ``command`` (scan) for ``paths``: ``given`` values that ``ctx`` got from
    the command line, else the configuration file's, else ``given`` (the defaults)."""
    specs = option_specs(command)
    from_cli = [s.dest for s in specs if s.dest in given and _from_command_line(ctx, s.dest)]
    with usage_errors():
        config = find_config(paths[0] if paths else os.curdir)
        return resolve_settings(specs, given, from_cli, config)


def configured(ctx: click.Context, paths: Sequence[str], kw: dict[str, Any]) -> dict[str, Any]:
    """``kw`` of the command of ``ctx`` (scan) with the configuration file applied."""
    return {**kw, **scan_settings(ctx, ctx.command, paths, kw).values()}
