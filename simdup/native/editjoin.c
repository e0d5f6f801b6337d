/*
 * simdup/native/editjoin.c: the candidate step of the edit-similarity join of short texts.
 *
 * edit_prefixes, edit_windows, edit_histograms and edit_window_pairs; their pure-Python twins
 * are prefixes_python, windows_python, character_histograms_python and window_pairs_python in
 * simdup/algorithms/edit_join.py (the module docstring there argues
 * why the join is exact). Both run on every core, the GIL released ("threads" below), with the
 * result of one thread.
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function.
 */
#include "common.h"

#define HISTOGRAM_BINS 32 /* simdup.algorithms.edit_join.HISTOGRAM_BINS */
#define GRAM_ID_BITS 22   /* simdup.algorithms.edit_join._GRAM_ID_BITS */
#define GRAM_ID_MASK ((UINT64_C(1) << GRAM_ID_BITS) - 1)
#define GRAM_BASE UINT64_C(0x9E3779B97F4A7C15) /* simdup.algorithms.minhash._GOLDEN */
#define MAX_SPAN (1 << 10) /* a key (q-gram id, position) then fits in 32 bits */

/* ------------------------------------------------------------------ threads */

/* Both steps run on every core the process may use (up to MAX_THREADS), the GIL released:
   each thread takes a contiguous run of the work (texts, pivots, sorted rows) and its results
   are put together in the order of the runs, so the answer is the same on any number of
   threads, and the same as the Python twins'. Small inputs stay on one thread (starting one
   costs ~50 us). Where there are no POSIX threads, everything runs on the calling thread. */
#if defined(__unix__) || defined(__APPLE__)
#define EDITJOIN_THREADS 1
#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif
#else
#define EDITJOIN_THREADS 0
#endif

#define MAX_THREADS 16
#define WORK_PER_THREAD (1 << 15) /* q-grams, prefix entries or candidate slots */

/* How many threads for `work` units: the cores this process may run on, at most one per
   WORK_PER_THREAD units, at least one. */
static int threads_for(Py_ssize_t work)
{
#if EDITJOIN_THREADS
    long cores = 1;
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        cores = CPU_COUNT(&set);
    else
#endif
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1)
        cores = 1;
    const Py_ssize_t most = work / WORK_PER_THREAD;
    if (cores > most)
        cores = (long)most;
    if (cores > MAX_THREADS)
        cores = MAX_THREADS;
    return cores < 1 ? 1 : (int)cores;
#else
    (void)work;
    return 1;
#endif
}

typedef void (*part_fn)(void *context, int part);

typedef struct {
    part_fn fn;
    void *context;
    int part;
} PartCall;

#if EDITJOIN_THREADS
static void *run_part(void *arg)
{
    PartCall *call = arg;
    call->fn(call->context, call->part);
    return NULL;
}
#endif

/* fn(context, part) for each part 0..parts-1, part 0 on the calling thread, the others on
   threads of their own (on the calling thread too when one cannot be started); returns when
   every part is done. Called with the GIL released: fn touches no Python object. */
static void run_parts(part_fn fn, void *context, int parts)
{
#if EDITJOIN_THREADS
    pthread_t ids[MAX_THREADS];
    PartCall calls[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int k = 1; k < parts; k++) {
        calls[k] = (PartCall){fn, context, k};
        started[k] = pthread_create(&ids[k], NULL, run_part, &calls[k]) == 0;
    }
    fn(context, 0);
    for (int k = 1; k < parts; k++) {
        if (started[k])
            pthread_join(ids[k], NULL);
        else
            fn(context, k);
    }
#else
    for (int k = 0; k < parts; k++)
        fn(context, k);
#endif
}

/* Where part k of `parts` equal runs of [0, n) begins. */
static inline Py_ssize_t part_start(Py_ssize_t n, int parts, int k)
{
    return (Py_ssize_t)((double)n * k / parts);
}

/* ------------------------------------------------------------------ edit_prefixes */

PyDoc_STRVAR(edit_prefixes_doc,
"edit_prefixes(texts, edits, q, span, count_bits[, ids]) -> (prefix, pivots, last)\n\n"
"simdup.algorithms.edit_join.prefixes_python(texts, edits, q, span, count_bits) as int64\n"
"bytes: the prefix entries and the pivots as (doc, key) rows, both sorted by key (stably),\n"
"and the last rank per text. span at most 1024. With ids true, the rows hold the q-gram ids\n"
"(key // span) in place of keys: what the block-move join reads, which has no positions.");

/* A growing array of key << 32 | doc (a key fits in 32 bits: MAX_SPAN; a doc too). */
typedef struct {
    uint64_t *v;
    Py_ssize_t size, capacity;
} Packed;

static inline int packed_push(Packed *a, uint64_t x)
{
    if (a->size == a->capacity) {
        Py_ssize_t grown = a->capacity ? 2 * a->capacity : 4096;
        uint64_t *nv = PyMem_RawRealloc(a->v, (size_t)grown * sizeof(uint64_t));
        if (nv == NULL)
            return -1;
        a->v = nv;
        a->capacity = grown;
    }
    a->v[a->size++] = x;
    return 0;
}

