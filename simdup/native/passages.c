/*
 * simdup/native/passages.c: a text's blocks, the SimHash of windows of them, distinct runs.
 *
 * cut_blocks (twin in simdup/text/blocks.py), window_fingerprints (simdup/passages/documents.py)
 * and distinct_runs (simdup/passages/windows.py).
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

/* ---- a text cut into blocks (simdup/text/blocks.py: cut_text_python) -------------------------- */

PyDoc_STRVAR(cut_blocks_doc,
"cut_blocks(text, max_lines, max_chars) -> (bytes, lines)\n\n"
"The blocks of `text` (simdup/text/blocks.py: cut_text_python) as int64 rows (start_line,\n"
"end_line, start_char, end_char), and the text's number of lines. Lines end at \\r\\n, \\r\n"
"or \\n; a blank line (only whitespace) ends a block; a block also ends before a Markdown\n"
"heading line, after max_lines lines, or before a line that starts max_chars or more\n"
"characters after the block's start.");

typedef struct {
    int64_t *rows;
    Py_ssize_t size, capacity; /* in int64 values */
} RowBuffer;

static int row_push(RowBuffer *r, int64_t a, int64_t b, int64_t c, int64_t d)
{
    if (r->size + 4 > r->capacity) {
        Py_ssize_t grown = r->capacity ? 2 * r->capacity : 256;
        int64_t *more = PyMem_Realloc(r->rows, (size_t)grown * sizeof(int64_t));
        if (more == NULL)
            return -1;
        r->rows = more;
        r->capacity = grown;
    }
    r->rows[r->size++] = a;
    r->rows[r->size++] = b;
    r->rows[r->size++] = c;
    r->rows[r->size++] = d;
    return 0;
}

/* Whether line [start, end) of the text is a Markdown heading: up to three spaces, one to six
 * '#', then a space, a tab or the end of the line. */
static int is_heading(int kind, const void *data, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t i = start;
    while (i < end && i - start < 4 && PyUnicode_READ(kind, data, i) == ' ')
        i++;
    if (i - start > 3)
        return 0;
    Py_ssize_t hashes = 0;
    while (i < end && PyUnicode_READ(kind, data, i) == '#') {
        i++;
        hashes++;
    }
    if (hashes < 1 || hashes > 6)
        return 0;
    if (i == end)
        return 1;
    Py_UCS4 next = PyUnicode_READ(kind, data, i);
    return next == ' ' || next == '\t';
}

static PyObject *cut_blocks(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "cut_blocks() takes a str and two ints");
        return NULL;
    }
    Py_ssize_t max_lines = PyLong_AsSsize_t(args[1]);
    if (max_lines == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t max_chars = PyLong_AsSsize_t(args[2]);
    if (max_chars == -1 && PyErr_Occurred())
        return NULL;
    if (max_lines < 1) {
        PyErr_SetString(PyExc_ValueError, "max_lines must be at least 1");
        return NULL;
    }
    PyObject *text = args[0];
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    RowBuffer out = {NULL, 0, 0};
    PyObject *result = NULL;
    Py_ssize_t number = 0;                          /* lines seen */
    Py_ssize_t first = -1, start = 0, end = 0, count = 0; /* the open block (first -1: none) */
    Py_ssize_t at = 0;
    while (at < n) {
        /* One line: [at, stop), its newline sequence after it. */
        Py_ssize_t stop = at;
        int blank = 1;
        while (stop < n) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, stop);
            if (ch == '\n' || ch == '\r')
                break;
            if (blank && !Py_UNICODE_ISSPACE(ch))
                blank = 0;
            stop++;
        }
        number++;
        if (blank) {
            if (first >= 0) {
                if (row_push(&out, first, first + count - 1, start, end) < 0)
                    goto nomemory;
                first = -1;
            }
        } else {
            if (first >= 0 && (count == max_lines || at - start >= max_chars ||
                               is_heading(kind, data, at, stop))) {
                if (row_push(&out, first, first + count - 1, start, end) < 0)
                    goto nomemory;
                first = -1;
            }
            if (first < 0) {
                first = number;
                start = at;
                count = 0;
            }
            count++;
            end = stop;
        }
        at = stop;
        if (at < n) { /* the newline sequence */
            if (PyUnicode_READ(kind, data, at) == '\r' && at + 1 < n &&
                PyUnicode_READ(kind, data, at + 1) == '\n')
                at += 2;
            else
                at += 1;
        }
    }
    if (first >= 0 && row_push(&out, first, first + count - 1, start, end) < 0)
        goto nomemory;
    {
        PyObject *rows =
            PyBytes_FromStringAndSize((const char *)out.rows, out.size * (Py_ssize_t)sizeof(int64_t));
        if (rows != NULL) {
            result = Py_BuildValue("(Nn)", rows, number);
        }
    }
    PyMem_Free(out.rows);
    return result;
