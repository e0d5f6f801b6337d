/*
 * simdup/native/tokens.c: fragment tokens (simdup/text/tokens.py) and the k-gram probe of
 * decon (simdup/algorithms/containment.py).
 *
 *   fragment_tokens   one text's tokens: offsets, hashes, CJK or not, units
 *                     (twin: simdup.text.tokens:tokenize_python)
 *   row_token_hashes  many texts' token hashes and each token's text number
 *                     (twin: simdup.text.tokens:row_token_hashes_python)
 *   row_letter_hashes many texts' letter hashes and each letter's text number
 *                     (twin: simdup.text.letters:row_letter_hashes_python)
 *   gram_rows         the rows holding a k-gram of a sorted key set
 *                     (twin: simdup.algorithms.containment:gram_rows_python)
 *   gram_hits         one row's k-grams shared with items, checked token by token
 *                     (twin: simdup.algorithms.containment:gram_hits_python)
 *   best_window       the stretch of a row closest to an item by edit distance
 *                     (twin: simdup.algorithms.containment:best_window_python)
 *   near_groups       the rows' runs of hits of an item with a stretch near it
 *                     (twin: simdup.algorithms.containment:near_groups_python)
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

/* The class and folded code point of a character (the table, else the Python mapping). */
static inline int char_class(const Tables *t, Py_UCS4 ch, int *kind, uint32_t *folded)
{
    if (ch < 0x10000) {
        const uint32_t c = t->chars[ch];
        *kind = (int)(c >> 24);
        *folded = c & 0xFFFFFF;
        return 0;
    }
    return astral_class(t, ch, kind, folded);
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
            if (char_class(t, ch, &kind, &folded) < 0)                                        \
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

/* A text scanned by the pass of its width (prefix##_Py_UCS1, 2 or 4). */
#define BY_WIDTH(name, prefix)                                                                \
    static int name(PyObject *text, const Tables *t, Out *o, int64_t row)                     \
    {                                                                                         \
        const void *data = PyUnicode_DATA(text);                                              \
        const Py_ssize_t n = PyUnicode_GET_LENGTH(text);                                      \
        switch (PyUnicode_KIND(text)) {                                                       \
        case PyUnicode_1BYTE_KIND:                                                            \
            return prefix##_Py_UCS1(data, n, t, o, row);                                      \
        case PyUnicode_2BYTE_KIND:                                                            \
            return prefix##_Py_UCS2(data, n, t, o, row);                                      \
        default:                                                                              \
            return prefix##_Py_UCS4(data, n, t, o, row);                                      \
        }                                                                                     \
    }

BY_WIDTH(scan_text, scan)

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

/* What row_token_hashes and row_letter_hashes share: each text of args[0] (a list) scanned by
   `scan` into one Out of hashes and row numbers, returned as (hashes, rows) bytes. */
typedef int (*RowScan)(PyObject *text, const Tables *t, Out *o, int64_t row);

static PyObject *scan_rows(PyObject *const *args, Py_ssize_t nargs, const char *name,
                           RowScan scan)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s(texts, chars, astral)", name);
        return NULL;
    }
    if (!PyList_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s() texts must be a list", name);
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
        failed = check_text(text, name) < 0 || scan(text, &t, &o, r) < 0;
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

static PyObject *row_token_hashes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return scan_rows(args, nargs, "row_token_hashes", scan_text);
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
        PyErr_Format(PyExc_ValueError, "%s has the wrong size", what);
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
    static const char *names[N_BUFFERS] = {"gram_hits: row", "gram_hits: present",
                                           "gram_hits: keys", "gram_hits: item", "gram_hits: pos",
                                           "gram_hits: flat", "gram_hits: offsets"};
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

/* ------------------------------------------------------------------ row_letter_hashes */

PyDoc_STRVAR(row_letter_hashes_doc,
"row_letter_hashes(texts, chars, astral) -> (hashes, rows)\n\n"
"simdup.text.letters.row_letter_hashes_python(texts): the letter hashes of every text of the\n"
"list (its tokens' folded characters, a separator between two words), one after the other\n"
"(uint64 bytes), and each letter's text number (int64 bytes, ascending). The tables as for\n"
"fragment_tokens.");

/* simdup/text/letters.py: SEPARATOR and letter_hashes */
#define LETTER_HASH(code) mh_mix((uint64_t)(code) + MH_GOLDEN)

static inline int emit_letter(Out *o, uint64_t hash, int64_t row)
{
    if (o->size == o->capacity && out_grow(o) < 0)
        return -1;
    o->hashes[o->size] = hash;
    o->rows[o->size++] = row;
    return 0;
}

#define SCAN_LETTERS(T)                                                                       \
    static int letters_##T(const T *s, Py_ssize_t n, const Tables *t, Out *o, int64_t row)   \
    {                                                                                         \
        int in_word = 0, after_word = 0;                                                      \
        for (Py_ssize_t i = 0; i < n; i++) {                                                  \
            const Py_UCS4 ch = s[i];                                                          \
            int kind;                                                                         \
            uint32_t folded;                                                                  \
            if (char_class(t, ch, &kind, &folded) < 0)                                        \
                return -1;                                                                    \
            if (kind == TK_INVISIBLE)                                                         \
                continue;                                                                     \
            if (kind == TK_WORD) {                                                            \
                if (!in_word && after_word && emit_letter(o, LETTER_HASH(0), row) < 0)        \
                    return -1;                                                                \
                if (emit_letter(o, LETTER_HASH(folded), row) < 0)                             \
                    return -1;                                                                \
                in_word = after_word = 1;                                                     \
                continue;                                                                     \
            }                                                                                 \
            in_word = 0;                                                                      \
            if (kind == TK_CJK) {                                                             \
                if (emit_letter(o, LETTER_HASH(folded), row) < 0)                             \
                    return -1;                                                                \
                after_word = 0;                                                               \
            }                                                                                 \
        }                                                                                     \
        return 0;                                                                             \
    }

SCAN_LETTERS(Py_UCS1)
SCAN_LETTERS(Py_UCS2)
SCAN_LETTERS(Py_UCS4)

BY_WIDTH(scan_letters, letters)

static PyObject *row_letter_hashes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return scan_rows(args, nargs, "row_letter_hashes", scan_letters);
}