/* The value of rank k (0-based) of v[0..n) in ascending order (v is reordered). */
static uint64_t select_rank(uint64_t *v, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const uint64_t pivot = v[lo + (hi - lo) / 2];
        Py_ssize_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                const uint64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* What the threads of edit_prefixes share. Texts are read through `data`, `kinds` and
   `lengths`, taken with the GIL held from a tuple that keeps them alive. */
typedef struct {
    Py_ssize_t n;
    const void **data;
    const int *kinds;
    const Py_ssize_t *lengths;
    const Py_ssize_t *first_gram; /* where each text's q-grams begin in gids (n + 1) */
    const int64_t *edits;
    long q;
    int64_t span, offset;
    uint64_t cap;
    int parts;
    uint32_t *gids, *occurs;
    uint32_t *counts[MAX_THREADS]; /* per part; counts[0] becomes occurs */
    int64_t *last;
    Packed prefix[MAX_THREADS], pivots[MAX_THREADS];
    Py_ssize_t longest;
    int failed;
} PrefixWork;

/* Texts of part k: balanced by q-grams. */
static void text_range(const PrefixWork *w, int k, Py_ssize_t *from, Py_ssize_t *to)
{
    const Py_ssize_t total = w->first_gram[w->n];
    const Py_ssize_t lo = part_start(total, w->parts, k), hi = part_start(total, w->parts, k + 1);
    /* The first text whose q-grams begin at or after lo (and hi). */
    Py_ssize_t a = 0, b = w->n;
    while (a < b) {
        const Py_ssize_t m = a + (b - a) / 2;
        if (w->first_gram[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    *from = k == 0 ? 0 : a;
    a = 0, b = w->n;
    while (a < b) {
        const Py_ssize_t m = a + (b - a) / 2;
        if (w->first_gram[m] < hi)
            a = m + 1;
        else
            b = m;
    }
    *to = k == w->parts - 1 ? w->n : a;
}

/* Each q-gram's id: the polynomial hash of its q codes (marks, code 0, before and after the
   text), mixed, its top GRAM_ID_BITS bits; and how often each id occurs in this part's texts
   (a table per part, summed after: shared counts would need atomic increments, which keep a
   core from waiting on several cache misses at once). */
static void hash_grams(void *context, int part)
{
    PrefixWork *w = context;
    Py_ssize_t from, to;
    text_range(w, part, &from, &to);
    const long q = w->q;
    uint32_t *occurs = w->counts[part];
    /* A text's codes with q - 1 marks before and after. */
    uint64_t *codes = PyMem_RawMalloc((size_t)(w->longest + q) * sizeof(uint64_t));
    if (codes == NULL) {
        __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (Py_ssize_t t = from; t < to; t++) {
        const int kind = w->kinds[t];
        const void *data = w->data[t];
        const Py_ssize_t length = w->lengths[t], count = length + q - 1;
        for (long o = 0; o < q - 1; o++)
            codes[o] = codes[q - 1 + length + o] = 0;
        for (Py_ssize_t c = 0; c < length; c++)
            codes[q - 1 + c] = PyUnicode_READ(kind, data, c);
        uint32_t *out = w->gids + w->first_gram[t];
        for (Py_ssize_t p = 0; p < count; p++) {
            uint64_t h = 0;
            for (long o = 0; o < q; o++)
                h = h * GRAM_BASE + codes[p + o];
            out[p] = (uint32_t)(mh_mix(h) >> (64 - GRAM_ID_BITS));
        }
        for (Py_ssize_t p = 0; p < count; p++)
            occurs[out[p]]++;
    }
    PyMem_RawFree(codes);
}

/* counts[0] += counts[k] for every other part, over this part's run of ids. */
static void sum_counts(void *context, int part)
{
    PrefixWork *w = context;
    const Py_ssize_t ids = (Py_ssize_t)1 << GRAM_ID_BITS;
    const Py_ssize_t lo = part_start(ids, w->parts, part), hi = part_start(ids, w->parts, part + 1);
    uint32_t *sum = w->counts[0];
    for (int k = 1; k < w->parts; k++) {
        const uint32_t *add = w->counts[k];
        for (Py_ssize_t g = lo; g < hi; g++)
            sum[g] += add[g];
    }
}

/* Each text's last rank, prefix entries and pivots (into this part's arrays, texts in order):
   the prefix is every q-gram up to the rank of its (q * k + 1)-th in the global order, the
   pivots the leftmost of them at least q apart, k + 1 of them. */
static void choose_prefixes(void *context, int part)
{
    PrefixWork *w = context;
    Py_ssize_t from, to;
    text_range(w, part, &from, &to);
    const long q = w->q;
    uint64_t *ranks = PyMem_RawMalloc((size_t)(w->longest ? w->longest : 1) * sizeof(uint64_t));
    uint64_t *scratch = PyMem_RawMalloc((size_t)(w->longest ? w->longest : 1) * sizeof(uint64_t));
    Packed *prefix = &w->prefix[part], *pivots = &w->pivots[part];
    if (ranks == NULL || scratch == NULL)
        goto failed;
    for (Py_ssize_t t = from; t < to; t++) {
        const Py_ssize_t count = w->lengths[t] + q - 1;
        const uint32_t *gids = w->gids + w->first_gram[t];
        /* The next text's counts are asked for while this one is chosen: read at random
           from a table larger than the caches, they would keep the loop waiting. */
        if (t + 1 < to)
            for (Py_ssize_t g = w->first_gram[t + 1]; g < w->first_gram[t + 2]; g++)
                PREFETCH(&w->occurs[w->gids[g]]);
        for (Py_ssize_t p = 0; p < count; p++) {
            const uint32_t gid = gids[p];
            const uint64_t seen = w->occurs[gid] < w->cap ? w->occurs[gid] : w->cap;
            ranks[p] = (seen << GRAM_ID_BITS) | gid;
            scratch[p] = ranks[p];
        }
        const uint64_t bound = select_rank(scratch, count, (Py_ssize_t)(q * w->edits[t]));
        w->last[t] = (int64_t)bound;
        int64_t taken = 0, previous = 0;
        for (Py_ssize_t p = 0; p < count; p++) {
            if (ranks[p] > bound)
                continue;
            const int64_t key = (int64_t)(ranks[p] & GRAM_ID_MASK) * w->span + p + w->offset;
            const uint64_t packed = ((uint64_t)key << 32) | (uint64_t)t;
            if (packed_push(prefix, packed) < 0)
                goto failed;
            if (taken <= w->edits[t] && (taken == 0 || p >= previous + q)) {
                if (packed_push(pivots, packed) < 0)
                    goto failed;
                taken++;
                previous = p;
            }
        }
    }
    PyMem_RawFree(ranks);
    PyMem_RawFree(scratch);
    return;
failed:
    PyMem_RawFree(ranks);
    PyMem_RawFree(scratch);
    __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
}

/* A stable LSD radix sort of packed rows by their key (the top 32 bits), 11 bits a pass, on
   `parts` threads: each counts its run, the runs' places in each bucket follow one another
   in run order, and each moves its run, so the order is the one a single thread gives. The
   first pass reads the rows from the runs as the threads made them (`segments`). */
enum { DIGIT = 11, BUCKETS = 1 << 11 };

typedef struct {
    const uint64_t *segment[MAX_THREADS];
    Py_ssize_t segment_size[MAX_THREADS];
    uint64_t *dst;
    int shift, parts;
    Py_ssize_t (*count)[BUCKETS]; /* parts rows */
} RadixPass;

static void radix_count(void *context, int part)
{
    RadixPass *r = context;
    Py_ssize_t *count = r->count[part];
    memset(count, 0, BUCKETS * sizeof(Py_ssize_t));
    const uint64_t *src = r->segment[part];
    for (Py_ssize_t i = 0; i < r->segment_size[part]; i++)
        count[(src[i] >> r->shift) & (BUCKETS - 1)]++;
}

static void radix_move(void *context, int part)
{
    RadixPass *r = context;
    Py_ssize_t *place = r->count[part];
    const uint64_t *src = r->segment[part];
    uint64_t *dst = r->dst;
    for (Py_ssize_t i = 0; i < r->segment_size[part]; i++)
        dst[place[(src[i] >> r->shift) & (BUCKETS - 1)]++] = src[i];
}

/* The rows of `runs` (in order) sorted by key into a new array (NULL when out of memory). */
static uint64_t *sort_runs(const Packed *runs, int run_count, Py_ssize_t total, int parts)
{
    uint64_t *a = PyMem_RawMalloc((size_t)(total ? total : 1) * sizeof(uint64_t));
    uint64_t *b = PyMem_RawMalloc((size_t)(total ? total : 1) * sizeof(uint64_t));
    Py_ssize_t(*count)[BUCKETS] = PyMem_RawMalloc((size_t)MAX_THREADS * sizeof(*count));
    if (a == NULL || b == NULL || count == NULL) {
        PyMem_RawFree(a);
        PyMem_RawFree(b);
        PyMem_RawFree(count);
        return NULL;
    }
    RadixPass r;
    r.count = count;
    const uint64_t *src = NULL;
    uint64_t *dst = a, *spare = b;
    for (int shift = 32; shift < 64; shift += DIGIT) {
        if (src == NULL) { /* the first pass: the runs as made */
            r.parts = run_count;
            for (int k = 0; k < run_count; k++) {
                r.segment[k] = runs[k].v;
                r.segment_size[k] = runs[k].size;
            }
        } else {
            r.parts = parts;
            for (int k = 0; k < parts; k++) {
                const Py_ssize_t lo = part_start(total, parts, k);
                r.segment[k] = src + lo;
                r.segment_size[k] = part_start(total, parts, k + 1) - lo;
            }
        }
        r.shift = shift;
        r.dst = dst;
        run_parts(radix_count, &r, r.parts);
        Py_ssize_t at = 0;
        for (int c = 0; c < BUCKETS; c++)
            for (int k = 0; k < r.parts; k++) {
                const Py_ssize_t here = count[k][c];
                count[k][c] = at;
                at += here;
            }
        run_parts(radix_move, &r, r.parts);
        src = dst;
        dst = spare;
        spare = (uint64_t *)src;
    }
    /* src holds the sorted rows; dst is the other array. */
    PyMem_RawFree(dst);
    PyMem_RawFree(count);
    return (uint64_t *)src;
}

/* The output tables, filled by parts of their rows. */
typedef struct {
    const uint64_t *prefix, *pivots;
    Py_ssize_t n_prefix, n_pivots;
    int64_t *prefix_rows, *pivot_rows;
    int parts;
    /* Keys divided by span (the q-gram ids) when given. */
    int ids;
    int64_t span;
} PrefixOutput;

static void fill_rows(void *context, int part)
{
    PrefixOutput *o = context;
    const Py_ssize_t lo = part_start(o->n_prefix, o->parts, part);
    const Py_ssize_t hi = part_start(o->n_prefix, o->parts, part + 1);
    for (Py_ssize_t i = lo; i < hi; i++) {
        int64_t *row = o->prefix_rows + 2 * i; /* doc, key */
        const int64_t key = (int64_t)(o->prefix[i] >> 32);
        row[0] = (int64_t)(o->prefix[i] & UINT32_MAX);
        row[1] = o->ids ? key / o->span : key;
    }
    const Py_ssize_t plo = part_start(o->n_pivots, o->parts, part);
    const Py_ssize_t phi = part_start(o->n_pivots, o->parts, part + 1);
    for (Py_ssize_t i = plo; i < phi; i++) {
        const int64_t key = (int64_t)(o->pivots[i] >> 32);
        o->pivot_rows[2 * i] = (int64_t)(o->pivots[i] & UINT32_MAX);
        o->pivot_rows[2 * i + 1] = o->ids ? key / o->span : key;
    }
}

static PyObject *edit_prefixes(PyObject *Py_UNUSED(module), PyObject *const *args,
                               Py_ssize_t nargs)
{
    if (nargs != 5 && nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "edit_prefixes() takes 5 or 6 arguments");
        return NULL;
    }
    if (!PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "edit_prefixes() needs a list of texts");
        return NULL;
    }
    const long q = PyLong_AsLong(args[2]);
    const long long span = PyLong_AsLongLong(args[3]);
    const long count_bits = PyLong_AsLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (q < 1 || q > 16 || count_bits < 0 || count_bits > 24 || span < 1 || span > MAX_SPAN ||
        PyList_GET_SIZE(args[0]) > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "edit_prefixes() needs 1 <= q <= 16, "
                                          "0 <= count_bits <= 24, 1 <= span <= 1024");
        return NULL;
    }
    /* A tuple of the texts: they stay alive while the GIL is released, whatever happens to
       the list. */
    PyObject *texts = PySequence_Tuple(args[0]);
    if (texts == NULL)
        return NULL;
    Py_buffer eb;
    if (PyObject_GetBuffer(args[1], &eb, PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(texts);
        return NULL;
    }
    /* Rows of q-gram ids (the block-move join's), when asked. */
    const int ids = nargs == 6 ? PyObject_IsTrue(args[5]) : 0;
    if (ids < 0) {
        PyBuffer_Release(&eb);
        Py_DECREF(texts);
        return NULL;
    }
    PyObject *result = NULL;
    PrefixWork w;
    memset(&w, 0, sizeof(w));
    uint64_t *sorted_prefix = NULL, *sorted_pivots = NULL;
    const void **data = NULL;
    int *kinds = NULL;
    Py_ssize_t *lengths = NULL, *first_gram = NULL;
    const Py_ssize_t n = PyTuple_GET_SIZE(texts);
    const int64_t *edits = eb.buf;
    if (eb.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "edit_prefixes() needs one int64 of edits per text");
        goto done;
    }
    data = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*data));
    kinds = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*kinds));
    lengths = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*lengths));
    first_gram = PyMem_Malloc((size_t)(n + 1) * sizeof(*first_gram));
    if (data == NULL || kinds == NULL || lengths == NULL || first_gram == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* Every text a str, and long enough for its prefix: q * k + 1 of its n + q - 1 q-grams. */
    Py_ssize_t total = 0, longest = 0;
    int64_t most = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *text = PyTuple_GET_ITEM(texts, t);
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "edit_prefixes() needs a list of str");
            goto done;
        }
        const Py_ssize_t count = PyUnicode_GET_LENGTH(text) + q - 1;
        if (edits[t] < 0 || q * edits[t] >= count) {
            PyErr_SetString(PyExc_ValueError, "edit_prefixes(): a text too short for its edits");
            goto done;
        }
        data[t] = PyUnicode_DATA(text);
        kinds[t] = PyUnicode_KIND(text);
        lengths[t] = PyUnicode_GET_LENGTH(text);
        first_gram[t] = total;
        total += count;
        longest = count > longest ? count : longest;
        most = edits[t] > most ? edits[t] : most;
    }
    first_gram[n] = total;
    if (longest + 2 * most + 1 >= span) {
        PyErr_SetString(PyExc_ValueError, "edit_prefixes(): span too small for the texts");
        goto done;
    }
    w.n = n;
    w.data = data;
    w.kinds = kinds;
    w.lengths = lengths;
    w.first_gram = first_gram;
    w.edits = edits;
    w.q = q;
    w.span = span;
    w.offset = most + 1;
    w.cap = ((uint64_t)1 << count_bits) - 1;
    w.longest = longest;
    w.parts = threads_for(total);
    w.gids = PyMem_RawMalloc((size_t)(total ? total : 1) * sizeof(uint32_t));
    w.last = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (w.gids == NULL || w.last == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < w.parts; k++) {
        w.counts[k] = PyMem_RawCalloc((size_t)1 << GRAM_ID_BITS, sizeof(uint32_t));
        if (w.counts[k] == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    Py_ssize_t n_prefix = 0, n_pivots = 0;
    Py_BEGIN_ALLOW_THREADS
    run_parts(hash_grams, &w, w.parts);
    if (!w.failed) {
        run_parts(sum_counts, &w, w.parts);
        w.occurs = w.counts[0];
        run_parts(choose_prefixes, &w, w.parts);
    }
    PyMem_RawFree(w.gids);
    w.gids = NULL;
    for (int k = 0; k < w.parts; k++) {
        PyMem_RawFree(w.counts[k]);
        w.counts[k] = NULL;
    }
    w.occurs = NULL;
    if (!w.failed) {
        for (int k = 0; k < w.parts; k++) {
            n_prefix += w.prefix[k].size;
            n_pivots += w.pivots[k].size;
        }
        sorted_prefix = sort_runs(w.prefix, w.parts, n_prefix, threads_for(n_prefix));
        for (int k = 0; k < w.parts; k++) {
            PyMem_RawFree(w.prefix[k].v);
            w.prefix[k].v = NULL;
        }
        sorted_pivots = sort_runs(w.pivots, w.parts, n_pivots, threads_for(n_pivots));
        for (int k = 0; k < w.parts; k++) {
            PyMem_RawFree(w.pivots[k].v);
            w.pivots[k].v = NULL;
        }
    }
    Py_END_ALLOW_THREADS
    if (w.failed || sorted_prefix == NULL || sorted_pivots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const Py_ssize_t word = (Py_ssize_t)sizeof(int64_t);
        PyObject *a = PyBytes_FromStringAndSize(NULL, 2 * n_prefix * word);
        PyObject *b = PyBytes_FromStringAndSize(NULL, 2 * n_pivots * word);
        PyObject *c = PyBytes_FromStringAndSize((const char *)w.last, n * word);
        if (a != NULL && b != NULL && c != NULL) {
            PrefixOutput o = {sorted_prefix, sorted_pivots, n_prefix, n_pivots,
                              (int64_t *)PyBytes_AS_STRING(a), (int64_t *)PyBytes_AS_STRING(b),
                              threads_for(n_prefix), ids, span};
            Py_BEGIN_ALLOW_THREADS
            run_parts(fill_rows, &o, o.parts);
            Py_END_ALLOW_THREADS
            result = PyTuple_Pack(3, a, b, c);
        }
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(c);
    }
done:
    PyMem_RawFree(w.gids);
    PyMem_RawFree(w.last);
    for (int k = 0; k < MAX_THREADS; k++) {
        PyMem_RawFree(w.counts[k]);
        PyMem_RawFree(w.prefix[k].v);
        PyMem_RawFree(w.pivots[k].v);
    }
    PyMem_RawFree(sorted_prefix);
    PyMem_RawFree(sorted_pivots);
    PyMem_Free(data);
    PyMem_Free(kinds);
    PyMem_Free(lengths);
    PyMem_Free(first_gram);
    PyBuffer_Release(&eb);
    Py_DECREF(texts);
    return result;
}

/* ------------------------------------------------------------------ edit_histograms */

PyDoc_STRVAR(edit_histograms_doc,
"edit_histograms(joined, lengths) -> bytes\n\n"
"simdup.algorithms.edit_join.character_histograms_python(joined, lengths) as native-order\n"
"uint16 bytes: the characters of each text (joined: the texts end to end, lengths: int64,\n"
"theirs) counted by code modulo 32, 32 counts a text.");

static PyObject *edit_histograms(PyObject *Py_UNUSED(module), PyObject *const *args,
                                 Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "edit_histograms() takes 2 arguments");
        return NULL;
    }
    PyObject *joined = args[0];
    if (check_text(joined, "edit_histograms") < 0)
        return NULL;
    Py_buffer lb;
    if (PyObject_GetBuffer(args[1], &lb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *result = NULL;
    const int64_t *lengths = lb.buf;
    const Py_ssize_t n = lb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t size = PyUnicode_GET_LENGTH(joined);
    Py_ssize_t total = 0;
    int fits = lb.len % (Py_ssize_t)sizeof(int64_t) == 0;
    for (Py_ssize_t t = 0; fits && t < n; t++) {
        fits = lengths[t] >= 0 && lengths[t] <= size - total;
        total += fits ? lengths[t] : 0;
    }
    if (!fits || total != size) {
        PyErr_SetString(PyExc_ValueError,
                        "edit_histograms() needs int64 lengths that add up to the text's");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, n * HISTOGRAM_BINS * (Py_ssize_t)sizeof(uint16_t));
    if (result == NULL)
        goto done;
    uint16_t *out = (uint16_t *)PyBytes_AS_STRING(result);
    memset(out, 0, (size_t)n * HISTOGRAM_BINS * sizeof(uint16_t));
    const int kind = PyUnicode_KIND(joined);
    const void *data = PyUnicode_DATA(joined);
    Py_ssize_t at = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        uint16_t *counts = out + HISTOGRAM_BINS * t;
        for (const Py_ssize_t end = at + lengths[t]; at < end; at++)
            counts[PyUnicode_READ(kind, data, at) % HISTOGRAM_BINS]++;
    }
done:
    PyBuffer_Release(&lb);
    return result;
}

