/*
 * simdup/native/editjoin.c: the candidate step of the edit-similarity join of short texts.
 *
 * edit_prefixes and edit_window_pairs; their pure-Python twins are prefixes_python and
 * window_pairs_python in simdup/algorithms/edit_join.py (the module docstring there argues
 * why the join is exact).
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function.
 */
#include "common.h"

#define HISTOGRAM_BINS 32 /* simdup.algorithms.edit_join.HISTOGRAM_BINS */
#define GRAM_ID_BITS 22   /* simdup.algorithms.edit_join._GRAM_ID_BITS */
#define GRAM_ID_MASK ((UINT64_C(1) << GRAM_ID_BITS) - 1)
#define GRAM_BASE UINT64_C(0x9E3779B97F4A7C15) /* simdup.algorithms.minhash._GOLDEN */
#define MAX_SPAN (1 << 10) /* a key (q-gram id, position) then fits in 32 bits */

/* ------------------------------------------------------------------ edit_prefixes */

PyDoc_STRVAR(edit_prefixes_doc,
"edit_prefixes(texts, edits, q, span, count_bits) -> (prefix, pivots, last)\n\n"
"simdup.algorithms.edit_join.prefixes_python(texts, edits, q, span, count_bits) as int64\n"
"bytes: the prefix entries as (doc, key, last, length) rows and the pivots as (doc, key)\n"
"rows, both sorted by key (stably), and the last rank per text. span at most 1024.");

typedef struct {
    int64_t *v;
    Py_ssize_t size, capacity;
} Int64s;

