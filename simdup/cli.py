"""The ``simdup`` command: parses options, calls the library, renders, exits.

No algorithm lives here. Library errors become exit codes in one place (``simdup.exitcodes``).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import click

from .__about__ import __version__
from .algorithms.clustering import METHODS as CLUSTER_METHODS
from .algorithms.index import MAX_THRESHOLD
from .baseline import Baseline, write_baseline
from .comparing import compare
from .config import COMMAND_LINE, DEFAULT, OptionSpec, Settings, find_config, resolve_settings
from .discovery import DEFAULT_MAX_SIZE, DiscoveryOptions, discover, read_path_list
from .engines import Engine, fingerprint_files, make_engine
from .errors import ConfigError, InputError, OutputError, SimdupError
from .exitcodes import (
    EXIT_CODE_HELP,
    FILE_HELP,
    ExitCode,
    exit_code_help,
    files_exit_code,
    query_exit_code,
    stopped_exit_code,
)
from .options import (
    DEFAULT_MIN_LENGTH_RATIO,
    DEFAULT_MIN_SIMILARITY,
    DEFAULT_VERIFY_RADIUS,
    METHODS_CANDIDATES,
    ScanOptions,
)
from .outcome import ScanOutcome, scan_outcome
from .params import ALGORITHM_VERSION, WEIGHTINGS, FeatureParams
from .passages import PassageOptions, compare_passages, scan_passages
from .records import FingerprintedDocument, ScanResult
from .report import FORMATS, render
from .report.json import render_comparison_json
from .report.passages import render_passages_text, span_label
from .report.paths import display_path
from .report.store import (
    QueryAnswer,
    render_index_stats,
    render_query_json,
    render_query_text,
)
from .report.target import ReportTarget, guard_standard_streams, names_own_descriptor
from .report.text import render_comparison_text, render_skip_summary
from .scanning import scan
from .store.cache import FingerprintCache, default_cache_path
from .store.cached_engine import CachedEngine, with_cache
from .store.index import Index
from .text.processor import DocumentProcessor
from .text.segmentation import BACKENDS
from .text.stopwords import read_stopword_file

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


def _feature_options(f: Callable[..., Any]) -> Callable[..., Any]:
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
        click.option(
            "--keep-markup", is_flag=True, help="Keep URLs, HTML tags and front matter as words."
        ),
        click.option(
            "--segmenter",
            type=click.Choice(BACKENDS),
            default="auto",
            show_default=True,
            help="Segmentation backend (identical tokens; rjieba is faster).",
        ),
        click.option(
            "--max-size",
            type=ByteSize(),
            default=DEFAULT_MAX_SIZE,
            show_default="64M",
            help="Skip files larger than this.",
        ),
    ]
    return _apply(options, f)


def _verify_options(f: Callable[..., Any]) -> Callable[..., Any]:
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
    ]
    return _apply(options, f)


def _passage_options(f: Callable[..., Any]) -> Callable[..., Any]:
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
            help="With --passages: the smallest passage looked for, in words.",
        ),
    ]
    return _apply(options, f)


def _passage_settings(kw: dict[str, Any]) -> PassageOptions:
    """The ``PassageOptions`` of a command's options (the rest: defaults)."""
    fields: dict[str, Any] = {"min_words": kw["passage_min_words"]}
    if "within" in kw:
        fields["within"] = kw["within"]
    if "max_passage_repeats" in kw:
        fields["max_repeats"] = kw["max_passage_repeats"]
    return PassageOptions(**fields)


def _feature_params(kw: dict[str, Any]) -> FeatureParams:
    extra = (
        frozenset(read_stopword_file(kw["stopword_file"]))
        if kw.get("stopword_file")
        else frozenset()
    )
    return FeatureParams(
        markup=not kw["keep_markup"],
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
    "cluster_method",
    "jobs",
    "method",
)
_DISCOVERY_FIELDS = (
    "include", "exclude", "hidden", "follow_symlinks", "max_size", "ignore_files"
)  # fmt: skip


def _scan_options(kw: dict[str, Any]) -> ScanOptions:
    """The one ``ScanOptions`` of a command, from the options it has (the rest: defaults)."""
    discovery = DiscoveryOptions(**{k: kw[k] for k in _DISCOVERY_FIELDS if k in kw})
    fields = {k: kw[k] for k in _SCAN_FIELDS if k in kw}
    return ScanOptions(features=_feature_params(kw), discovery=discovery, **fields)


@contextlib.contextmanager
def _usage_errors() -> Iterator[None]:
    """Turn library errors into the exit codes of ``simdup.exitcodes``."""
    try:
        yield
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    except InputError as exc:
        click.echo(f"simdup: {display_path(exc.path)}: {exc.reason}", err=True)
        raise click.exceptions.Exit(ExitCode.FILES_SKIPPED) from exc
    except OutputError as exc:
        click.echo(f"simdup: cannot write report: {exc}", err=True)
        raise click.exceptions.Exit(ExitCode.ERROR) from exc
    except SimdupError as exc:
        click.echo(f"simdup: error: {exc}", err=True)
        raise click.exceptions.Exit(ExitCode.ERROR) from exc