/* ------------------------------------------------------------------ edit_windows */

PyDoc_STRVAR(edit_windows_doc,
"edit_windows(pivots, prefix, edits) -> bytes\n\n"
"simdup.algorithms.edit_join.windows_python(pivots, prefix, edits) as int64 bytes: each\n"
"pivot (doc, key) of edit_prefixes with the window [low, high) of the prefix rows (doc, key;\n"
"sorted by key) whose keys are within its text's most edits of its own, as (doc, key, low,\n"
"high).");

/* The first row at or after `from` of the m prefix rows whose key is >= x (keys ascending):
   galloping from `from`, then a binary search, so a search that ends near where it starts
   costs a few reads. */
static inline Py_ssize_t first_at_least(const int64_t *prefix, Py_ssize_t m, Py_ssize_t from,
                                        int64_t x)
{
    Py_ssize_t lo = from, step = 1, hi = from;
    while (hi < m && prefix[2 * hi + 1] < x) {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    if (hi > m)
        hi = m;
    while (lo < hi) {
        const Py_ssize_t mid = lo + (hi - lo) / 2;
        if (prefix[2 * mid + 1] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct {
    const int64_t *pivots, *prefix, *edits;
    Py_ssize_t n_pivots, n_prefix;
    int64_t most;
    int64_t *out;
    int parts;
} WindowsWork;

static void windows_part(void *context, int part)
{
    WindowsWork *w = context;
    const Py_ssize_t from = part_start(w->n_pivots, w->parts, part);
    const Py_ssize_t to = part_start(w->n_pivots, w->parts, part + 1);
    Py_ssize_t base = 0; /* the first row with key >= the pivot's key - most: it only moves on */
    for (Py_ssize_t p = from; p < to; p++) {
        const int64_t doc = w->pivots[2 * p], key = w->pivots[2 * p + 1];
        const int64_t reach = w->edits[doc];
        base = first_at_least(w->prefix, w->n_prefix, base, key - w->most);
        const Py_ssize_t low = first_at_least(w->prefix, w->n_prefix, base, key - reach);
        const Py_ssize_t high = first_at_least(w->prefix, w->n_prefix, low, key + reach + 1);
        int64_t *row = w->out + 4 * p;
        row[0] = doc;
        row[1] = key;
        row[2] = low;
        row[3] = high;
    }
}

static PyObject *edit_windows(PyObject *Py_UNUSED(module), PyObject *const *args,
                              Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "edit_windows() takes 3 arguments");
        return NULL;
    }
    Py_buffer vb, pb, eb;
    if (three_buffers(args, &vb, &pb, &eb) < 0)
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t word = (Py_ssize_t)sizeof(int64_t);
    if (vb.len % (2 * word) || pb.len % (2 * word) || eb.len % word) {
        PyErr_SetString(PyExc_ValueError, "edit_windows() needs int64 pivots (n x 2), prefix "
                                          "(m x 2) and edits (one a text)");
        goto done;
    }
    WindowsWork w = {vb.buf, pb.buf, eb.buf, vb.len / (2 * word), pb.len / (2 * word), 0, NULL,
                     1};
    const Py_ssize_t n_docs = eb.len / word;
    for (Py_ssize_t p = 0; p < w.n_pivots; p++) {
        const int64_t doc = w.pivots[2 * p];
        if (doc < 0 || doc >= n_docs || w.edits[doc] < 0) {
            PyErr_SetString(PyExc_ValueError, "edit_windows() was given a text out of range");
            goto done;
        }
        w.most = w.edits[doc] > w.most ? w.edits[doc] : w.most;
    }
    result = PyBytes_FromStringAndSize(NULL, 4 * w.n_pivots * word);
    if (result == NULL)
        goto done;
    w.out = (int64_t *)PyBytes_AS_STRING(result);
    w.parts = threads_for(16 * w.n_pivots);
    Py_BEGIN_ALLOW_THREADS
    run_parts(windows_part, &w, w.parts);
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&eb);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&vb);
    return result;
}