static int int64s_push2(Int64s *a, int64_t x, int64_t y)
{
    if (a->size + 2 > a->capacity) {
        Py_ssize_t grown = a->capacity ? 2 * a->capacity : 4096;
        int64_t *nv = PyMem_Realloc(a->v, (size_t)grown * sizeof(int64_t));
        if (nv == NULL)
            return -1;
        a->v = nv;
        a->capacity = grown;
    }
    a->v[a->size++] = x;
    a->v[a->size++] = y;
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

/* Rows (doc, key) sorted by key, stably (rows come in order of doc): LSD radix sort of
   key << 32 | doc by the key's bits, 11 at a time; -1 when out of memory. */
static int sort_by_key(Int64s *rows)
{
    enum { DIGIT = 11, BUCKETS = 1 << 11 };
    const Py_ssize_t n = rows->size / 2;
    if (n < 2)
        return 0;
    uint64_t *v = PyMem_Malloc((size_t)n * sizeof(uint64_t));
    uint64_t *tmp = PyMem_Malloc((size_t)n * sizeof(uint64_t));
    Py_ssize_t *count = PyMem_Malloc(BUCKETS * sizeof(Py_ssize_t));
    if (v == NULL || tmp == NULL || count == NULL) {
        PyMem_Free(v);
        PyMem_Free(tmp);
        PyMem_Free(count);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        v[i] = ((uint64_t)rows->v[2 * i + 1] << 32) | (uint64_t)rows->v[2 * i];
    uint64_t *src = v, *dst = tmp;
    for (int shift = 32; shift < 64; shift += DIGIT) {
        memset(count, 0, BUCKETS * sizeof(Py_ssize_t));
        for (Py_ssize_t i = 0; i < n; i++)
            count[(src[i] >> shift) & (BUCKETS - 1)]++;
        Py_ssize_t total = 0;
        for (int c = 0; c < BUCKETS; c++) {
            const Py_ssize_t here = count[c];
            count[c] = total;
            total += here;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
        uint64_t *swap = src;
        src = dst;
        dst = swap;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        rows->v[2 * i] = (int64_t)(src[i] & UINT32_MAX);
        rows->v[2 * i + 1] = (int64_t)(src[i] >> 32);
    }
    PyMem_Free(v);
    PyMem_Free(tmp);
    PyMem_Free(count);
    return 0;
}

static PyObject *edit_prefixes(PyObject *Py_UNUSED(module), PyObject *const *args,
                               Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "edit_prefixes() takes 5 arguments");
        return NULL;
    }
    PyObject *texts = args[0];
    if (!PyList_Check(texts)) {
        PyErr_SetString(PyExc_TypeError, "edit_prefixes() needs a list of texts");
        return NULL;
    }
    const long q = PyLong_AsLong(args[2]);
    const long long span = PyLong_AsLongLong(args[3]);
    const long count_bits = PyLong_AsLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (q < 1 || q > 16 || count_bits < 0 || count_bits > 24 || span < 1 || span > MAX_SPAN ||
        PyList_GET_SIZE(texts) > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "edit_prefixes() needs 1 <= q <= 16, "
                                          "0 <= count_bits <= 24, 1 <= span <= 1024");
        return NULL;
    }
    Py_buffer eb;
    if (PyObject_GetBuffer(args[1], &eb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *result = NULL;
    uint32_t *gids = NULL, *occurs = NULL;
    uint64_t *ranks = NULL, *scratch = NULL;
    Int64s prefix = {NULL, 0, 0}, pivots = {NULL, 0, 0};
    int64_t *last = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(texts);
    const int64_t *edits = eb.buf;
    if (eb.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "edit_prefixes() needs one int64 of edits per text");
        goto done;
    }
    /* Every text a str, and long enough for its prefix: q * k + 1 of its n + q - 1 q-grams. */
    Py_ssize_t total = 0, longest = 0;
    int64_t most = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *text = PyList_GET_ITEM(texts, t);
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "edit_prefixes() needs a list of str");
            goto done;
        }
        const Py_ssize_t count = PyUnicode_GET_LENGTH(text) + q - 1;
        if (edits[t] < 0 || q * edits[t] >= count) {
            PyErr_SetString(PyExc_ValueError, "edit_prefixes(): a text too short for its edits");
            goto done;
        }
        total += count;
        longest = count > longest ? count : longest;
        most = edits[t] > most ? edits[t] : most;
    }
    if (longest + 2 * most + 1 >= span) {
        PyErr_SetString(PyExc_ValueError, "edit_prefixes(): span too small for the texts");
        goto done;
    }
    gids = PyMem_Malloc((size_t)(total ? total : 1) * sizeof(uint32_t));
    occurs = PyMem_Calloc((size_t)1 << GRAM_ID_BITS, sizeof(uint32_t));
    ranks = PyMem_Malloc((size_t)(longest ? longest : 1) * sizeof(uint64_t));
    scratch = PyMem_Malloc((size_t)(longest ? longest : 1) * sizeof(uint64_t));
    last = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (gids == NULL || occurs == NULL || ranks == NULL || scratch == NULL || last == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* Each q-gram's id: the polynomial hash of its q codes (marks, code 0, before and after
       the text), mixed, its top GRAM_ID_BITS bits; and how often each id occurs. */
    Py_ssize_t at = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *text = PyList_GET_ITEM(texts, t);
        const int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        const Py_ssize_t length = PyUnicode_GET_LENGTH(text), count = length + q - 1;
        for (Py_ssize_t p = 0; p < count; p++) {
            uint64_t h = 0;
            for (long o = 0; o < q; o++) {
                const Py_ssize_t c = p + o - (q - 1);
                h = h * GRAM_BASE + (c >= 0 && c < length ? PyUnicode_READ(kind, data, c) : 0);
            }
            const uint32_t gid = (uint32_t)(mh_mix(h) >> (64 - GRAM_ID_BITS));
            gids[at++] = gid;
            occurs[gid]++;
        }
    }
    const uint64_t cap = ((uint64_t)1 << count_bits) - 1;
    const int64_t offset = most + 1;
    at = 0;
    for (Py_ssize_t t = 0; t < n; t++) {
        const Py_ssize_t count = PyUnicode_GET_LENGTH(PyList_GET_ITEM(texts, t)) + q - 1;
        for (Py_ssize_t p = 0; p < count; p++) {
            const uint32_t gid = gids[at + p];
            const uint64_t seen = occurs[gid] < cap ? occurs[gid] : cap;
            ranks[p] = (seen << GRAM_ID_BITS) | gid;
            scratch[p] = ranks[p];
        }
        at += count;
        const uint64_t bound = select_rank(scratch, count, (Py_ssize_t)(q * edits[t]));
        last[t] = (int64_t)bound;
        /* The prefix: every q-gram up to that rank; the pivots: the leftmost of them at
           least q apart, k + 1 of them. */
        int64_t taken = 0, previous = 0;
        for (Py_ssize_t p = 0; p < count; p++) {
            if (ranks[p] > bound)
                continue;
            const int64_t key = (int64_t)(ranks[p] & GRAM_ID_MASK) * span + p + offset;
            if (int64s_push2(&prefix, t, key) < 0) {
                PyErr_NoMemory();
                goto done;
            }
            if (taken <= edits[t] && (taken == 0 || p >= previous + q)) {
                if (int64s_push2(&pivots, t, key) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
                taken++;
                previous = p;
            }
        }
    }
    if (sort_by_key(&prefix) < 0 || sort_by_key(&pivots) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const Py_ssize_t word = (Py_ssize_t)sizeof(int64_t);
        /* The prefix rows with their text's last rank and length: (doc, key, last, length). */
        PyObject *a = PyBytes_FromStringAndSize(NULL, 2 * prefix.size * word);
        if (a != NULL) {
            int64_t *rows = (int64_t *)PyBytes_AS_STRING(a);
            for (Py_ssize_t i = 0; i < prefix.size / 2; i++) {
                const int64_t t = prefix.v[2 * i];
                rows[4 * i] = t;
                rows[4 * i + 1] = prefix.v[2 * i + 1];
                rows[4 * i + 2] = last[t];
                rows[4 * i + 3] = PyUnicode_GET_LENGTH(PyList_GET_ITEM(texts, t));
            }
        }
        PyObject *b = PyBytes_FromStringAndSize((const char *)pivots.v, pivots.size * word);
        PyObject *c = PyBytes_FromStringAndSize((const char *)last, n * word);
        if (a != NULL && b != NULL && c != NULL)
            result = PyTuple_Pack(3, a, b, c);
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(c);
    }
done:
    PyMem_Free(gids);
    PyMem_Free(occurs);
    PyMem_Free(ranks);
    PyMem_Free(scratch);
    PyMem_Free(last);
    PyMem_Free(prefix.v);
    PyMem_Free(pivots.v);
    PyBuffer_Release(&eb);
    return result;
}

