/*
 * simdup/native/passages.c: a text's blocks of lines.
 *
 * cut_blocks (twin in simdup/text/blocks.py).
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

PyMethodDef simdup_passages_methods[] = {
    {"cut_blocks", (PyCFunction)(void (*)(void))cut_blocks, METH_FASTCALL, cut_blocks_doc},
    {NULL, NULL, 0, NULL},
};