/* ------------------------------------------------------------------ edit_window_pairs */

PyDoc_STRVAR(edit_window_pairs_doc,
"edit_window_pairs(pivots, prefix, docs, histograms, by_length, first, stop) -> (i, j)\n\n"
"simdup.algorithms.edit_join.window_pairs_python for pivots first to stop of the tables of a\n"
"Signatures (int64: pivots n x 4, prefix m x 2, docs t x 2, by_length l x 2; histograms\n"
"uint16, 32 per text): the candidate pairs i < j as int64 bytes, in the same order.");

typedef struct {
    int64_t *i, *j;
    Py_ssize_t size, capacity;
} Pairs;

static int pairs_push(Pairs *p, int64_t a, int64_t b)
{
    if (p->size == p->capacity) {
        Py_ssize_t grown = p->capacity ? 2 * p->capacity : 1024;
        int64_t *ni = PyMem_RawRealloc(p->i, (size_t)grown * sizeof(int64_t));
        if (ni == NULL)
            return -1;
        p->i = ni;
        int64_t *nj = PyMem_RawRealloc(p->j, (size_t)grown * sizeof(int64_t));
        if (nj == NULL)
            return -1;
        p->j = nj;
        p->capacity = grown;
    }
    p->i[p->size] = a < b ? a : b;
    p->j[p->size] = a < b ? b : a;
    p->size++;
    return 0;
}