nomemory:
    PyMem_Free(out.rows);
    return PyErr_NoMemory();
}

/* ---- SimHash of windows of blocks (simdup/passages/documents.py: window_fingerprints_python) ------ */

PyDoc_STRVAR(window_fingerprints_doc,
"window_fingerprints(counters, rows, window_end) -> bytes\n\n"
"The SimHash of each window of blocks (simdup/passages/documents.py: window_fingerprints_python):\n"
"block k is row rows[k] of `counters` (int64, 64 per row); the window starting at block k\n"
"ends at block window_end[k] (-1: no window, fingerprint 0); bit b is set where the\n"
"window's summed counter b is positive. uint64 values, one per block.");

static PyObject *window_fingerprints(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "window_fingerprints() takes 3 arguments");
        return NULL;
    }
    Py_buffer cb, rb, eb;
    if (three_buffers(args, &cb, &rb, &eb) < 0)
        return NULL;
    PyObject *result = NULL;
    int64_t *prefix = NULL;
    const Py_ssize_t word = 8;
    if (cb.len % (64 * word) || rb.len % word || eb.len != rb.len) {
        PyErr_SetString(PyExc_ValueError,
                        "window_fingerprints() needs int64 rows of 64 counters, n rows and n ends");
        goto done;
    }
    const Py_ssize_t table = cb.len / (64 * word), n = rb.len / word;
    const int64_t *counters = (const int64_t *)cb.buf;
    const int64_t *rows = (const int64_t *)rb.buf;
    const int64_t *ends = (const int64_t *)eb.buf;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (rows[k] < 0 || rows[k] >= table || ends[k] < -1 || ends[k] >= n ||
            (ends[k] >= 0 && ends[k] < k)) {
            PyErr_SetString(PyExc_ValueError, "window_fingerprints() row or end out of range");
            goto done;
        }
    }
    /* prefix[k][b]: counter b summed over blocks 0..k-1 (integers: exact in any order). */
    prefix = PyMem_Malloc((size_t)(n + 1) * 64 * sizeof(int64_t));
    if (prefix == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(prefix, 0, 64 * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < n; k++) {
        const int64_t *c = counters + 64 * rows[k];
        for (int b = 0; b < 64; b++)
            prefix[64 * (k + 1) + b] = prefix[64 * k + b] + c[b];
    }
    result = PyBytes_FromStringAndSize(NULL, n * word);
    if (result == NULL)
        goto done;
    uint64_t *out = (uint64_t *)PyBytes_AS_STRING(result);
    for (Py_ssize_t k = 0; k < n; k++) {
        uint64_t fp = 0;
        if (ends[k] >= 0) {
            const int64_t *hi = prefix + 64 * (ends[k] + 1), *lo = prefix + 64 * k;
            for (int b = 0; b < 64; b++)
                fp |= (uint64_t)(hi[b] - lo[b] > 0) << b;
        }
        out[k] = fp;
    }
done:
    PyMem_Free(prefix);
    PyBuffer_Release(&eb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&cb);
    return result;
}