/* ------------------------------------------------------------------ edit_window_pairs */

PyDoc_STRVAR(edit_window_pairs_doc,
"edit_window_pairs(pivots, prefix, docs, histograms, by_length, first, stop) -> (i, j)\n\n"
"simdup.algorithms.edit_join.window_pairs_python for pivots first to stop of the tables of a\n"
"Signatures (int64: pivots n x 4, prefix m x 4, docs t x 2, by_length l x 2; histograms\n"
"uint16, 32 per text): the candidate pairs i < j as int64 bytes, in the same order.");

typedef struct {
    int64_t *i, *j;
    Py_ssize_t size, capacity;
} Pairs;

static int pairs_push(Pairs *p, int64_t a, int64_t b)
{
    if (p->size == p->capacity) {
        Py_ssize_t grown = p->capacity ? 2 * p->capacity : 1024;
        int64_t *ni = PyMem_Realloc(p->i, (size_t)grown * sizeof(int64_t));
        if (ni == NULL)
            return -1;
        p->i = ni;
        int64_t *nj = PyMem_Realloc(p->j, (size_t)grown * sizeof(int64_t));
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
        const int64_t *p = prefix + 4 * e;
        if (p[0] < 0 || p[0] >= n_docs || p[3] < 0 || p[3] >= n_lengths)
            return 0;
    }
    for (Py_ssize_t d = 0; d < n_docs; d++)
        if (docs[2 * d + 1] < 0 || docs[2 * d + 1] >= n_lengths)
            return 0;
    return 1;
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
    Pairs out = {NULL, NULL, 0, 0};
    const Py_ssize_t word = (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t bins = HISTOGRAM_BINS * (Py_ssize_t)sizeof(uint16_t);
    if (vb.len % (4 * word) || pb.len % (4 * word) || db.len % (2 * word) ||
        lb.len % (2 * word) || hb.len != db.len / (2 * word) * bins) {
        PyErr_SetString(PyExc_ValueError, "edit_window_pairs() needs the tables of Signatures");
        goto done;
    }
    const int64_t *pivots = vb.buf, *prefix = pb.buf, *docs = db.buf, *by_length = lb.buf;
    const uint16_t *histograms = hb.buf;
    const Py_ssize_t n_pivots = vb.len / (4 * word), n_prefix = pb.len / (4 * word);
    const Py_ssize_t n_docs = db.len / (2 * word), n_lengths = lb.len / (2 * word);
    if (!tables_fit(pivots, n_pivots, prefix, n_prefix, docs, n_docs, n_lengths, first, stop)) {
        PyErr_SetString(PyExc_ValueError, "edit_window_pairs() was given an index out of range");
        goto done;
    }
    for (Py_ssize_t p = first; p < stop; p++) {
        const int64_t s = pivots[4 * p], key = pivots[4 * p + 1];
        const int64_t last_s = docs[2 * s], length_s = docs[2 * s + 1];
        for (int64_t e = pivots[4 * p + 2]; e < pivots[4 * p + 3]; e++) {
            const int64_t *entry = prefix + 4 * e; /* doc, key, last, length */
            const int64_t r = entry[0];
            if (r == s || entry[2] < last_s)
                continue;
            const int64_t length_r = entry[3];
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
            if (pairs_push(&out, s, r) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    {
        PyObject *i = PyBytes_FromStringAndSize((const char *)out.i, out.size * word);
        PyObject *j = PyBytes_FromStringAndSize((const char *)out.j, out.size * word);
        if (i != NULL && j != NULL)
            result = PyTuple_Pack(2, i, j);
        Py_XDECREF(i);
        Py_XDECREF(j);
    }
done:
    PyMem_Free(out.i);
    PyMem_Free(out.j);
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
    {NULL, NULL, 0, NULL},
};
