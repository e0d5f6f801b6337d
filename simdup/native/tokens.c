/*
 * simdup/native/tokens.c: fragment tokens (simdup/text/tokens.py) and the k-gram probe of
 * decon (simdup/algorithms/containment.py).
 *
 *   fragment_tokens   one text's tokens: offsets, hashes, CJK or not, units
 *                     (twin: simdup.text.tokens:tokenize_python)
 *   row_token_hashes  many texts' token hashes and each token's text number
 *                     (twin: simdup.text.tokens:row_token_hashes_python)
 *   gram_rows         the rows holding a k-gram of a sorted key set
 *                     (twin: simdup.algorithms.containment:gram_rows_python)
 *   gram_hits         one row's k-grams shared with items, checked token by token
 *                     (twin: simdup.algorithms.containment:gram_hits_python)
 *
 * The character classes and folded code points are the Python module's tables, passed in
 * (one uint32 a character of the basic plane: its folded code point + its class << 24, one
 * table lookup a character) with a mapping for characters outside it (code point -> class +
 * 4 * folded code point; the Python side computes and keeps what it is asked): one
 * definition of the folding, in Python.
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function.
 */
#include "common.h"

/* simdup/text/tokens.py: _SEPARATOR, _WORD_CHAR, _CJK_CHAR, _INVISIBLE_CHAR */
#define TK_SEPARATOR 0
#define TK_WORD 1
#define TK_CJK 2
#define TK_INVISIBLE 3

typedef struct {
    const uint32_t *chars; /* 65536: folded code point + class << 24 */
    PyObject *astral;      /* code point -> class + 4 * folded code point */
} Tables;

/* The tokens found so far; `full`: offsets, CJK flags and units too, else the row numbers. */
typedef struct {
    int full;
    Py_ssize_t size, capacity;
    int64_t *starts, *ends, *units, *rows;
    uint64_t *hashes;
    uint8_t *cjk;
} Out;

static void out_free(Out *o)
{
    PyMem_Free(o->starts);
    PyMem_Free(o->ends);
    PyMem_Free(o->units);
    PyMem_Free(o->rows);
    PyMem_Free(o->hashes);
    PyMem_Free(o->cjk);
}

#define OUT_GROW(field, type)                                                                 \
    do {                                                                                      \
        type *grown = PyMem_Realloc(o->field, (size_t)capacity * sizeof(type));               \
        if (grown == NULL)                                                                    \
            goto fail;                                                                        \
        o->field = grown;                                                                     \
    } while (0)

static int out_grow(Out *o)
{
    Py_ssize_t capacity = o->capacity ? 2 * o->capacity : 4096;
    if ((size_t)capacity > (size_t)PY_SSIZE_T_MAX / sizeof(int64_t))
        goto fail;
    OUT_GROW(hashes, uint64_t);
    if (o->full) {
        OUT_GROW(starts, int64_t);
        OUT_GROW(ends, int64_t);
        OUT_GROW(units, int64_t);
        OUT_GROW(cjk, uint8_t);
    }
    else
        OUT_GROW(rows, int64_t);
    o->capacity = capacity;
    return 0;
fail:
    PyErr_NoMemory();
    return -1;
}

/* One token: characters start..end - 1 of the text (as given), `units` of them not invisible,
   `raw` the polynomial of their folded code points (tokens.py: the hash before mixing). */
static inline int emit(Out *o, Py_ssize_t start, Py_ssize_t end, uint64_t raw, int64_t units,
                       int cjk, int64_t row)
{
    if (o->size == o->capacity && out_grow(o) < 0)
        return -1;
    const Py_ssize_t at = o->size++;
    o->hashes[at] = mh_mix(raw ^ (uint64_t)units);
    if (o->full) {
        o->starts[at] = start;
        o->ends[at] = end;
        o->units[at] = units;
        o->cjk[at] = (uint8_t)cjk;
    }
    else
        o->rows[at] = row;
    return 0;
}

/* The class and folded code point of a character outside the basic plane (asked of the
   Python mapping). */