/* The L1 distance of two texts' character histograms. */
static inline int64_t histogram_distance(const uint16_t *a, const uint16_t *b)
{
    int64_t sum = 0;
    for (int k = 0; k < HISTOGRAM_BINS; k++)
        sum += a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
    return sum;
}

/* Every index the tables hold is in range: the loop below then reads no memory it was not
   given (a wrong table is a ValueError, never a crash). */
static int tables_fit(const int64_t *pivots, Py_ssize_t n_pivots, const int64_t *prefix,
                      Py_ssize_t n_prefix, const int64_t *docs, Py_ssize_t n_docs,
                      Py_ssize_t n_lengths, Py_ssize_t first, Py_ssize_t stop)
{
    if (first < 0 || stop < first || stop > n_pivots)
        return 0;
    for (Py_ssize_t p = first; p < stop; p++) {
        const int64_t *v = pivots + 4 * p;
        if (v[0] < 0 || v[0] >= n_docs || v[2] < 0 || v[3] < v[2] || v[3] > n_prefix)
            return 0;
    }
    for (Py_ssize_t e = 0; e < n_prefix; e++) {
        const int64_t doc = prefix[2 * e];
        if (doc < 0 || doc >= n_docs)
            return 0;
    }
    for (Py_ssize_t d = 0; d < n_docs; d++)
        if (docs[2 * d + 1] < 0 || docs[2 * d + 1] >= n_lengths)
            return 0;
    return 1;
}