/* ---------------------------------------------------------------- best_window */

PyDoc_STRVAR(best_window_doc,
"best_window(item, row, max_edits, may_start, may_end, swaps) -> (distance, first, last) | None\n\n"
"simdup.algorithms.containment:best_window_python: the stretch of row (uint64) closest to\n"
"item (uint64) by edit distance (swaps: two neighbours swapped is one edit), starting and\n"
"ending anywhere, or where may_start and may_end (uint8, one a boundary, len(row) + 1;\n"
"None: anywhere) allow; None above max_edits.");

#define BW_FAR ((int64_t)1 << 40)

/* One pass of the table (see _last_row): the distance of item to the best stretch of row and
   the first end where it is reached; -1 when above max_edits. anywhere == 0: the stretch
   starts at the row's first token. swaps: two neighbours swapped is one edit (optimal string
   alignment). table: 3 * (m + 1) slots. */
static int64_t bw_last_row(const uint64_t *item, Py_ssize_t n, const uint64_t *row,
                           Py_ssize_t m, int64_t max_edits, int anywhere, int swaps,
                           const uint8_t *may_start, const uint8_t *may_end, int64_t *table,
                           Py_ssize_t *end)
{
    int64_t *older = table, *prev = table + (m + 1), *cur = table + 2 * (m + 1);
    if (!anywhere) {
        for (Py_ssize_t j = 0; j <= m; j++)
            prev[j] = j;
    } else if (may_start == NULL) {
        for (Py_ssize_t j = 0; j <= m; j++)
            prev[j] = 0;
    } else {
        int64_t best = BW_FAR;
        for (Py_ssize_t j = 0; j <= m; j++) {
            if (best < BW_FAR)
                best += 1;
            if (may_start[j])
                best = 0;
            prev[j] = best;
        }
    }
    for (Py_ssize_t i = 1; i <= n; i++) {
        const uint64_t token = item[i - 1];
        cur[0] = (!anywhere || may_start == NULL || may_start[0]) ? (int64_t)i : BW_FAR;
        int64_t low = cur[0];
        for (Py_ssize_t j = 1; j <= m; j++) {
            int64_t v = prev[j - 1] + (row[j - 1] != token);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (swaps && i >= 2 && j >= 2 && row[j - 2] == token && row[j - 1] == item[i - 2] &&
                older[j - 2] + 1 < v)
                v = older[j - 2] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            cur[j] = v;
            if (v < low)
                low = v;
        }
        if (low > max_edits)
            return -1;
        int64_t *spare = older;
        older = prev;
        prev = cur;
        cur = spare;
    }
    int64_t best = BW_FAR + 1;
    Py_ssize_t at = 0;
    for (Py_ssize_t j = 0; j <= m; j++) {
        const int64_t v = (may_end == NULL || may_end[j]) ? prev[j] : BW_FAR;
        if (v < best) {
            best = v;
            at = j;
        }
    }
    if (best > max_edits)
        return -1;
    *end = at;
    return best;
}

static int bw_bools(PyObject *obj, Py_buffer *view, Py_ssize_t n, const char *what)
{
    view->buf = NULL;
    view->obj = NULL;
    return obj == Py_None ? 0 : get_buffer(obj, view, 1, n, what);
}