static int astral_class(const Tables *t, Py_UCS4 ch, int *kind, uint32_t *folded)
{
    PyObject *key = PyLong_FromUnsignedLong(ch);
    if (key == NULL)
        return -1;
    PyObject *value = PyObject_GetItem(t->astral, key);
    Py_DECREF(key);
    if (value == NULL)
        return -1;
    unsigned long long packed = PyLong_AsUnsignedLongLong(value);
    Py_DECREF(value);
    if (packed == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *kind = (int)(packed & 3);
    *folded = (uint32_t)(packed >> 2);
    return 0;
}

/* tokens.py's tokenize in one pass: invisible characters are passed over (a word they sit in
   stays one word), a word is a run of word characters, a CJK character a token of its own;
   a token's hash is mix(sum of folded[i] * BASE**i, XOR its units). */
#define SCAN_TOKENS(T)                                                                        \
    static int scan_##T(const T *s, Py_ssize_t n, const Tables *t, Out *o, int64_t row)      \
    {                                                                                         \
        int in_word = 0;                                                                      \
        Py_ssize_t start = 0, last = 0;                                                       \
        uint64_t raw = 0, power = 1;                                                          \
        int64_t units = 0;                                                                    \
        for (Py_ssize_t i = 0; i < n; i++) {                                                  \
            const Py_UCS4 ch = s[i];                                                          \
            int kind;                                                                         \
            uint32_t folded;                                                                  \
            if (ch < 0x10000) {                                                               \
                const uint32_t c = t->chars[ch];                                              \
                kind = (int)(c >> 24);                                                        \
                folded = c & 0xFFFFFF;                                                        \
            }                                                                                 \
            else if (astral_class(t, ch, &kind, &folded) < 0)                                 \
                return -1;                                                                    \
            if (kind == TK_WORD) {                                                            \
                if (!in_word) {                                                               \
                    in_word = 1;                                                              \
                    start = i;                                                                \
                    raw = 0;                                                                  \
                    power = 1;                                                                \
                    units = 0;                                                                \
                }                                                                             \
                raw += (uint64_t)folded * power;                                              \
                power *= MH_GOLDEN;                                                           \
                units++;                                                                      \
                last = i;                                                                     \
                continue;                                                                     \
            }                                                                                 \
            if (kind == TK_INVISIBLE)                                                         \
                continue;                                                                     \
            if (in_word) {                                                                    \
                if (emit(o, start, last + 1, raw, units, 0, row) < 0)                         \
                    return -1;                                                                \
                in_word = 0;                                                                  \
            }                                                                                 \
            if (kind == TK_CJK && emit(o, i, i + 1, (uint64_t)folded, 1, 1, row) < 0)         \
                return -1;                                                                    \
        }                                                                                     \
        if (in_word && emit(o, start, last + 1, raw, units, 0, row) < 0)                      \
            return -1;                                                                        \
        return 0;                                                                             \
    }

SCAN_TOKENS(Py_UCS1)
SCAN_TOKENS(Py_UCS2)
SCAN_TOKENS(Py_UCS4)

static int scan_text(PyObject *text, const Tables *t, Out *o, int64_t row)
{
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_Py_UCS1(data, n, t, o, row);
    case PyUnicode_2BYTE_KIND:
        return scan_Py_UCS2(data, n, t, o, row);
    default:
        return scan_Py_UCS4(data, n, t, o, row);
    }
}

/* The tables of args[1] and args[2] (chars, astral); the buffer is to be released. */
static int get_tables(PyObject *const *args, Tables *t, Py_buffer *chars)
{
    if (PyObject_GetBuffer(args[1], chars, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (chars->len != 65536 * (Py_ssize_t)sizeof(uint32_t)) {
        PyBuffer_Release(chars);
        PyErr_SetString(PyExc_ValueError, "the character table must hold 65536 uint32");
        return -1;
    }
    t->chars = chars->buf;
    t->astral = args[2];
    return 0;
}

static PyObject *bytearray_of(const void *data, Py_ssize_t size)
{
    return PyByteArray_FromStringAndSize(size ? (const char *)data : "", size);
}

/* ------------------------------------------------------------------ fragment_tokens */

PyDoc_STRVAR(fragment_tokens_doc,
"fragment_tokens(text, chars, astral) -> (starts, ends, hashes, cjk, units)\n\n"
"simdup.text.tokens.tokenize_python(text): the tokens of text as bytearrays of int64 starts\n"
"and ends (character offsets), uint64 hashes, uint8 CJK flags and int64 units. chars: for\n"
"each of the 65536 characters of the basic plane, its folded code point + its class << 24\n"
"(uint32); astral: code point -> class + 4 * folded code point for the others.");

static PyObject *fragment_tokens(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "fragment_tokens(text, chars, astral)");
        return NULL;
    }
    if (check_text(args[0], "fragment_tokens") < 0)
        return NULL;
    Tables t;
    Py_buffer chars;
    if (get_tables(args, &t, &chars) < 0)
        return NULL;
    Out o = {.full = 1};
    PyObject *result = NULL;
    if (scan_text(args[0], &t, &o, 0) == 0) {
        const Py_ssize_t n = o.size, word = (Py_ssize_t)sizeof(int64_t);
        PyObject *starts = bytearray_of(o.starts, n * word);
        PyObject *ends = bytearray_of(o.ends, n * word);
        PyObject *hashes = bytearray_of(o.hashes, n * word);
        PyObject *cjk = bytearray_of(o.cjk, n);
        PyObject *units = bytearray_of(o.units, n * word);
        if (starts && ends && hashes && cjk && units)
            result = PyTuple_Pack(5, starts, ends, hashes, cjk, units);
        Py_XDECREF(starts);
        Py_XDECREF(ends);
        Py_XDECREF(hashes);
        Py_XDECREF(cjk);
        Py_XDECREF(units);
    }
    out_free(&o);
    PyBuffer_Release(&chars);
    return result;
}