/* What the threads of edit_window_pairs share: each takes the pivots bounds[k] to
   bounds[k + 1] and keeps its pairs in out[k] (put together in that order). */
typedef struct {
    const int64_t *pivots, *prefix, *docs, *by_length;
    const uint16_t *histograms;
    Py_ssize_t bounds[MAX_THREADS + 1];
    Pairs out[MAX_THREADS];
    int parts;
    int failed;
} WindowWork;

static void window_part(void *context, int part)
{
    WindowWork *w = context;
    const int64_t *pivots = w->pivots, *prefix = w->prefix, *docs = w->docs;
    const int64_t *by_length = w->by_length;
    const uint16_t *histograms = w->histograms;
    Pairs *out = &w->out[part];
    for (Py_ssize_t p = w->bounds[part]; p < w->bounds[part + 1]; p++) {
        const int64_t s = pivots[4 * p], key = pivots[4 * p + 1];
        const int64_t last_s = docs[2 * s], length_s = docs[2 * s + 1];
        for (int64_t e = pivots[4 * p + 2]; e < pivots[4 * p + 3]; e++) {
            const int64_t *entry = prefix + 2 * e; /* doc, key */
            const int64_t r = entry[0];
            /* The text's last rank and length from its own row: the prefix holds ~115 rows a
               text at 0.9, and a copy of both in each doubled the table. */
            if (r == s || docs[2 * r] < last_s)
                continue;
            const int64_t length_r = docs[2 * r + 1];
            const int64_t longer = length_s > length_r ? length_s : length_r;
            const int64_t shorter = length_s > length_r ? length_r : length_s;
            const int64_t edits = by_length[2 * longer];
            if (shorter < by_length[2 * longer + 1])
                continue;
            const int64_t shift = entry[1] - key;
            if (shift > edits || -shift > edits)
                continue;
            const int64_t bag = histogram_distance(histograms + HISTOGRAM_BINS * s,
                                                   histograms + HISTOGRAM_BINS * r);
            if (bag + (longer - shorter) > 2 * edits)
                continue;
            if (pairs_push(out, s, r) < 0) {
                __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
                return;
            }
        }
    }
}