static PyObject *best_window(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "best_window(item, row, max_edits, may_start, may_end, swaps)");
        return NULL;
    }
    const int swaps = PyObject_IsTrue(args[5]);
    if (swaps < 0)
        return NULL;
    const long long max_edits = PyLong_AsLongLong(args[2]);
    if (max_edits == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer bi, br, bs = {0}, be = {0};
    if (PyObject_GetBuffer(args[0], &bi, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &br, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&bi);
        return NULL;
    }
    PyObject *result = NULL;
    int64_t *table = NULL;
    uint64_t *reversed = NULL;
    uint8_t *back_end = NULL;
    const Py_ssize_t n = bi.len / 8, m = br.len / 8;
    if (bi.len % 8 || br.len % 8) {
        PyErr_SetString(PyExc_ValueError, "best_window: item and row are uint64");
        goto done;
    }
    if (bw_bools(args[3], &bs, m + 1, "best_window: may_start") < 0 ||
        bw_bools(args[4], &be, m + 1, "best_window: may_end") < 0)
        goto done;
    if (n == 0 || m == 0 || max_edits < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    const uint64_t *item = bi.buf, *row = br.buf;
    const uint8_t *may_start = bs.buf, *may_end = be.buf;
    table = PyMem_Malloc(3 * (size_t)(m + 1) * sizeof(int64_t));
    reversed = PyMem_Malloc((size_t)(n + m) * sizeof(uint64_t));
    back_end = PyMem_Malloc((size_t)(m + 1));
    if (table == NULL || reversed == NULL || back_end == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t stop = 0, back = 0;
    const int64_t distance = bw_last_row(item, n, row, m, max_edits, 1, swaps, may_start,
                                         may_end, table, &stop);
    if (distance < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* The start: the same table over both reversed, from the stretch's end backwards. */
    uint64_t *item_back = reversed, *row_back = reversed + n;
    for (Py_ssize_t i = 0; i < n; i++)
        item_back[i] = item[n - 1 - i];
    for (Py_ssize_t j = 0; j < stop; j++)
        row_back[j] = row[stop - 1 - j];
    if (may_start != NULL)
        for (Py_ssize_t j = 0; j <= stop; j++)
            back_end[j] = may_start[stop - j];
    const int64_t again = bw_last_row(item_back, n, row_back, stop, max_edits, 0, swaps, NULL,
                                      may_start != NULL ? back_end : NULL, table, &back);
    if (again != distance) {
        PyErr_SetString(PyExc_AssertionError, "best_window: the two passes disagree");
        goto done;
    }
    const Py_ssize_t first = stop - back;
    result = Py_BuildValue("(Lnn)", (long long)distance, first, stop - 1 > first ? stop - 1 : first);
done:
    PyMem_Free(table);
    PyMem_Free(reversed);
    PyMem_Free(back_end);
    if (bs.obj != NULL)
        PyBuffer_Release(&bs);
    if (be.obj != NULL)
        PyBuffer_Release(&be);
    PyBuffer_Release(&br);
    PyBuffer_Release(&bi);
    return result;
}

/* ------------------------------------------------------------------ near_groups */

PyDoc_STRVAR(near_groups_doc,
"near_groups(hashes, first, hit_row, item, ip, rp, flat, offsets, edits) -> bytes\n\n"
"simdup.algorithms.containment:near_groups_python: of the hits of items in rows laid end to\n"
"end (hashes: uint64; first: int64, row r's tokens from first[r] to first[r + 1]; hit_row,\n"
"item, ip, rp: int64, sorted by row, item and position, rp in hashes), the first hit of each\n"
"(row, item) run whose item has a stretch of its row within edits[item] of it by edit\n"
"distance (two neighbours swapped one edit), near its hits' diagonals (int64 bytes).");

static PyObject *near_groups(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError,
                        "near_groups(hashes, first, hit_row, item, ip, rp, flat, offsets, edits)");
        return NULL;
    }
    enum { HASHES, FIRST, HIT_ROW, ITEM, IP, RP, FLAT, OFFSETS, EDITS, N_BUFFERS };
    Py_buffer b[N_BUFFERS];
    int got = 0;
    PyObject *result = NULL;
    int64_t *out = NULL, *table = NULL, *diagonals = NULL;
    Py_ssize_t size = 0, table_size = 0;
    for (; got < N_BUFFERS; got++) {
        if (PyObject_GetBuffer(args[got], &b[got], PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if (b[got].len % 8) {
            got++;
            PyErr_SetString(PyExc_ValueError, "near_groups: arrays of 8-byte values");
            goto done;
        }
    }
    const Py_ssize_t n_hashes = b[HASHES].len / 8, n_rows = b[FIRST].len / 8 - 1;
    const Py_ssize_t n_hits = b[ITEM].len / 8, n_flat = b[FLAT].len / 8;
    const Py_ssize_t n_items = b[EDITS].len / 8;
    if (b[HIT_ROW].len != b[ITEM].len || b[IP].len != b[ITEM].len || b[RP].len != b[ITEM].len ||
        b[OFFSETS].len / 8 != n_items + 1 || n_rows < 0) {
        PyErr_SetString(PyExc_ValueError, "near_groups: arrays of unequal sizes");
        goto done;
    }
    const uint64_t *hashes = b[HASHES].buf, *flat = b[FLAT].buf;
    const int64_t *first = b[FIRST].buf, *hit_row = b[HIT_ROW].buf, *item = b[ITEM].buf;
    const int64_t *ip = b[IP].buf, *rp = b[RP].buf, *offsets = b[OFFSETS].buf;
    const int64_t *edits = b[EDITS].buf;
    out = PyMem_Malloc((size_t)(n_hits ? n_hits : 1) * sizeof(int64_t));
    diagonals = PyMem_Malloc((size_t)(n_hits ? n_hits : 1) * sizeof(int64_t));
    if (out == NULL || diagonals == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t lo = 0, hi; lo < n_hits; lo = hi) {
        hi = lo + 1;
        while (hi < n_hits && hit_row[hi] == hit_row[lo] && item[hi] == item[lo])
            hi++;
        const int64_t r = hit_row[lo], n = item[lo];
        if (r < 0 || r >= n_rows || n < 0 || n >= n_items || offsets[n] < 0 ||
            offsets[n + 1] < offsets[n] || offsets[n + 1] > n_flat || first[r] < 0 ||
            first[r + 1] < first[r] || first[r + 1] > n_hashes) {
            PyErr_SetString(PyExc_ValueError, "near_groups: a hit outside its arrays");
            goto done;
        }
        const int64_t e = edits[n], length = offsets[n + 1] - offsets[n];
        if (e < 0 || length == 0)
            continue;
        /* The hits' diagonals, sorted (few: insertion sort), cut into bands where they are
           more than 2e apart (see _closest_stretch). */
        Py_ssize_t count = 0;
        for (Py_ssize_t k = lo; k < hi; k++) {
            const int64_t d = rp[k] - ip[k];
            Py_ssize_t at = count++;
            while (at > 0 && diagonals[at - 1] > d) {
                diagonals[at] = diagonals[at - 1];
                at--;
            }
            diagonals[at] = d;
        }
        for (Py_ssize_t band = 0, end; band < count; band = end) {
            end = band + 1;
            while (end < count && diagonals[end] - diagonals[end - 1] <= 2 * e)
                end++;
            int64_t start = diagonals[band] - e, stop = diagonals[end - 1] + length + e;
            if (start < first[r])
                start = first[r];
            if (stop > first[r + 1])
                stop = first[r + 1];
            if (stop <= start)
                continue;
            const Py_ssize_t m = (Py_ssize_t)(stop - start);
            if (3 * (m + 1) > table_size) {
                PyMem_Free(table);
                table_size = 3 * (m + 1);
                table = PyMem_Malloc((size_t)table_size * sizeof(int64_t));
                if (table == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
            Py_ssize_t stop_at;
            if (bw_last_row(flat + offsets[n], (Py_ssize_t)length, hashes + start, m, e, 1, 1,
                            NULL, NULL, table, &stop_at) >= 0) {
                out[size++] = lo;
                break;
            }
        }
    }
    result = PyBytes_FromStringAndSize(size ? (const char *)out : "", size * 8);
done:
    PyMem_Free(out);
    PyMem_Free(table);
    PyMem_Free(diagonals);
    while (got-- > 0)
        PyBuffer_Release(&b[got]);
    return result;
}

PyMethodDef simdup_tokens_methods[] = {
    {"best_window", (PyCFunction)(void (*)(void))best_window, METH_FASTCALL, best_window_doc},
    {"near_groups", (PyCFunction)(void (*)(void))near_groups, METH_FASTCALL, near_groups_doc},
    {"row_letter_hashes", (PyCFunction)(void (*)(void))row_letter_hashes, METH_FASTCALL,
     row_letter_hashes_doc},
    {"gram_hits", (PyCFunction)(void (*)(void))gram_hits, METH_FASTCALL, gram_hits_doc},
    {"fragment_tokens", (PyCFunction)(void (*)(void))fragment_tokens, METH_FASTCALL,
     fragment_tokens_doc},
    {"row_token_hashes", (PyCFunction)(void (*)(void))row_token_hashes, METH_FASTCALL,
     row_token_hashes_doc},
    {"gram_rows", (PyCFunction)(void (*)(void))gram_rows, METH_FASTCALL, gram_rows_doc},
    {NULL, NULL, 0, NULL},
};