/* ------------------------------------------------------------------ row_token_hashes */

PyDoc_STRVAR(row_token_hashes_doc,
"row_token_hashes(texts, chars, astral) -> (hashes, rows)\n\n"
"simdup.text.tokens.row_token_hashes_python(texts): the token hashes of every text of the\n"
"list, one after the other (uint64 bytes), and each token's text number (int64 bytes,\n"
"ascending). The tables as for fragment_tokens.");

static PyObject *row_token_hashes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "row_token_hashes(texts, chars, astral)");
        return NULL;
    }
    if (!PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "row_token_hashes() texts must be a list");
        return NULL;
    }
    PyObject *texts = args[0];
    Tables t;
    Py_buffer chars;
    if (get_tables(args, &t, &chars) < 0)
        return NULL;
    Out o = {.full = 0};
    PyObject *result = NULL;
    int failed = 0;
    /* The list is read by index each time: the astral mapping runs Python code. */
    for (Py_ssize_t r = 0; r < PyList_GET_SIZE(texts) && !failed; r++) {
        PyObject *text = PyList_GET_ITEM(texts, r);
        Py_INCREF(text);
        failed = check_text(text, "row_token_hashes") < 0 || scan_text(text, &t, &o, r) < 0;
        Py_DECREF(text);
    }
    if (!failed) {
        const Py_ssize_t n = o.size, word = (Py_ssize_t)sizeof(int64_t);
        PyObject *hashes = PyBytes_FromStringAndSize(n ? (const char *)o.hashes : "", n * word);
        PyObject *rows = PyBytes_FromStringAndSize(n ? (const char *)o.rows : "", n * word);
        if (hashes && rows)
            result = PyTuple_Pack(2, hashes, rows);
        Py_XDECREF(hashes);
        Py_XDECREF(rows);
    }
    out_free(&o);
    PyBuffer_Release(&chars);
    return result;
}

/* ------------------------------------------------------------------ gram_rows */

PyDoc_STRVAR(gram_rows_doc,
"gram_rows(hashes, rows, k, present, keys) -> bytes\n\n"
"simdup.algorithms.containment.gram_rows_python: of many rows' token hashes laid end to end\n"
"(hashes: uint64; rows: each token's row, int64, ascending), the rows (int64 bytes,\n"
"ascending, distinct) holding a k-gram (winnowing.kgram_hashes: token i + j's hash rotated\n"
"left by 7 * j bits, XORed) that is one of keys (uint64, ascending) and lies within the row.\n"
"present: a little-endian bit array (a power of two of bytes), bit v set where some key's\n"
"low bits are v (a first look: a clear bit is no key).");

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
    r &= 63;
    return r ? (x << r) | (x >> (64 - r)) : x;
}

static inline int sorted_has(const uint64_t *keys, Py_ssize_t n, uint64_t key)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        const Py_ssize_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo] == key;
}