static PyObject *edit_window_pairs(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "edit_window_pairs() takes 7 arguments");
        return NULL;
    }
    const Py_ssize_t first = PyLong_AsSsize_t(args[5]);
    if (first == -1 && PyErr_Occurred())
        return NULL;
    const Py_ssize_t stop = PyLong_AsSsize_t(args[6]);
    if (stop == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer vb, pb, db, hb, lb;
    if (three_buffers(args, &vb, &pb, &db) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &hb, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&db);
        PyBuffer_Release(&pb);
        PyBuffer_Release(&vb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &lb, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&hb);
        PyBuffer_Release(&db);
        PyBuffer_Release(&pb);
        PyBuffer_Release(&vb);
        return NULL;
    }
    PyObject *result = NULL;
    WindowWork w;
    memset(&w, 0, sizeof(w));
    const Py_ssize_t word = (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t bins = HISTOGRAM_BINS * (Py_ssize_t)sizeof(uint16_t);
    if (vb.len % (4 * word) || pb.len % (2 * word) || db.len % (2 * word) ||
        lb.len % (2 * word) || hb.len != db.len / (2 * word) * bins) {
        PyErr_SetString(PyExc_ValueError, "edit_window_pairs() needs the tables of Signatures");
        goto done;
    }
    const int64_t *pivots = vb.buf, *prefix = pb.buf, *docs = db.buf, *by_length = lb.buf;
    const uint16_t *histograms = hb.buf;
    const Py_ssize_t n_pivots = vb.len / (4 * word), n_prefix = pb.len / (2 * word);
    const Py_ssize_t n_docs = db.len / (2 * word), n_lengths = lb.len / (2 * word);
    if (!tables_fit(pivots, n_pivots, prefix, n_prefix, docs, n_docs, n_lengths, first, stop)) {
        PyErr_SetString(PyExc_ValueError, "edit_window_pairs() was given an index out of range");
        goto done;
    }
    w.pivots = pivots;
    w.prefix = prefix;
    w.docs = docs;
    w.by_length = by_length;
    w.histograms = histograms;
    /* Pivots first..stop in parts of about as many slots each. */
    Py_ssize_t slots = 0;
    for (Py_ssize_t p = first; p < stop; p++)
        slots += pivots[4 * p + 3] - pivots[4 * p + 2];
    w.parts = threads_for(slots);
    w.bounds[0] = first;
    {
        Py_ssize_t p = first, seen = 0;
        for (int k = 1; k < w.parts; k++) {
            const Py_ssize_t want = part_start(slots, w.parts, k);
            while (p < stop && seen < want) {
                seen += pivots[4 * p + 3] - pivots[4 * p + 2];
                p++;
            }
            w.bounds[k] = p;
        }
    }
    w.bounds[w.parts] = stop;
    Py_BEGIN_ALLOW_THREADS
    run_parts(window_part, &w, w.parts);
    Py_END_ALLOW_THREADS
    if (w.failed) {
        PyErr_NoMemory();
        goto done;
    }
    {
        Py_ssize_t size = 0;
        for (int k = 0; k < w.parts; k++)
            size += w.out[k].size;
        PyObject *i = PyBytes_FromStringAndSize(NULL, size * word);
        PyObject *j = PyBytes_FromStringAndSize(NULL, size * word);
        if (i != NULL && j != NULL) {
            char *to_i = PyBytes_AS_STRING(i), *to_j = PyBytes_AS_STRING(j);
            for (int k = 0; k < w.parts; k++) {
                const size_t bytes = (size_t)w.out[k].size * sizeof(int64_t);
                if (bytes) {
                    memcpy(to_i, w.out[k].i, bytes);
                    memcpy(to_j, w.out[k].j, bytes);
                }
                to_i += bytes;
                to_j += bytes;
            }
            result = PyTuple_Pack(2, i, j);
        }
        Py_XDECREF(i);
        Py_XDECREF(j);
    }
done:
    for (int k = 0; k < MAX_THREADS; k++) {
        PyMem_RawFree(w.out[k].i);
        PyMem_RawFree(w.out[k].j);
    }
    PyBuffer_Release(&lb);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&db);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&vb);
    return result;
}

PyMethodDef simdup_editjoin_methods[] = {
    {"edit_prefixes", (PyCFunction)(void (*)(void))edit_prefixes, METH_FASTCALL,
     edit_prefixes_doc},
    {"edit_window_pairs", (PyCFunction)(void (*)(void))edit_window_pairs, METH_FASTCALL,
     edit_window_pairs_doc},
    {"edit_histograms", (PyCFunction)(void (*)(void))edit_histograms, METH_FASTCALL,
     edit_histograms_doc},
    {"edit_windows", (PyCFunction)(void (*)(void))edit_windows, METH_FASTCALL,
     edit_windows_doc},
    {NULL, NULL, 0, NULL},
};
