/*
 * simdup/native/jsonl.c: the text field of plain JSON lines, without building the record.
 *
 *   jsonl_texts  (twin: simdup.readers.rows:jsonl_texts_python)
 *
 * A line is read here only when it is plainly a JSON object (strict UTF-8, the JSON grammar,
 * a few nesting levels, no \u escape of a surrogate, no NaN or Infinity, no huge number): then
 * its text field's value is returned when it is a string. Anything else gives None, "ask
 * Python": the caller then parses the line as it always does, so this never decides that a
 * line is bad, only that it is surely good. A str returned is what json.loads gives for the
 * field (the last one of the name, as a dict keeps it).
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function.
 */
#include "common.h"

#define JSONL_MAX_DEPTH 32
#define JSONL_MAX_NUMBER 64

typedef struct {
    const unsigned char *p, *end;
} Cursor;

static inline void skip_space(Cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static inline int hex_value(unsigned char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* One code point of strict UTF-8 (as Python's decoder takes it) at c->p, or -1. */
static inline int32_t utf8_char(Cursor *c)
{
    const unsigned char *p = c->p;
    const Py_ssize_t left = c->end - p;
    const unsigned char b = p[0];
    if (b < 0x80) {
        c->p++;
        return b;
    }
    int need;
    int32_t cp;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b >= 0xC2 && b <= 0xDF) {
        need = 1;
        cp = b & 0x1F;
    }
    else if (b >= 0xE0 && b <= 0xEF) {
        need = 2;
        cp = b & 0x0F;
        if (b == 0xE0)
            lo = 0xA0;
        else if (b == 0xED)
            hi = 0x9F; /* no surrogates */
    }
    else if (b >= 0xF0 && b <= 0xF4) {
        need = 3;
        cp = b & 0x07;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F;
    }
    else
        return -1;
    if (left < need + 1 || p[1] < lo || p[1] > hi)
        return -1;
    for (int i = 1; i <= need; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    c->p += need + 1;
    return cp;
}

/* The string at c->p (at its opening quote): 0 and past its closing quote, or -1 (ask
   Python). With out, its code points are written there, at most cap of them; *n gets how
   many it has. */
static int scan_string(Cursor *c, Py_UCS4 *out, Py_ssize_t cap, Py_ssize_t *n)
{
    Py_ssize_t count = 0;
    c->p++; /* the quote */
    while (c->p < c->end) {
        const unsigned char b = *c->p;
        int32_t cp;
        if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\') { /* most characters */
            if (out != NULL && count < cap)
                out[count] = b;
            count++;
            c->p++;
            continue;
        }
        if (b == '"') {
            c->p++;
            *n = count;
            return 0;
        }
        if (b == '\\') {
            if (c->end - c->p < 2)
                return -1;
            const unsigned char e = c->p[1];
            c->p += 2;
            switch (e) {
            case '"':
            case '\\':
            case '/':
                cp = e;
                break;
            case 'b':
                cp = '\b';
                break;
            case 'f':
                cp = '\f';
                break;
            case 'n':
                cp = '\n';
                break;
            case 'r':
                cp = '\r';
                break;
            case 't':
                cp = '\t';
                break;
            case 'u': {
                if (c->end - c->p < 4)
                    return -1;
                cp = 0;
                for (int i = 0; i < 4; i++) {
                    const int h = hex_value(c->p[i]);
                    if (h < 0)
                        return -1;
                    cp = (cp << 4) | h;
                }
                c->p += 4;
                if (cp >= 0xD800 && cp <= 0xDFFF) /* pairs and lone ones: Python's way */
                    return -1;
                break;
            }
            default:
                return -1;
            }
        }
        else if (b < 0x20) /* a control character: json (strict) refuses it */
            return -1;
        else if ((cp = utf8_char(c)) < 0)
            return -1;
        if (out != NULL && count < cap)
            out[count] = (Py_UCS4)cp;
        count++;
    }
    return -1;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, not too long: 0, or -1. */
static int scan_number(Cursor *c)
{
    const unsigned char *start = c->p, *p = c->p, *end = c->end;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return -1;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    else
        return -1;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return -1;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return -1;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    /* What follows must end the number (json would read "01" as 0 and fail at 1). */
    if (p - start > JSONL_MAX_NUMBER || (p < end && ((*p >= '0' && *p <= '9') || *p == '.' ||
                                                     *p == 'e' || *p == 'E')))
        return -1;
    c->p = p;
    return 0;
}

static inline int scan_word(Cursor *c, const char *word, Py_ssize_t len)
{
    if (c->end - c->p < len || memcmp(c->p, word, (size_t)len) != 0)
        return -1;
    c->p += len;
    return 0;
}

static int scan_value(Cursor *c, int depth);

/* An object or array at c->p (its opening bracket). */
static int scan_container(Cursor *c, int depth)
{
    const int object = *c->p == '{';
    const unsigned char close = object ? '}' : ']';
    if (depth >= JSONL_MAX_DEPTH)
        return -1;
    c->p++;
    skip_space(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return 0;
    }
    for (;;) {
        if (object) {
            Py_ssize_t n;
            if (c->p >= c->end || *c->p != '"' || scan_string(c, NULL, 0, &n) < 0)
                return -1;
            skip_space(c);
            if (c->p >= c->end || *c->p != ':')
                return -1;
            c->p++;
            skip_space(c);
        }
        if (scan_value(c, depth + 1) < 0)
            return -1;
        skip_space(c);
        if (c->p >= c->end)
            return -1;
        if (*c->p == close) {
            c->p++;
            return 0;
        }
        if (*c->p != ',')
            return -1;
        c->p++;
        skip_space(c);
    }
}

static int scan_value(Cursor *c, int depth)
{
    if (c->p >= c->end)
        return -1;
    Py_ssize_t n;
    switch (*c->p) {
    case '"':
        return scan_string(c, NULL, 0, &n);
    case '{':
    case '[':
        return scan_container(c, depth);
    case 't':
        return scan_word(c, "true", 4);
    case 'f':
        return scan_word(c, "false", 5);
    case 'n':
        return scan_word(c, "null", 4);
    default:
        return scan_number(c);
    }
}

/* The code points of the text field's value, decoded as the line is read. */
typedef struct {
    Py_UCS4 *chars;
    Py_ssize_t capacity;
} Decoded;

/* The text field of one line as a new str, Py_None (ask Python; a new reference), or NULL
   with an exception (out of memory). */
static PyObject *line_text(const unsigned char *data, Py_ssize_t size, const Py_UCS4 *field,
                           Py_ssize_t field_len, Py_UCS4 *key, Decoded *text)
{
    Cursor c = {data, data + size};
    Py_ssize_t length = -1; /* of the last field of the name, when it is a string */
    if (size == 0 || *c.p != '{')
        Py_RETURN_NONE;
    if (size > text->capacity) { /* a string has no more code points than bytes */
        Py_UCS4 *grown = PyMem_Realloc(text->chars, (size_t)size * sizeof(Py_UCS4));
        if (grown == NULL)
            return PyErr_NoMemory();
        text->chars = grown;
        text->capacity = size;
    }
    c.p++;
    skip_space(&c);
    if (c.p < c.end && *c.p == '}')
        Py_RETURN_NONE; /* no field */
    for (;;) {
        Py_ssize_t n;
        if (c.p >= c.end || *c.p != '"' || scan_string(&c, key, field_len, &n) < 0)
            Py_RETURN_NONE;
        const int named =
            n == field_len && memcmp(key, field, (size_t)field_len * sizeof(Py_UCS4)) == 0;
        skip_space(&c);
        if (c.p >= c.end || *c.p != ':')
            Py_RETURN_NONE;
        c.p++;
        skip_space(&c);
        if (named && c.p < c.end && *c.p == '"') {
            if (scan_string(&c, text->chars, text->capacity, &length) < 0)
                Py_RETURN_NONE;
        }
        else {
            if (named)
                length = -1;
            if (scan_value(&c, 1) < 0)
                Py_RETURN_NONE;
        }
        skip_space(&c);
        if (c.p >= c.end)
            Py_RETURN_NONE;
        if (*c.p == '}')
            break;
        if (*c.p != ',')
            Py_RETURN_NONE;
        c.p++;
        skip_space(&c);
    }
    c.p++;
    skip_space(&c);
    if (c.p != c.end || length < 0)
        Py_RETURN_NONE;
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, text->chars, length);
}

PyDoc_STRVAR(jsonl_texts_doc,
"jsonl_texts(lines, field) -> list[str | None]\n\n"
"simdup.readers.rows.jsonl_texts_python: for each JSON line (bytes) of the list, the value\n"
"of its top-level field `field` when the line is plainly a JSON object (strict UTF-8, JSON\n"
"whitespace around it) whose field is a string; None where it is not, or where the line has\n"
"anything this reader leaves to Python's json (a \\u escape of a surrogate, NaN, deep\n"
"nesting, a long number): the caller then parses such a line itself.");

static PyObject *jsonl_texts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "jsonl_texts(lines, field)");
        return NULL;
    }
    PyObject *lines = args[0];
    if (!PyList_Check(lines)) {
        PyErr_SetString(PyExc_TypeError, "jsonl_texts() lines must be a list");
        return NULL;
    }
    if (check_text(args[1], "jsonl_texts") < 0)
        return NULL;
    Py_UCS4 *field = PyUnicode_AsUCS4Copy(args[1]);
    if (field == NULL)
        return NULL;
    const Py_ssize_t field_len = PyUnicode_GET_LENGTH(args[1]);
    Py_UCS4 *key = PyMem_Malloc((size_t)(field_len + 1) * sizeof(Py_UCS4));
    Decoded decoded = {NULL, 0};
    PyObject *out = key == NULL ? PyErr_NoMemory() : PyList_New(PyList_GET_SIZE(lines));
    for (Py_ssize_t i = 0; out != NULL && i < PyList_GET_SIZE(lines); i++) {
        PyObject *line = PyList_GET_ITEM(lines, i);
        PyObject *text;
        if (PyBytes_Check(line))
            text = line_text((const unsigned char *)PyBytes_AS_STRING(line),
                             PyBytes_GET_SIZE(line), field, field_len, key, &decoded);
        else
            text = Py_NewRef(Py_None);
        if (text == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, text);
    }
    PyMem_Free(decoded.chars);
    PyMem_Free(key);
    PyMem_Free(field);
    return out;
}

PyMethodDef simdup_jsonl_methods[] = {
    {"jsonl_texts", (PyCFunction)(void (*)(void))jsonl_texts, METH_FASTCALL, jsonl_texts_doc},
    {NULL, NULL, 0, NULL},
};