static PyObject *gram_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "gram_rows(hashes, rows, k, present, keys)");
        return NULL;
    }
    const Py_ssize_t k = PyLong_AsSsize_t(args[2]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 1) {
        PyErr_SetString(PyExc_ValueError, "k must be at least 1");
        return NULL;
    }
    Py_buffer hb, rb, pb, kb;
    PyObject *result = NULL;
    int64_t *found = NULL;
    Py_ssize_t size = 0, capacity = 0;
    if (two_buffers(args, &hb, &rb) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &pb, PyBUF_C_CONTIGUOUS) < 0)
        goto release_two;
    if (PyObject_GetBuffer(args[4], &kb, PyBUF_C_CONTIGUOUS) < 0)
        goto release_three;
    const Py_ssize_t n = hb.len / (Py_ssize_t)sizeof(uint64_t);
    if (rb.len != n * (Py_ssize_t)sizeof(int64_t) || pb.len < 1 || (pb.len & (pb.len - 1))) {
        PyErr_SetString(PyExc_ValueError,
                        "gram_rows: one row a hash, and a presence table of 2**b bytes");
        goto release_all;
    }
    const uint64_t *h = hb.buf;
    const int64_t *row = rb.buf;
    const uint8_t *present = pb.buf;
    const uint64_t mask = 8 * (uint64_t)pb.len - 1;
    const uint64_t *keys = kb.buf;
    const Py_ssize_t n_keys = kb.len / (Py_ssize_t)sizeof(uint64_t);
    /* The gram at i + 1 from the one at i: token i taken out, every rotation one step (7
       bits) back, token i + k put in at the last rotation. */
    const unsigned last = (unsigned)((7 * (k - 1)) & 63);
    uint64_t gram = 0;
    for (Py_ssize_t j = 0; j < k && j < n; j++)
        gram ^= rotl64(h[j], (unsigned)((7 * j) & 63));
    for (Py_ssize_t i = 0; i + k <= n; i++) {
        if (i) /* the gram at i from the one at i - 1 */
            gram = rotl64(gram ^ h[i - 1], 64 - 7) ^ rotl64(h[i + k - 1], last);
        const int64_t r = row[i];
        if (row[i + k - 1] != r || (size && found[size - 1] == r))
            continue;
        const uint64_t low = gram & mask;
        if (!((present[low >> 3] >> (low & 7)) & 1) || !sorted_has(keys, n_keys, gram))
            continue;
        if (size == capacity) {
            capacity = capacity ? 2 * capacity : 256;
            int64_t *grown = PyMem_Realloc(found, (size_t)capacity * sizeof(int64_t));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto free_found;
            }
            found = grown;
        }
        found[size++] = r;
    }
    result = PyBytes_FromStringAndSize(size ? (const char *)found : "",
                                       size * (Py_ssize_t)sizeof(int64_t));
free_found:
    PyMem_Free(found);
release_all:
    PyBuffer_Release(&kb);
release_three:
    PyBuffer_Release(&pb);
release_two:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&hb);
    return result;
}

/* ------------------------------------------------------------------ gram_hits */

PyDoc_STRVAR(gram_hits_doc,
"gram_hits(row, k, present, keys, item, pos, flat, offsets) -> (item, item_pos, row_pos)\n\n"
"simdup.algorithms.containment.gram_hits_python: every k-gram of one row's token hashes\n"
"(row: uint64) whose hash is one of keys (uint64, ascending; item and pos: int64, the item\n"
"and the position in it of each key's gram) and whose k tokens are those of the item\n"
"(flat: every item's token hashes end to end, item n from offsets[n]), by row position and\n"
"then key order: three int64 bytes. present: as for gram_rows.");

static int get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t n,
                      const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->len % itemsize || (n >= 0 && view->len != n * itemsize)) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "gram_hits: %s has the wrong size", what);
        return -1;
    }
    return 0;
}