def _os_error(exc: OSError, where: str | None) -> str:
    """'PATH: No space left on device', without errno numbers or Python quoting."""
    if isinstance(exc, OutputError):
        return str(exc)
    reason = exc.strerror or str(exc)
    name = display_path(os.fsdecode(exc.filename)) if exc.filename else where
    return f"{name}: {reason}" if name else reason


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _read_files_from(source: str, null: bool) -> list[str]:
    if source == "-":
        try:
            if sys.stdin is None:  # started with file descriptor 0 closed (`<&-`)
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            data = sys.stdin.buffer.read()
        except (OSError, ValueError) as exc:
            # ValueError: sys.stdin was closed; EBADF: file descriptor 0 is not open.
            reason = "standard input is closed"
            if isinstance(exc, OSError) and exc.errno != errno.EBADF:
                reason = exc.strerror or str(exc)
            raise click.UsageError(f"cannot read --files-from -: {reason}") from exc
    else:
        try:
            with open(source, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise click.BadParameter(
                f"{source}: {exc.strerror}", param_hint="--files-from"
            ) from exc
    try:
        return read_path_list(data, null)
    except ConfigError as exc:
        hint = "--files-from"
        raise click.BadParameter(f"{display_path(source)}: {exc}", param_hint=hint) from exc


def _inside(child: str, parent: str) -> bool:
    """``child`` is ``parent`` or below it, as spelled or after resolving symbolic links."""
    for resolve in (os.path.abspath, os.path.realpath):
        c, p = resolve(child), resolve(parent)
        if c == p or c.startswith(p.rstrip(os.sep) + os.sep):
            return True
    return False


def _engine_for(
    kw: dict[str, Any], roots: Sequence[str], stack: contextlib.ExitStack
) -> Callable[[ScanOptions], Engine]:
    """The scan's engine: the local one, behind the scan cache unless --no-cache."""

    def warn(message: str) -> None:
        if not kw["quiet"]:
            click.echo(f"simdup: warning: {message}", err=True)

    def build(options: ScanOptions) -> Engine:
        features, discovery = options.features, options.discovery
        engine = make_engine(features, max_size=discovery.max_size, jobs=options.jobs)
        if kw["no_cache"]:
            return engine
        cached = with_cache(engine, roots, kw["cache_path"], warn=warn)
        if isinstance(cached, CachedEngine):
            stack.callback(cached.close)
        return cached

    return build


def _check_output(output: str | None, roots: list[str]) -> None:
    """Refuse an output file that is a scanned file or lies inside a scanned folder (the name
    of a descriptor, ``/dev/stdout``, is standard output: what the shell opened, not simdup)."""
    if not output or output == "-" or names_own_descriptor(output):
        return
    _check_not_scanned("--output", output, roots)


def _check_not_scanned(option: str, path: str, roots: Sequence[str]) -> None:
    """Refuse a file simdup writes (a report, a database and its journal) inside what it scans."""
    for root in roots:
        if _inside(path, root):
            where = (
                f"inside the scanned folder {display_path(root)}"
                if os.path.isdir(root)
                else f"the scanned file {display_path(root)}"
            )
            raise click.UsageError(
                f"{option} {display_path(path)} is {where}: "
                "simdup never writes into the folders it scans"
            )


class _Progress:
    """tqdm on stderr, only when stderr is a terminal and not --quiet."""

    def __init__(self, enabled: bool, desc: str) -> None:
        self.bar: Any = None
        self.enabled = enabled and sys.stderr.isatty()
        self.desc = desc

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread: workers are forked
            self.bar = tqdm(total=total, desc=self.desc, unit="file", file=sys.stderr, leave=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


EPILOG_SCAN = f"""\b
Examples:
  simdup scan ./docs                       clusters of near-duplicates
  simdup scan ./docs --threshold 2 --format json > report.json
  git ls-files -z '*.md' | simdup scan --files-from - -0 --fail-on-duplicates
  simdup scan a/ b/ --include '*.txt' --exclude 'build/*' --format csv -o pairs.csv

{EXIT_CODE_HELP}"""


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so that it cleans up as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stopped(signum: int, frame: object) -> None:
    # Once is enough: a second signal must not interrupt the clean-up (stopping workers).
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signum, signal.SIG_IGN)
    raise Stopped(signum)


def _stop_message(exc: BaseException) -> tuple[str, ExitCode]:
    """'interrupted' (Ctrl-C) or 'terminated by SIGTERM', and its exit status."""
    if isinstance(exc, Stopped):
        return f"stopped by {signal.Signals(exc.signum).name}", stopped_exit_code(exc.signum)
    return "interrupted", ExitCode.INTERRUPTED


# Each command lists the exit codes it can give (the top-level help lists them all).
_PLAIN_CODES = exit_code_help()
# New pairs and stale baseline entries listed on stderr; the rest are counted.
_LISTED = 20
_COMPARE_CODES = exit_code_help(files="A or B could not be read, decoded or fingerprinted")
_HASH_CODES = exit_code_help(files=FILE_HELP + " (files inside a folder are reported only)")
_QUERY_CODES = exit_code_help(
    duplicates="--fail-on-duplicates and a stored near-duplicate was found", files=FILE_HELP
)
_REMOVE_CODES = exit_code_help(files="a key is not in the index")


class _Group(click.Group):
    """The edge of every command: Ctrl-C, SIGTERM and SIGHUP exit 130, 143 and 129 with a short
    message (click would exit 1, which means duplicates); a closed stdout pipe ends the command
    quietly; an unexpected error exits 4 with one line, never 1 and never a traceback (set
    SIMDUP_TRACEBACK=1 to see it)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, click.exceptions.Abort) as exc:
            message, code = _stop_message(exc)
            click.echo(f"simdup: {message}", err=True)
            raise click.exceptions.Exit(code) from None
        except BrokenPipeError:
            # The reader of stdout went away (`| head`): stop quietly.
            _silence_stdout()
            raise click.exceptions.Exit(ExitCode.OK) from None
        except click.exceptions.Exit:
            raise
        except click.ClickException as exc:
            if exc.exit_code != 1:
                raise
            # click's own errors exit 1, which is simdup's "duplicates found".
            exc.show()
            raise click.exceptions.Exit(ExitCode.ERROR) from None
        except Exception as exc:
            if os.environ.get("SIMDUP_TRACEBACK"):
                traceback.print_exc()
            click.echo(f"simdup: internal error: {type(exc).__name__}: {exc}", err=True)
            raise click.exceptions.Exit(ExitCode.ERROR) from None


@click.group(
    cls=_Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODE_HELP
)
@click.version_option(
    __version__,
    "-V",
    "--version",
    prog_name="simdup",
    message=f"%(prog)s %(version)s (algorithm {ALGORITHM_VERSION})",
)
def cli() -> None:
    """Find near-duplicate documents: Chinese, English or mixed, in any common encoding.

    \b
    Examples:
      simdup scan ./docs
      simdup compare a.txt b.txt
      simdup hash *.txt
      simdup calibrate ./docs
    """


@cli.command("scan", epilog=EPILOG_SCAN)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "-k",
    "--threshold",
    type=click.IntRange(0, MAX_THRESHOLD),
    default=3,
    show_default=True,
    help="SimHash Hamming threshold: with --no-verify, pairs within it are reported as they "
    "are; with verification, candidates are searched within max(it, --verify-radius).",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the report to FILE (atomically) instead of stdout.",
)
@click.option("--fail-on-duplicates", is_flag=True, help="Exit 1 when near-duplicates are found.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="A baseline file (--write-baseline), or an earlier JSON or JSON Lines report, whose "
    "pairs are accepted: with --fail-on-duplicates only pairs not in it fail. Pairs match by "
    "content, by path or, for edited files, by fingerprint (docs/baseline.md).",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False),
    help="Also write this run's pairs to FILE (atomically, outside the scanned folders) as "
    "accepted duplicates, for --baseline.",
)
@click.option("--strict", is_flag=True, help="Exit 3 when some files could not be read or decoded.")
@click.option(
    "--files-from",
    type=click.Path(allow_dash=True),
    help="Read more paths from FILE, one per line ('-' for stdin).",
)
@click.option("-0", "--null", is_flag=True, help="--files-from items are NUL-separated.")
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Only scan files matching GLOB (repeatable)."
)
@click.option(
    "--exclude", multiple=True, metavar="GLOB", help="Skip files and folders matching GLOB."
)
@click.option("--hidden", is_flag=True, help="Also scan hidden files and VCS folders.")
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links (loops are detected).")
@click.option(
    "--ignore/--no-ignore",
    "ignore_files",
    default=True,
    show_default=True,
    help="Leave out what .simdupignore files, and inside a git work tree .gitignore files and "
    ".git/info/exclude, ignore (files named as PATHS are always scanned).",
)
@_verify_options
@click.option(
    "--cluster",
    "cluster_method",
    type=click.Choice(CLUSTER_METHODS),
    default="centers",
    show_default=True,
    help="centers: every member is a near-duplicate of its representative; "
    "components: connected components (may chain).",
)
@click.option(
    "--method",
    type=click.Choice(METHODS_CANDIDATES),
    default="auto",
    show_default=True,
    help="Candidate generation: SimHash block index within --verify-radius, or MinHash LSH "
    "(128 permutations, bands chosen from --min-similarity); auto: simhash up to 50,000 "
    "files, minhash above (its cost grows linearly).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, 512),
    default=None,
    help="Worker processes (default: all cores).",
)
@click.option(
    "--cache",
    "cache_path",
    metavar="PATH",
    type=click.Path(dir_okay=False),
    help="The scan cache file (default: fingerprints.sqlite in the user's cache folder, or in "
    "$SIMDUP_CACHE_DIR). Unchanged files are not read again.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the scan cache.")
@click.option(
    "--against",
    metavar="DB",
    type=click.Path(dir_okay=False, exists=True),
    help="A named index (simdup index add): report only pairs between the scanned files and "
    "its documents, and among the scanned files.",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where the work runs: this machine, or a Dask cluster (pip install \"simdup[dask]\"); "
    "the same result. PATHS may then also be fsspec URLs (s3://, gs://, hdfs://).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="With --engine dask: the scheduler (tcp://host:8786; default $DASK_SCHEDULER_ADDRESS, "
    "else a local cluster with one worker per core).",
)
@click.option(
    "--write-fingerprints",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Also store the fingerprint records as Parquet in DIR, for --fingerprints.",
)
@click.option(
    "--fingerprints",
    metavar="DIR",
    type=click.Path(file_okay=False, exists=True),
    help="Scan the records stored by --write-fingerprints instead of PATHS (same algorithm "
    "version and fingerprint options, else refused).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no skip summary on stderr.")
@_passage_options
@click.option(
    "--within",
    is_flag=True,
    help="With --passages: also passages repeated inside one document.",
)
@click.option(
    "--max-passage-repeats",
    type=click.IntRange(0, None),
    default=PassageOptions().max_repeats,
    show_default=True,
    help="With --passages: a passage found in more documents than this is reported once, as "
    "a repeated passage with its count and places, not as pairs (0: always as pairs).",
)
@_feature_options
@click.pass_context
def scan_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Find clusters of near-duplicate documents under PATHS (files or folders).

    Options can also be set in [tool.simdup] of pyproject.toml or in .simdup.toml (see
    simdup config); the command line wins.
    """
    kw = _configured(ctx, paths, kw)
    all_paths = list(paths)
    if kw["files_from"]:
        all_paths += _read_files_from(kw["files_from"], kw["null"])
    if not all_paths and not kw["fingerprints"]:
        raise click.UsageError("no PATHS given (and no --files-from)")
    output = kw["output"]
    _check_output(output, all_paths)
    _check_distributed(kw, all_paths)
    if kw["write_baseline"]:
        _check_not_scanned("--write-baseline", kw["write_baseline"], all_paths)
    with _usage_errors():
        baseline = Baseline.load(kw["baseline"]) if kw["baseline"] else None
        target = ReportTarget.resolve(output)  # fail now, not after the scan
        baseline_target = (
            ReportTarget.resolve(kw["write_baseline"]) if kw["write_baseline"] else None
        )
    progress = _Progress(not kw["quiet"], "fingerprinting")
    with _usage_errors(), contextlib.ExitStack() as stack:
        options = _scan_options(kw)
        reference = None
        if kw["against"]:
            _check_not_scanned("--against", kw["against"], all_paths)
            reference = stack.enter_context(
                Index(kw["against"], create=False, params=options.features)
            )
        try:
            engine_for = _engine_for(kw, all_paths, stack)
            if kw["passages"]:
                result = scan_passages(
                    all_paths,
                    options,
                    _passage_settings(kw),
                    progress=progress,
                    engine_for=engine_for,
                    reference=reference,
                )
            else:
                result = scan(
                    all_paths,
                    options,
                    progress=progress,
                    reference=reference,
                    # Stored fingerprints hold the MinHash signatures a scan otherwise drops.
                    keep_signatures=bool(kw["write_fingerprints"]),
                    **_scan_engine(kw, stack, engine_for),
                )
        except KeyboardInterrupt as exc:
            progress.close()
            message, code = _stop_message(exc)
            click.echo(f"simdup: {message}; no report written", err=True)
            ctx.exit(code)
        finally:
            progress.close()
    if kw["write_fingerprints"]:
        _write_fingerprints(ctx, kw["write_fingerprints"], result, options)
    try:
        with target.open() as stream:
            render(result, kw["fmt"], stream)
    except BrokenPipeError:
        # The reader went away (`| head`). The scan itself is complete, so the exit status
        # below still says what it found (a CI pipe must not turn duplicates into success).
        if target.is_stdout:
            _silence_stdout()
    except OSError as exc:
        where = "standard output" if target.is_stdout else output
        click.echo(f"simdup: cannot write report: {_os_error(exc, where)}", err=True)
        ctx.exit(ExitCode.ERROR)
    if baseline_target is not None:
        try:
            with baseline_target.open() as stream:
                write_baseline(result, kw["write_baseline"], options.features, stream)
        except OSError as exc:
            message = _os_error(exc, kw["write_baseline"])
            click.echo(f"simdup: cannot write baseline: {message}", err=True)
            ctx.exit(ExitCode.ERROR)
    if not kw["quiet"]:
        render_skip_summary(result, sys.stderr)
    outcome = scan_outcome(
        result,
        fail_on_duplicates=kw["fail_on_duplicates"],
        strict=kw["strict"],
        baseline=baseline,
        options=options,
    )
    _echo_baseline_diff(outcome, result, kw)
    ctx.exit(outcome.code)


def _check_distributed(kw: dict[str, Any], paths: Sequence[str]) -> None:
    """Usage errors of --engine dask, --fingerprints and --write-fingerprints."""
    if kw["fingerprints"] and paths:
        raise click.UsageError("--fingerprints replaces PATHS: give one or the other")
    if kw["passages"] and (kw["engine"] == "dask" or kw["fingerprints"]):
        raise click.UsageError("--passages runs with --engine local only")
    if kw["scheduler"] and kw["engine"] != "dask":
        raise click.UsageError("--scheduler needs --engine dask")
    if kw["write_fingerprints"]:
        _check_not_scanned("--write-fingerprints", kw["write_fingerprints"], paths)


def _scan_engine(
    kw: dict[str, Any], stack: contextlib.ExitStack, engine_for: Callable[[ScanOptions], Engine]
) -> dict[str, Any]:
    """``scan()``'s engine, file listing and join: the local ones, stored fingerprints
    (--fingerprints) and/or a Dask cluster (--engine dask, closed with ``stack``)."""
    from .errors import MissingExtraError

    chosen: dict[str, Any] = {"engine_for": engine_for}
    try:
        if kw["fingerprints"]:
            from .distributed.fingerprints import StoredFingerprints

            store = StoredFingerprints(kw["fingerprints"])
            chosen["finder"] = store.find
            chosen["engine_for"] = lambda options: store.engine(options.features)
        if kw["engine"] == "dask":
            from .distributed.session import DaskSession

            session = DaskSession(kw["scheduler"])
            stack.callback(session.close)
            if not kw["quiet"] and session.dashboard:
                click.echo(f"simdup: Dask dashboard: {session.dashboard}", err=True)
            chosen["join"] = session.join
            if not kw["fingerprints"]:
                chosen["finder"] = session.find
                chosen["engine_for"] = session.engine
    except MissingExtraError as exc:
        raise click.UsageError(str(exc)) from exc
    return chosen


def _write_fingerprints(
    ctx: click.Context, directory: str, result: ScanResult, options: ScanOptions
) -> None:
    from .errors import MissingExtraError

    try:
        from .distributed.fingerprints import write_scan

        write_scan(directory, result, options)
    except MissingExtraError as exc:
        raise click.UsageError(str(exc)) from exc
    except OSError as exc:
        message = _os_error(exc, directory)
        click.echo(f"simdup: cannot write fingerprints: {message}", err=True)
        ctx.exit(ExitCode.ERROR)


def _echo_baseline_diff(outcome: ScanOutcome, result: ScanResult, kw: dict[str, Any]) -> None:
    """New pairs and stale entries of a scan with --baseline, on stderr. --quiet never hides
    the reason for a failing status: the new pairs are listed then (stale entries are not)."""
    if not outcome.baseline_used:
        return
    name = display_path(kw["baseline"])
    fresh = outcome.new_pairs
    if not kw["quiet"] or (fresh and outcome.code == ExitCode.DUPLICATES_FOUND):
        click.echo(
            f"simdup: {len(fresh)} of {len(result.pairs)} near-duplicate pairs are not in "
            f"the baseline {name}",
            err=True,
        )
        for pair in fresh[:_LISTED]:
            click.echo(
                f"  {display_path(pair.a)}  {display_path(pair.b)}  distance {pair.distance}",
                err=True,
            )
        if len(fresh) > _LISTED:
            click.echo(f"  ... and {len(fresh) - _LISTED} more", err=True)
    new_passages = outcome.new_passages
    if "passages" in result.settings and (
        not kw["quiet"] or (new_passages and outcome.code == ExitCode.DUPLICATES_FOUND)
    ):
        click.echo(
            f"simdup: {len(new_passages)} of {len(result.passages)} duplicated passages are not "
            f"in the baseline {name}",
            err=True,
        )
        for passage in new_passages[:_LISTED]:
            click.echo(f"  {span_label(passage.a)}  {span_label(passage.b)}", err=True)
        if len(new_passages) > _LISTED:
            click.echo(f"  ... and {len(new_passages) - _LISTED} more", err=True)
    if outcome.stale and not kw["quiet"]:
        n = len(outcome.stale)
        entries = "1 entry of" if n == 1 else f"{n} entries of"
        click.echo(
            f"simdup: {entries} the baseline {name} {'matches' if n == 1 else 'match'} no "
            "pair now (stale: rewrite it with --write-baseline)",
            err=True,
        )
        for entry in outcome.stale[:_LISTED]:
            click.echo(f"  {entry.a.shown}  {entry.b.shown}", err=True)
        if len(outcome.stale) > _LISTED:
            click.echo(f"  ... and {len(outcome.stale) - _LISTED} more", err=True)


@cli.command(
    "compare",
    epilog=f"""\b
Examples:
  simdup compare draft.md final.md
  simdup compare a.txt b.txt --format json | jq .distance
  simdup compare draft.md final.md --explain      the changed passages too
  pbpaste | simdup compare - final.md             one side from standard input

{_COMPARE_CODES}""",
)
@click.argument("a", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("b", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "-k",
    "--threshold",
    type=click.IntRange(0, MAX_THRESHOLD),
    default=3,
    show_default=True,
    help="As for scan: with --no-verify the verdict is distance <= K; with verification (the "
    "default) a pair within max(K, --verify-radius) is verified by length ratio and word-set "
    "Jaccard.",
)
@_verify_options
@click.option(
    "-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--top",
    type=click.IntRange(0, 1000),
    default=10,
    show_default=True,
    help="How many shared and differing terms to list.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Also show the changed passages of the two texts, with line numbers.",
)
@_passage_options
@_feature_options
@click.pass_context
def compare_command(ctx: click.Context, /, a: str, b: str, **kw: Any) -> None:
    """How close two documents are, and why.

    Reports the Hamming distance of their SimHash fingerprints, SimHash similarity (1 - d/64),
    TF-IDF cosine (jieba's IDF table), Jaccard of the word sets, the verdict and the rule that
    decided it, and the weighted terms they share (pulling the fingerprints together) and that
    differ most (pulling them apart). A or B may be '-' for standard input.
    """
    if a == "-" and b == "-":
        raise click.UsageError("only one of A and B can be '-' (standard input)")
    stdin = None
    if "-" in (a, b):
        if sys.stdin is None:
            raise click.UsageError("cannot read '-': standard input is closed")
        stdin = sys.stdin.buffer.read(kw["max_size"] + 1)
        if len(stdin) > kw["max_size"]:
            raise click.UsageError(f"standard input is larger than --max-size ({kw['max_size']})")
    with _usage_errors():
        options = _scan_options(kw)
        target = ReportTarget.resolve(None)
        comparison = compare(a, b, options, top=kw["top"], explain=kw["explain"], stdin=stdin)
        matching = None
        if kw["passages"]:
            matching = compare_passages(a, b, options, _passage_settings(kw), stdin=stdin)
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_comparison_json(comparison, stream, passages=matching)
            else:
                render_comparison_text(comparison, stream)
                if matching is not None:
                    stream.write("\n")
                    render_passages_text(matching, (), stream)
    ctx.exit(ExitCode.OK)


@cli.command(
    "hash",
    epilog=f"""\b
Examples:
  simdup hash notes/*.txt
  simdup hash docs/ | sort | uniq -w16 -D      exact fingerprint collisions

{_HASH_CODES}""",
)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@_feature_options
@click.pass_context
def hash_command(ctx: click.Context, /, files: tuple[str, ...], **kw: Any) -> None:
    """Print the 64-bit SimHash of each file: '<16 hex digits>  <path>', like sha256sum.

    Folders are walked as by 'scan'. A file that cannot be fingerprinted is reported on
    stderr; one named on the command line makes the exit status 3 (a binary or empty file
    found inside a folder does not).
    """
    with _usage_errors():
        params = _feature_params(kw)
        DocumentProcessor(params)  # fail early on a bad user dictionary
        # Like sha256sum: every path named gets its line, hard links and repeats included.
        found, skipped = discover(
            files, DiscoveryOptions(max_size=kw["max_size"], unique_files=False)
        )
        failed = list(skipped)
        with ReportTarget.resolve(None).open() as stream:
            for result in fingerprint_files(found, params, max_size=kw["max_size"], jobs=1):
                if isinstance(result, FingerprintedDocument):
                    line = f"{result.fingerprint:016x}  {display_path(result.path)}"
                    click.echo(line, file=stream)
                else:
                    failed.append(result)
    for skip in failed:
        click.echo(f"simdup: {display_path(skip.path)}: {skip.reason}", err=True)
    named = set(files)
    ctx.exit(files_exit_code(sum(1 for skip in failed if skip.path in named)))


@cli.command(
    "calibrate",
    epilog=f"""\b
Examples:
  simdup calibrate ./docs
  simdup calibrate ./docs --radius 20 --format json

{_PLAIN_CODES}""",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--radius",
    type=click.IntRange(0, MAX_THRESHOLD),
    default=16,
    show_default=True,
    help="Largest Hamming distance to histogram.",
)
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("-j", "--jobs", type=click.IntRange(1, 512), default=None, help="Worker processes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@_feature_options
@click.pass_context
def calibrate_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Show where a corpus separates near-duplicates from the rest.

    Histograms of each document's nearest-neighbour Hamming distance and, for every pair within
    --radius, its word-set Jaccard and whether it passes the length check, to choose
    --threshold, --verify-radius and --min-similarity for a corpus.
    """
    from .calibration import calibrate
    from .report.calibration import render_calibration_json, render_calibration_text

    progress = _Progress(not kw["quiet"], "fingerprinting")
    with _usage_errors():
        options = _scan_options(kw)
        target = ReportTarget.resolve(None)
        try:
            result = calibrate(paths, options, radius=kw["radius"], progress=progress)
        finally:
            progress.close()
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_calibration_json(result, stream)
            else:
                render_calibration_text(result, stream)
    ctx.exit(ExitCode.OK)


@cli.group("cache", epilog=_PLAIN_CODES)
def cache_group() -> None:
    """The scan cache: fingerprints of files already seen, reused by later scans.

    \b
    Examples:
      simdup cache info
      simdup cache clear
      simdup scan docs --no-cache          neither read nor write it
    """


def _cache_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--cache",
        "cache_path",
        metavar="PATH",
        type=click.Path(dir_okay=False),
        help="The cache file (default: the one scan uses).",
    )(f)


@cache_group.command("info", epilog=_PLAIN_CODES)
@_cache_option
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def cache_info_command(ctx: click.Context, /, **kw: Any) -> None:
    """Where the cache is, how many entries it holds and its size on disk."""
    path = kw["cache_path"] or default_cache_path()
    with _usage_errors():
        target = ReportTarget.resolve(None)
        if os.path.exists(path):
            with FingerprintCache(kw["cache_path"], warn=_warning) as cache:
                info = cache.info()
            entries, size, limit = info.entries, info.bytes, info.max_entries
        else:
            entries, size, limit = 0, 0, None
        with target.open() as stream:
            if kw["fmt"] == "json":
                record = {"path": path, "entries": entries, "bytes": size, "max_entries": limit}
                click.echo(json.dumps(record, ensure_ascii=False), file=stream)
            else:
                click.echo(f"cache        {display_path(path)}", file=stream)
                click.echo(f"entries      {entries}", file=stream)
                click.echo(f"size         {size:,} bytes", file=stream)
                if limit:
                    click.echo(f"max entries  {limit} (least recently used evicted)", file=stream)
    ctx.exit(ExitCode.OK)


@cache_group.command("clear", epilog=_PLAIN_CODES)
@_cache_option
@click.pass_context
def cache_clear_command(ctx: click.Context, /, **kw: Any) -> None:
    """Delete every entry of the cache."""
    path = kw["cache_path"] or default_cache_path()
    if os.path.exists(path):
        with _usage_errors(), FingerprintCache(kw["cache_path"], warn=_warning) as cache:
            cache.clear()
    click.echo(f"simdup: cache {display_path(path)} is empty", err=True)
    ctx.exit(ExitCode.OK)


def _warning(message: str) -> None:
    click.echo(f"simdup: warning: {message}", err=True)


@cli.group("index", epilog=_PLAIN_CODES)
def index_group() -> None:
    """A named index: documents stored once, queried again and again.

    \b
    Examples:
      simdup index add docs/ --db corpus.simdup
      simdup query new.md --db corpus.simdup
      simdup scan incoming/ --against corpus.simdup --fail-on-duplicates
      simdup index stats --db corpus.simdup
    """


def _db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """--db of an index that must exist (``index add`` creates one: its own option)."""
    return click.option(
        "--db",
        required=True,
        type=click.Path(dir_okay=False, exists=True),
        metavar="DB",
        help="The index file (SQLite).",
    )(f)


@index_group.command("add", epilog=_PLAIN_CODES)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--db",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="DB",
    help="The index file (SQLite); created if missing.",
)
@click.option("--rebuild", is_flag=True, help="Delete the index first (e.g. when it is damaged).")
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching GLOB.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB.")
@click.option("--hidden", is_flag=True, help="Also hidden files and VCS folders.")
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links.")
@click.option("-j", "--jobs", type=click.IntRange(1, 512), default=None, help="Worker processes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no skip summary.")
@_feature_options
@click.pass_context
def index_add_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Fingerprint the files under PATHS and store them in the index DB, each under its path as
    given (a file already stored under that path is replaced). Created if missing."""
    _check_not_scanned("--db", kw["db"], list(paths))
    progress = _Progress(not kw["quiet"], "indexing")
    with _usage_errors():
        options = _scan_options(kw)
        try:
            with Index(kw["db"], rebuild=kw["rebuild"], params=options.features) as index:
                added = index.add_files(
                    paths, discovery=options.discovery, jobs=options.jobs, progress=progress
                )
                total = len(index)
        finally:
            progress.close()
    if not kw["quiet"]:
        click.echo(
            f"simdup: {added.added} documents added to {display_path(kw['db'])} "
            f"({total} in all), {len(added.skipped)} files skipped",
            err=True,
        )
        for skip in added.skipped[:20]:
            click.echo(f"  {display_path(skip.path)}: {skip.reason}", err=True)
    ctx.exit(ExitCode.OK)


@index_group.command("remove", epilog=_REMOVE_CODES)
@click.argument("keys", nargs=-1, required=True)
@_db_option
@click.pass_context
def index_remove_command(ctx: click.Context, /, keys: tuple[str, ...], **kw: Any) -> None:
    """Remove the documents stored under KEYS (their paths as added)."""
    with _usage_errors(), Index(kw["db"], create=False) as index:
        missing = [key for key in keys if not index.remove(key)]
    for key in missing:
        click.echo(f"simdup: {display_path(key)}: not in the index", err=True)
    ctx.exit(files_exit_code(len(missing)))


@index_group.command("stats", epilog=_PLAIN_CODES)
@_db_option
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def index_stats_command(ctx: click.Context, /, **kw: Any) -> None:
    """How many documents the index holds, its size and the parameters it was built with."""
    with _usage_errors(), Index(kw["db"], create=False) as index:
        stats = index.stats()
        with ReportTarget.resolve(None).open() as stream:
            render_index_stats(stats, kw["fmt"], stream)
    ctx.exit(ExitCode.OK)


@index_group.command("list", epilog=_PLAIN_CODES)
@_db_option
@click.pass_context
def index_list_command(ctx: click.Context, /, **kw: Any) -> None:
    """Every key of the index, one per line."""
    with (
        _usage_errors(),
        Index(kw["db"], create=False) as index,
        ReportTarget.resolve(None).open() as stream,
    ):
        stored = index.keys()  # a page at a time
        for key in stored:
            click.echo(display_path(key), file=stream)
    ctx.exit(ExitCode.OK)


@cli.command(
    "query",
    epilog=f"""\b
Examples:
  simdup query new.md --db corpus.simdup
  simdup query drafts/*.md --db corpus.simdup --format json | jq '.results[].matches'
  simdup query new.md --db corpus.simdup --fail-on-duplicates     exit 1 on a match

{_QUERY_CODES}""",
)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@_db_option
@click.option(
    "-k",
    "--threshold",
    type=click.IntRange(0, MAX_THRESHOLD),
    default=3,
    show_default=True,
    help="SimHash Hamming threshold (as for scan).",
)
@_verify_options
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--fail-on-duplicates", is_flag=True, help="Exit 1 when a file has a match.")
@_feature_options
@click.pass_context
def query_command(ctx: click.Context, /, files: tuple[str, ...], **kw: Any) -> None:
    """The stored documents of the index DB that are near-duplicates of each of FILES, under
    the scan's rules, nearest first (a file's own entry, stored under the same path, is not
    listed). A file that cannot be fingerprinted is reported and makes the exit status 3."""
    with _usage_errors():
        options = _scan_options(kw)
        target = ReportTarget.resolve(None)
        answers = []
        with Index(kw["db"], create=False, params=options.features) as index:
            for path in files:
                try:
                    # A file's own entry (stored under the same path) is not its duplicate.
                    found = [m for m in index.query_file(path, options) if m.key != path]
                    answers.append(QueryAnswer(path, tuple(found)))
                except InputError as exc:
                    answers.append(QueryAnswer(path, (), exc.reason))
        with target.open() as stream:
            if kw["fmt"] == "json":
                render_query_json(answers, kw["db"], stream)
            else:
                render_query_text(answers, kw["db"], stream)
    ctx.exit(
        query_exit_code(
            matched=sum(1 for a in answers if a.matches),
            failed=sum(1 for a in answers if a.error),
            fail_on_duplicates=kw["fail_on_duplicates"],
        )
    )


def _option_specs(command: click.Command) -> list[OptionSpec]:
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


def _scan_settings(ctx: click.Context, paths: Sequence[str], given: dict[str, Any]) -> Settings:
    """The scan settings for ``paths``: ``given`` values that ``ctx`` got from the command
    line, else the configuration file's, else ``given`` (the defaults)."""
    specs = _option_specs(scan_command)
    from_cli = [s.dest for s in specs if s.dest in given and _from_command_line(ctx, s.dest)]
    with _usage_errors():
        config = find_config(paths[0] if paths else os.curdir)
        return resolve_settings(specs, given, from_cli, config)


def _configured(ctx: click.Context, paths: Sequence[str], kw: dict[str, Any]) -> dict[str, Any]:
    """``kw`` of scan with the configuration file applied."""
    return {**kw, **_scan_settings(ctx, paths, kw).values()}


@cli.command("config", epilog=EXIT_CODE_HELP)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "config_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format of this listing.",
)
@click.pass_context
def config_command(ctx: click.Context, /, paths: tuple[str, ...], **kw: Any) -> None:
    """Show the settings simdup scan PATHS would use, and where each comes from.

    Settings come from the command line, else from [tool.simdup] in the nearest
    pyproject.toml or a .simdup.toml (searched upwards from the first PATH, up to the
    repository root), else the defaults. Accepts the options of scan (except -f/--format),
    so that their effect can be seen.

    \b
    Examples:
      simdup config docs
      simdup config docs -k 4 --format json
    """
    config_format = kw.pop("config_format")
    # The defaults of scan, with the options given to this command on top.
    defaults = scan_command.make_context("scan", [], parent=ctx).params
    settings = _scan_settings(ctx, paths, {**defaults, **kw})
    if config_format == "json":
        click.echo(json.dumps(settings.describe(), indent=2, ensure_ascii=False))
        return
    where = display_path(settings.file) if settings.file else "none found"
    click.echo(f"configuration file: {where}")
    rows = [
        (
            s.key,
            "-" if s.value is None else json.dumps(_plain_value(s.value), ensure_ascii=False),
            s.source if s.source in (COMMAND_LINE, DEFAULT) else display_path(s.source),
        )
        for s in settings.settings
    ]
    key_width = max(len(key) for key, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for key, value, source in rows:
        click.echo(f"{key.ljust(key_width)}  {value.ljust(value_width)}  ({source})")


def _plain_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


# config takes scan's options, but -f/--format there is the listing's own format.
config_command.params.extend(
    p for p in scan_command.params if isinstance(p, click.Option) and p.name != "fmt"
)


def run() -> None:
    """The command's entry point (console script, ``python -m simdup``): ``main``, then a quick
    exit.

    When the work is done the process exits without the interpreter's shutdown, which would
    free the segmenter's dictionary and every other object one by one (~30 ms on the benchmark
    set): output is flushed first, the worker pool is already stopped, and simdup registers no
    exit handlers. Library users and tests call ``main``, which exits normally.
    """
    try:
        main()
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:  # sys.exit("message"): print it, as the interpreter would, but never exit 1
            print(exc.code, file=sys.stderr)
            code = ExitCode.ERROR
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        pass  # a closed pipe: the exit status is what matters now
    except (OSError, ValueError) as exc:
        print(f"simdup: cannot write output: {exc}", file=sys.stderr)
        if code in (ExitCode.OK, ExitCode.DUPLICATES_FOUND, ExitCode.FILES_SKIPPED):
            code = ExitCode.ERROR
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(code)


_STOP_SIGNALS = ("SIGTERM", "SIGHUP")


def _catch_stop_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP raise ``Stopped`` (so a run cleans up as for Ctrl-C), unless they are
    ignored (``nohup``) or handled already. Returns the handlers to restore."""
    previous: dict[int, Any] = {}
    for name in _STOP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        with contextlib.suppress(ValueError, OSError):  # not the main thread: leave them be
            if signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, _raise_stopped)
    return previous


def main() -> None:
    """``simdup`` with the process's standard streams and signals looked after."""
    stderr = sys.stderr
    guard_standard_streams()
    previous = _catch_stop_signals()
    try:
        cli(prog_name="simdup")
    except BrokenPipeError:
        # Reader went away (e.g. `| head`) outside a scan's report: not an error.
        _silence_stdout()
        sys.exit(ExitCode.OK)
    except KeyboardInterrupt as exc:
        message, code = _stop_message(exc)
        click.echo(f"simdup: {message}", err=True)
        sys.exit(code)
    finally:
        for signum, handler in previous.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, handler)
        if stderr is not None:
            sys.stderr.flush()
            sys.stderr = stderr
