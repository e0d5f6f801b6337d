/*
 * simdup/native/editjoin.c: the candidate step of the edit-similarity join of short texts.
 *
 * edit_window_pairs; its pure-Python twin is window_pairs_python in
 * simdup/algorithms/edit_join.py (the module docstring there argues why the join is exact).
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function.
 */
#include "common.h"

#define HISTOGRAM_BINS 32 /* simdup.algorithms.edit_join.HISTOGRAM_BINS */

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
    {"edit_window_pairs", (PyCFunction)(void (*)(void))edit_window_pairs, METH_FASTCALL,
     edit_window_pairs_doc},
    {NULL, NULL, 0, NULL},
};