/* ---- sorted distinct values of runs (simdup/passages/windows.py: distinct_runs_python) ---------- */

PyDoc_STRVAR(distinct_runs_doc,
"distinct_runs(values, bounds) -> (values, bounds)\n\n"
"Each run values[bounds[k]:bounds[k + 1]] (uint32; bounds int64, ascending from 0 to\n"
"len(values)) sorted and made distinct (simdup/passages/windows.py: distinct_runs_python): the runs\n"
"one after the other, and their new bounds.");

static int compare_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static PyObject *distinct_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "distinct_runs() takes 2 arguments");
        return NULL;
    }
    Py_buffer vb, bb;
    if (two_buffers(args, &vb, &bb) < 0)
        return NULL;
    PyObject *values = NULL, *bounds = NULL, *result = NULL;
    uint32_t *v = NULL;
    if (vb.len % 4 || bb.len % 8 || bb.len < 8) {
        PyErr_SetString(PyExc_ValueError, "distinct_runs() needs uint32 values, int64 bounds");
        goto done;
    }
    const Py_ssize_t n = vb.len / 4, runs = bb.len / 8 - 1;
    const int64_t *in_bounds = (const int64_t *)bb.buf;
    if (in_bounds[0] != 0 || in_bounds[runs] != n) {
        PyErr_SetString(PyExc_ValueError, "distinct_runs() bounds must go from 0 to len(values)");
        goto done;
    }
    for (Py_ssize_t k = 0; k < runs; k++) {
        if (in_bounds[k + 1] < in_bounds[k]) {
            PyErr_SetString(PyExc_ValueError, "distinct_runs() bounds must ascend");
            goto done;
        }
    }
    v = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(uint32_t));
    bounds = PyBytes_FromStringAndSize(NULL, bb.len);
    if (v == NULL || bounds == NULL) {
        if (v == NULL)
            PyErr_NoMemory();
        goto done;
    }
    memcpy(v, vb.buf, (size_t)n * sizeof(uint32_t));
    int64_t *out_bounds = (int64_t *)PyBytes_AS_STRING(bounds);
    Py_ssize_t kept = 0;
    out_bounds[0] = 0;
    for (Py_ssize_t k = 0; k < runs; k++) {
        uint32_t *run = v + in_bounds[k];
        const Py_ssize_t size = (Py_ssize_t)(in_bounds[k + 1] - in_bounds[k]);
        if (size <= 32) { /* insertion sort: most runs are a window's few dozen terms */
            for (Py_ssize_t i = 1; i < size; i++) {
                const uint32_t x = run[i];
                Py_ssize_t j = i;
                while (j > 0 && run[j - 1] > x) {
                    run[j] = run[j - 1];
                    j--;
                }
                run[j] = x;
            }
        }
        else {
            qsort(run, (size_t)size, sizeof(uint32_t), compare_u32);
        }
        /* Distinct values moved down to `kept` (never past where they are read). */
        for (Py_ssize_t i = 0; i < size; i++)
            if (i == 0 || run[i] != run[i - 1])
                v[kept++] = run[i];
        out_bounds[k + 1] = kept;
    }
    values = PyBytes_FromStringAndSize((const char *)v, kept * 4);
    if (values != NULL)
        result = PyTuple_Pack(2, values, bounds);
done:
    PyMem_Free(v);
    Py_XDECREF(values);
    Py_XDECREF(bounds);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&vb);
    return result;
}

PyMethodDef simdup_passages_methods[] = {
    {"cut_blocks", (PyCFunction)(void (*)(void))cut_blocks, METH_FASTCALL, cut_blocks_doc},
    {"window_fingerprints", (PyCFunction)(void (*)(void))window_fingerprints, METH_FASTCALL,
     window_fingerprints_doc},
    {"distinct_runs", (PyCFunction)(void (*)(void))distinct_runs, METH_FASTCALL,
     distinct_runs_doc},
    {NULL, NULL, 0, NULL},
};