static PyObject *gram_hits(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "gram_hits(row, k, present, keys, item, pos, flat, offsets)");
        return NULL;
    }
    const Py_ssize_t k = PyLong_AsSsize_t(args[1]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 1) {
        PyErr_SetString(PyExc_ValueError, "k must be at least 1");
        return NULL;
    }
    enum { ROW, PRESENT, KEYS, ITEM, POS, FLAT, OFFSETS, N_BUFFERS };
    static const char *names[N_BUFFERS] = {"row", "present", "keys", "item", "pos", "flat",
                                           "offsets"};
    Py_buffer b[N_BUFFERS];
    int got = 0;
    PyObject *result = NULL;
    int64_t *out = NULL;
    Py_ssize_t size = 0, capacity = 0;
    for (; got < N_BUFFERS; got++) {
        const Py_ssize_t itemsize = got == PRESENT ? 1 : 8;
        Py_ssize_t n = -1;
        if (got == ITEM || got == POS)
            n = b[KEYS].len / 8;
        if (get_buffer(args[got == ROW ? 0 : got + 1], &b[got], itemsize, n, names[got]) < 0)
            goto done;
    }
    const Py_ssize_t n_row = b[ROW].len / 8, n_keys = b[KEYS].len / 8;
    const Py_ssize_t n_flat = b[FLAT].len / 8, n_items = b[OFFSETS].len / 8;
    if (b[PRESENT].len < 1 || (b[PRESENT].len & (b[PRESENT].len - 1))) {
        PyErr_SetString(PyExc_ValueError, "gram_hits: a presence table of 2**b bytes");
        goto done;
    }
    const uint64_t *row = b[ROW].buf, *keys = b[KEYS].buf, *flat = b[FLAT].buf;
    const uint8_t *present = b[PRESENT].buf;
    const int64_t *item = b[ITEM].buf, *pos = b[POS].buf, *offsets = b[OFFSETS].buf;
    const uint64_t mask = 8 * (uint64_t)b[PRESENT].len - 1;
    const unsigned last = (unsigned)((7 * (k - 1)) & 63);
    uint64_t gram = 0;
    for (Py_ssize_t j = 0; j < k && j < n_row; j++)
        gram ^= rotl64(row[j], (unsigned)((7 * j) & 63));
    for (Py_ssize_t rp = 0; rp + k <= n_row; rp++) {
        if (rp)
            gram = rotl64(gram ^ row[rp - 1], 64 - 7) ^ rotl64(row[rp + k - 1], last);
        const uint64_t low = gram & mask;
        if (!((present[low >> 3] >> (low & 7)) & 1))
            continue;
        Py_ssize_t lo = 0, hi = n_keys;
        while (lo < hi) {
            const Py_ssize_t mid = lo + (hi - lo) / 2;
            if (keys[mid] < gram)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (Py_ssize_t at = lo; at < n_keys && keys[at] == gram; at++) {
            const int64_t n = item[at], ip = pos[at];
            if (n < 0 || n >= n_items || ip < 0 || offsets[n] < 0 ||
                offsets[n] + ip + k > n_flat) {
                PyErr_SetString(PyExc_ValueError, "gram_hits: a key's place is outside flat");
                goto done;
            }
            const uint64_t *mine = flat + offsets[n] + ip;
            Py_ssize_t j = 0;
            while (j < k && mine[j] == row[rp + j])
                j++;
            if (j < k)
                continue;
            if (size + 3 > capacity) {
                capacity = capacity ? 2 * capacity : 96;
                int64_t *grown = PyMem_Realloc(out, (size_t)capacity * sizeof(int64_t));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                out = grown;
            }
            out[size++] = n;
            out[size++] = ip;
            out[size++] = rp;
        }
    }
    {
        const Py_ssize_t hits = size / 3;
        PyObject *parts[3] = {NULL, NULL, NULL};
        for (int p = 0; p < 3; p++) {
            parts[p] = PyBytes_FromStringAndSize(NULL, hits * (Py_ssize_t)sizeof(int64_t));
            if (parts[p] == NULL)
                break;
            int64_t *to = (int64_t *)PyBytes_AS_STRING(parts[p]);
            for (Py_ssize_t h = 0; h < hits; h++)
                to[h] = out[3 * h + p];
        }
        if (parts[0] && parts[1] && parts[2])
            result = PyTuple_Pack(3, parts[0], parts[1], parts[2]);
        for (int p = 0; p < 3; p++)
            Py_XDECREF(parts[p]);
    }
done:
    PyMem_Free(out);
    while (got-- > 0)
        PyBuffer_Release(&b[got]);
    return result;
}

PyMethodDef simdup_tokens_methods[] = {
    {"gram_hits", (PyCFunction)(void (*)(void))gram_hits, METH_FASTCALL, gram_hits_doc},
    {"fragment_tokens", (PyCFunction)(void (*)(void))fragment_tokens, METH_FASTCALL,
     fragment_tokens_doc},
    {"row_token_hashes", (PyCFunction)(void (*)(void))row_token_hashes, METH_FASTCALL,
     row_token_hashes_doc},
    {"gram_rows", (PyCFunction)(void (*)(void))gram_rows, METH_FASTCALL, gram_rows_doc},
    {NULL, NULL, 0, NULL},
};
