/*
 * simdup.native._speedups: native versions of simdup's per-character and per-token loops.
 *
 * Every function here has a pure-Python twin that defines what it must return: the one list of
 * them is TWINS in simdup/native/__init__.py, which tests/test_native.py checks against this
 * module's functions, and the Hypothesis tests hold each function to its twin on arbitrary
 * input. The build is optional (setup.py): without a C compiler simdup runs the Python
 * versions, with the same results, only slower.
 *
 * Character classes are CPython's own, so they match the `re` module exactly:
 *   word character = Py_UNICODE_ISALNUM (what `\w` means for str patterns, minus "_"),
 *   whitespace     = Py_UNICODE_ISSPACE (what `\s` and str.split() use),
 *   CJK            = U+4E00..U+9FD5 (jieba's Han range).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define CJK_FIRST 0x4E00
#define CJK_LAST 0x9FD5

static inline int is_cjk(Py_UCS4 ch) { return ch >= CJK_FIRST && ch <= CJK_LAST; }

/* 0: separator, 1: word character, 2: whitespace (a separator that can sit inside a CJK run). */
static unsigned char ascii_class[128];

static void init_ascii_class(void)
{
    for (int c = 0; c < 128; c++) {
        if (Py_UNICODE_ISALNUM((Py_UCS4)c))
            ascii_class[c] = 1;
        else if (Py_UNICODE_ISSPACE((Py_UCS4)c))
            ascii_class[c] = 2;
        else
            ascii_class[c] = 0;
    }
}

static inline int is_word(Py_UCS4 ch)
{
    if (ch < 128)
        return ascii_class[ch] == 1;
    return !is_cjk(ch) && Py_UNICODE_ISALNUM(ch);
}

static inline int is_space(Py_UCS4 ch)
{
    if (ch < 128)
        return ascii_class[ch] == 2;
    /* Unicode has no whitespace outside U+0085..U+3000: ideographs skip the lookup. */
    return ch >= 0x85 && ch <= 0x3000 && Py_UNICODE_ISSPACE(ch);
}

/* counts[word] += 1 */
static int count_word(PyObject *counts, PyObject *text, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *word = PyUnicode_Substring(text, start, end);
    if (word == NULL)
        return -1;
    PyObject *old = PyDict_GetItemWithError(counts, word); /* borrowed */
    Py_ssize_t count = 1;
    if (old == NULL) {
        if (PyErr_Occurred()) {
            Py_DECREF(word);
            return -1;
        }
    }
    else {
        count = PyLong_AsSsize_t(old) + 1; /* only this function stores values */
    }
    PyObject *new_count = PyLong_FromSsize_t(count);
    if (new_count == NULL) {
        Py_DECREF(word);
        return -1;
    }
    int rc = PyDict_SetItem(counts, word, new_count);
    Py_DECREF(new_count);
    Py_DECREF(word);
    return rc;
}

/* Scans text[start:end): counts its words into `counts` and appends its CJK runs to `buf`, each
   run preceded by '\n' when `buf` is not empty. `buf` needs room for 2 * (end - start) more
   characters. Returns the number of runs, or -1 with an exception set. */
static Py_ssize_t scan_range(PyObject *text, int kind, const void *data, Py_ssize_t start,
                             Py_ssize_t end, PyObject *counts, Py_UCS2 *buf, Py_ssize_t *buf_len)
{
    Py_ssize_t runs = 0;
    Py_ssize_t i = start;
    while (i < end) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (is_word(ch)) {
            Py_ssize_t word_start = i++;
            while (i < end && is_word(PyUnicode_READ(kind, data, i)))
                i++;
            if (count_word(counts, text, word_start, i) < 0)
                return -1;
        }
        else if (is_cjk(ch)) {
            if (*buf_len > 0)
                buf[(*buf_len)++] = '\n';
            runs++;
            for (;;) {
                while (i < end && is_cjk(ch = PyUnicode_READ(kind, data, i))) {
                    buf[(*buf_len)++] = (Py_UCS2)ch;
                    i++;
                }
                /* Whitespace between two ideographs is layout (a re-wrapped line): skip it. */
                Py_ssize_t j = i;
                while (j < end && is_space(PyUnicode_READ(kind, data, j)))
                    j++;
                if (j > i && j < end && is_cjk(PyUnicode_READ(kind, data, j)))
                    i = j;
                else
                    break;
            }
        }
        else {
            i++;
        }
    }
    return runs;
}

static int check_text(PyObject *text, const char *name)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s() argument must be str", name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return -1;
#endif
    return 0;
}

PyDoc_STRVAR(collapse_doc,
"collapse(text) -> str\n\n"
"' '.join(text.split()): every whitespace run one space, none at the ends.");

static PyObject *collapse(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "collapse() argument must be str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    char *out = PyMem_Malloc((size_t)(n > 0 ? n : 1) * (size_t)kind);
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t len = 0;
    /* One loop per character width, so that reads and writes are plain array accesses. */
#define COLLAPSE(T)                                                                         \
    do {                                                                                    \
        const T *src = (const T *)data;                                                     \
        T *dst = (T *)out;                                                                  \
        int pending_space = 0;                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                \
            Py_UCS4 ch = src[i];                                                            \
            if (is_space(ch)) {                                                             \
                pending_space = len > 0;                                                    \
                continue;                                                                   \
            }                                                                               \
            if (pending_space) {                                                            \
                dst[len++] = ' ';                                                           \
                pending_space = 0;                                                          \
            }                                                                               \
            dst[len++] = (T)ch;                                                             \
        }                                                                                   \
    } while (0)
    if (kind == PyUnicode_1BYTE_KIND)
        COLLAPSE(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND)
        COLLAPSE(Py_UCS2);
    else
        COLLAPSE(Py_UCS4);
#undef COLLAPSE
    PyObject *result = PyUnicode_FromKindAndData(kind, out, len);
    PyMem_Free(out);
    return result;
}


/* ------------------------------------------------------------------ digest */

/* Term frequencies of one document, summed densely by code. The array is kept between calls
   (zeroing a fresh one per document would cost more than the counting); only the entries a
   call touched are reset afterwards. */
typedef struct {
    double *tf;          /* n_slots entries */
    Py_ssize_t n_slots;
    Py_ssize_t *touched; /* codes with tf > 0, in order of first use */
    Py_ssize_t n_touched, cap_touched;
    PyObject *other;     /* code -> count for codes outside [0, n_slots) other than -1 */
    Py_ssize_t tokens;   /* every token counted, stopwords included */
    Py_ssize_t stored;   /* characters of the units added to the memo */
    int owns_tf;
} Tally;

static double *scratch = NULL;
static Py_ssize_t scratch_size = 0;
static int scratch_busy = 0; /* a callback could call digest again */

static int tally_init(Tally *t, Py_ssize_t n_slots)
{
    memset(t, 0, sizeof(*t));
    t->n_slots = n_slots;
    t->other = PyDict_New();
    if (t->other == NULL)
        return -1;
    if (!scratch_busy && n_slots > scratch_size) {
        Py_ssize_t size = n_slots > 2 * scratch_size ? n_slots : 2 * scratch_size;
        double *grown = PyMem_Calloc((size_t)size, sizeof(double));
        if (grown != NULL) {
            PyMem_Free(scratch);
            scratch = grown;
            scratch_size = size;
        }
    }
    if (!scratch_busy && scratch != NULL && n_slots <= scratch_size) {
        t->tf = scratch;
        scratch_busy = 1;
    }
    else {
        t->tf = PyMem_Calloc((size_t)(n_slots > 0 ? n_slots : 1), sizeof(double));
        t->owns_tf = 1;
    }
    if (t->tf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void tally_free(Tally *t)
{
    if (t->tf != NULL) {
        if (t->owns_tf) {
            PyMem_Free(t->tf);
        }
        else {
            for (Py_ssize_t i = 0; i < t->n_touched; i++)
                t->tf[t->touched[i]] = 0.0;
            scratch_busy = 0;
        }
    }
    PyMem_Free(t->touched);
    Py_XDECREF(t->other);
}

static int tally_add(Tally *t, Py_ssize_t code, Py_ssize_t n)
{
    t->tokens += n;
    if (code >= 0 && code < t->n_slots) {
        if (t->tf[code] == 0.0) {
            if (t->n_touched == t->cap_touched) {
                Py_ssize_t cap = t->cap_touched ? 2 * t->cap_touched : 1024;
                Py_ssize_t *grown = PyMem_Realloc(t->touched, (size_t)cap * sizeof(Py_ssize_t));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
                t->touched = grown;
                t->cap_touched = cap;
            }
            t->touched[t->n_touched++] = code;
        }
        t->tf[code] += (double)n;
        return 0;
    }
    if (code == -1)
        return 0;
    PyObject *key = PyLong_FromSsize_t(code);
    if (key == NULL)
        return -1;
    PyObject *old = PyDict_GetItemWithError(t->other, key);
    if (old == NULL && PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    }
    PyObject *value = PyLong_FromSsize_t(n + (old ? PyLong_AsSsize_t(old) : 0));
    int rc = value == NULL ? -1 : PyDict_SetItem(t->other, key, value);
    Py_XDECREF(value);
    Py_DECREF(key);
    return rc;
}

/* (slots, tf, other, tokens, stored); slots in the order first met */
static PyObject *tally_result(Tally *t)
{
    PyObject *slots = PyBytes_FromStringAndSize(NULL, t->n_touched * (Py_ssize_t)sizeof(int64_t));
    PyObject *freqs = PyBytes_FromStringAndSize(NULL, t->n_touched * (Py_ssize_t)sizeof(double));
    PyObject *tokens = PyLong_FromSsize_t(t->tokens);
    PyObject *stored = PyLong_FromSsize_t(t->stored);
    PyObject *result = NULL;
    if (slots != NULL && freqs != NULL && tokens != NULL && stored != NULL) {
        int64_t *slot_out = (int64_t *)PyBytes_AS_STRING(slots);
        double *tf_out = (double *)PyBytes_AS_STRING(freqs);
        for (Py_ssize_t i = 0; i < t->n_touched; i++) {
            slot_out[i] = (int64_t)t->touched[i];
            tf_out[i] = t->tf[t->touched[i]];
        }
        result = PyTuple_Pack(5, slots, freqs, t->other, tokens, stored);
    }
    Py_XDECREF(slots);
    Py_XDECREF(freqs);
    Py_XDECREF(tokens);
    Py_XDECREF(stored);
    return result;
}

/* codes[surface], or register(surface) the first time. CODE_ERROR on error. */
#define CODE_ERROR PY_SSIZE_T_MIN
static Py_ssize_t code_of(PyObject *codes, PyObject *reg, PyObject *surface)
{
    PyObject *code = PyDict_GetItemWithError(codes, surface); /* borrowed */
    Py_ssize_t value;
    if (code != NULL) {
        value = PyLong_AsSsize_t(code);
    }
    else {
        if (PyErr_Occurred())
            return CODE_ERROR;
        code = PyObject_CallOneArg(reg, surface);
        if (code == NULL)
            return CODE_ERROR;
        value = PyLong_AsSsize_t(code);
        Py_DECREF(code);
    }
    if (value == -1 && PyErr_Occurred())
        return CODE_ERROR;
    if (value < INT32_MIN || value > INT32_MAX) { /* memo values are int32 */
        PyErr_SetString(PyExc_OverflowError, "term code does not fit 32 bits");
        return CODE_ERROR;
    }
    return value;
}

/* A growable int32 array: the codes of one unit, a memo value (code_of checked the range). */
typedef struct {
    int32_t *items;
    Py_ssize_t len, cap;
} Codes;

static int codes_push(Codes *c, Py_ssize_t code, Py_ssize_t times)
{
    if (c->len + times > c->cap) {
        Py_ssize_t cap = c->cap ? 2 * c->cap : 64;
        while (cap < c->len + times)
            cap *= 2;
        int32_t *grown = PyMem_Realloc(c->items, (size_t)cap * sizeof(int32_t));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        c->items = grown;
        c->cap = cap;
    }
    for (Py_ssize_t i = 0; i < times; i++)
        c->items[c->len++] = (int32_t)code;
    return 0;
}

static int tally_codes(Tally *t, const int32_t *codes, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (tally_add(t, codes[i], 1) < 0)
            return -1;
    return 0;
}

/* The units of a text: maximal stretches between line breaks that no token crosses (a line
   break is inside a token only when it sits in whitespace between two ideographs), with
   surrounding whitespace trimmed. Finds the unit starting at or after *pos; returns 0 at the
   end of the text. */
static int next_unit(int kind, const void *data, Py_ssize_t n, Py_ssize_t *pos,
                     Py_ssize_t *start, Py_ssize_t *end)
{
    Py_ssize_t i = *pos;
    while (i < n && is_space(PyUnicode_READ(kind, data, i)))
        i++;
    if (i >= n)
        return 0;
    *start = i;
    for (;;) {
        /* the next whitespace run that holds a line break */
        while (i < n && !is_space(PyUnicode_READ(kind, data, i)))
            i++;
        if (i >= n) {
            *end = *pos = n;
            return 1;
        }
        Py_ssize_t gap = i, newline = 0;
        while (i < n && is_space(PyUnicode_READ(kind, data, i))) {
            if (PyUnicode_READ(kind, data, i) == '\n')
                newline = 1;
            i++;
        }
        if (i >= n) {
            *end = gap;
            *pos = n;
            return 1;
        }
        if (newline && !(is_cjk(PyUnicode_READ(kind, data, gap - 1)) &&
                         is_cjk(PyUnicode_READ(kind, data, i)))) {
            *end = gap;
            *pos = i;
            return 1;
        }
    }
}

/* ---- the memo of units, natively (unit_memo) ---- */

/* A memo of units (simdup.textscan.digest_python's `memo`: a unit -> the int32 codes of its
   tokens) kept in a capsule: the units by a hash of their code points, compared exactly, their
   code points and codes in two growing arrays. digest looks a unit up where it lies in the
   text: no str is made for it, no SipHash computed, and no dict entry, key and bytes value
   fetched from three places in memory (a dict lookup was ~1/6 of a worker's time). */
typedef struct {
    uint64_t hash;
    Py_ssize_t chars_at, codes_at; /* chars[chars_at:chars_at + length], codes[codes_at:...] */
    int32_t length;                /* 0: an empty slot (a unit is never empty) */
    int32_t n_codes;
} UnitSlot;

typedef struct {
    UnitSlot *slots;
    Py_ssize_t mask, used;
    Py_UCS4 *chars;
    Py_ssize_t n_chars, chars_capacity;
    int32_t *codes;
    Py_ssize_t n_codes, codes_capacity;
} UnitMemo;

#define UNIT_MEMO "simdup.native._speedups.unit_memo"
#define UNIT_MEMO_FIRST_SLOTS 1024

static inline uint64_t mh_mix(uint64_t x);

/* The hash of text[start:end]'s code points (FNV-1a, then mixed: the low bits pick a slot),
   whatever the width of the str's characters. One loop per width: PyUnicode_READ would test
   the width at every character. */
#define UNIT_HASH_LOOP(type)                                                                  \
    for (const type *c = (const type *)data + start, *stop = (const type *)data + end;        \
         c < stop; c++)                                                                       \
        h = (h ^ (uint64_t)*c) * UINT64_C(0x100000001B3)

static inline uint64_t unit_hash(int kind, const void *data, Py_ssize_t start, Py_ssize_t end)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    if (kind == PyUnicode_1BYTE_KIND)
        UNIT_HASH_LOOP(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND)
        UNIT_HASH_LOOP(Py_UCS2);
    else
        UNIT_HASH_LOOP(Py_UCS4);
    return mh_mix(h);
}

/* Whether known[:length] are the code points of text[start:start + length]. */
#define UNIT_SAME_LOOP(type)                                                                  \
    do {                                                                                      \
        const type *c = (const type *)data + start;                                           \
        for (Py_ssize_t p = 0; p < length; p++)                                               \
            if (known[p] != c[p])                                                             \
                return 0;                                                                     \
        return 1;                                                                             \
    } while (0)

static inline int unit_same(const Py_UCS4 *known, int kind, const void *data, Py_ssize_t start,
                            Py_ssize_t length)
{
    if (kind == PyUnicode_1BYTE_KIND)
        UNIT_SAME_LOOP(Py_UCS1);
    if (kind == PyUnicode_2BYTE_KIND)
        UNIT_SAME_LOOP(Py_UCS2);
    return memcmp(known, (const Py_UCS4 *)data + start, (size_t)length * sizeof(Py_UCS4)) == 0;
}

/* The slot of text[start:end] (of `hash`): the one holding it, or the empty one where it
   would go. */
static inline UnitSlot *unit_slot(const UnitMemo *m, int kind, const void *data,
                                  Py_ssize_t start, Py_ssize_t end, uint64_t hash)
{
    const Py_ssize_t length = end - start;
    for (Py_ssize_t s = (Py_ssize_t)(hash & (uint64_t)m->mask);; s = (s + 1) & m->mask) {
        UnitSlot *e = &m->slots[s];
        if (!e->length)
            return e;
        if (e->hash == hash && e->length == length &&
            unit_same(m->chars + e->chars_at, kind, data, start, length))
            return e;
    }
}

/* *items (of *capacity) with room for `more` after `used`; -1 with MemoryError. */
static int unit_memo_room(void **items, Py_ssize_t *capacity, Py_ssize_t used, Py_ssize_t more,
                          size_t item_size)
{
    if (used + more <= *capacity)
        return 0;
    Py_ssize_t grown = *capacity ? *capacity : 4096;
    while (grown < used + more) {
        if ((size_t)grown > (size_t)PY_SSIZE_T_MAX / 2 / item_size) {
            PyErr_NoMemory();
            return -1;
        }
        grown *= 2;
    }
    void *bigger = PyMem_Realloc(*items, (size_t)grown * item_size);
    if (bigger == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = bigger;
    *capacity = grown;
    return 0;
}

/* Twice the slots of an open-addressed table (`mask`, `slots` of `Slot`s with a `hash` and a
   `length` that is 0 in an empty slot), the entries placed again by their hashes: `name`
   (Table *t) -> 0, or -1 with MemoryError. The memo of units and the edge vocabulary grow so. */
#define DEFINE_TABLE_GROW(name, Table, Slot)                                                  \
    static int name(Table *t)                                                                 \
    {                                                                                         \
        const Py_ssize_t capacity = 2 * (t->mask + 1);                                        \
        if ((size_t)capacity > (size_t)PY_SSIZE_T_MAX / sizeof(Slot)) {                       \
            PyErr_NoMemory();                                                                 \
            return -1;                                                                        \
        }                                                                                     \
        Slot *slots = PyMem_Calloc((size_t)capacity, sizeof(Slot));                           \
        if (slots == NULL) {                                                                  \
            PyErr_NoMemory();                                                                 \
            return -1;                                                                        \
        }                                                                                     \
        for (Py_ssize_t s = 0; s <= t->mask; s++) {                                           \
            if (!t->slots[s].length)                                                          \
                continue;                                                                     \
            Py_ssize_t at = (Py_ssize_t)(t->slots[s].hash & (uint64_t)(capacity - 1));        \
            while (slots[at].length)                                                          \
                at = (at + 1) & (capacity - 1);                                               \
            slots[at] = t->slots[s];                                                          \
        }                                                                                     \
        PyMem_Free(t->slots);                                                                 \
        t->slots = slots;                                                                     \
        t->mask = capacity - 1;                                                               \
        return 0;                                                                             \
    }

DEFINE_TABLE_GROW(unit_memo_grow, UnitMemo, UnitSlot)

/* memo[unit] = codes[:n] (a unit held already keeps its codes: they are the same). */
static int unit_memo_put(UnitMemo *m, PyObject *unit, const int32_t *codes, Py_ssize_t n)
{
    const int kind = PyUnicode_KIND(unit);
    const void *data = PyUnicode_DATA(unit);
    const Py_ssize_t length = PyUnicode_GET_LENGTH(unit);
    if (length <= 0 || length > INT32_MAX || n > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a memo unit must hold 1 to 2**31-1 characters");
        return -1;
    }
    const uint64_t hash = unit_hash(kind, data, 0, length);
    UnitSlot *e = unit_slot(m, kind, data, 0, length, hash);
    if (e->length)
        return 0;
    if (2 * (m->used + 1) > m->mask + 1) {
        if (unit_memo_grow(m) < 0)
            return -1;
        e = unit_slot(m, kind, data, 0, length, hash);
    }
    if (unit_memo_room((void **)&m->chars, &m->chars_capacity, m->n_chars, length,
                       sizeof(Py_UCS4)) < 0 ||
        unit_memo_room((void **)&m->codes, &m->codes_capacity, m->n_codes, n, sizeof(int32_t)) < 0)
        return -1;
    for (Py_ssize_t p = 0; p < length; p++)
        m->chars[m->n_chars + p] = PyUnicode_READ(kind, data, p);
    if (n)
        memcpy(m->codes + m->n_codes, codes, (size_t)n * sizeof(int32_t));
    *e = (UnitSlot){hash, m->n_chars, m->n_codes, (int32_t)length, (int32_t)n};
    m->n_chars += length;
    m->n_codes += n;
    m->used++;
    return 0;
}

static void unit_memo_release(UnitMemo *m)
{
    PyMem_Free(m->slots);
    PyMem_Free(m->chars);
    PyMem_Free(m->codes);
    memset(m, 0, sizeof(*m));
}

/* An empty memo (its arrays released): -1 with MemoryError. */
static int unit_memo_reset(UnitMemo *m)
{
    unit_memo_release(m);
    m->slots = PyMem_Calloc(UNIT_MEMO_FIRST_SLOTS, sizeof(UnitSlot));
    if (m->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    m->mask = UNIT_MEMO_FIRST_SLOTS - 1;
    return 0;
}

static void unit_memo_free(PyObject *capsule)
{
    UnitMemo *m = PyCapsule_GetPointer(capsule, UNIT_MEMO);
    if (m == NULL)
        return;
    unit_memo_release(m);
    PyMem_Free(m);
}

PyDoc_STRVAR(unit_memo_doc,
"unit_memo() -> memo\n\n"
"A new, empty memo of units for digest (an opaque capsule; the Python version is a dict).");

static PyObject *unit_memo(PyObject *module, PyObject *unused)
{
    UnitMemo *m = PyMem_Calloc(1, sizeof(UnitMemo));
    if (m == NULL)
        return PyErr_NoMemory();
    if (unit_memo_reset(m) < 0) {
        PyMem_Free(m);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(m, UNIT_MEMO, unit_memo_free);
    if (capsule == NULL) {
        unit_memo_release(m);
        PyMem_Free(m);
    }
    return capsule;
}

PyDoc_STRVAR(unit_memo_size_doc,
"unit_memo_size(memo) -> int\n\n"
"How many units `memo` holds (len() of the Python version's dict).");

static PyObject *unit_memo_size(PyObject *module, PyObject *capsule)
{
    UnitMemo *m = PyCapsule_GetPointer(capsule, UNIT_MEMO);
    return m == NULL ? NULL : PyLong_FromSsize_t(m->used);
}

PyDoc_STRVAR(unit_memo_clear_doc,
"unit_memo_clear(memo) -> None\n\n"
"Forget every unit (and give the memory back).");

static PyObject *unit_memo_clear(PyObject *module, PyObject *capsule)
{
    UnitMemo *m = PyCapsule_GetPointer(capsule, UNIT_MEMO);
    if (m == NULL || unit_memo_reset(m) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(unit_memo_get_doc,
"unit_memo_get(memo, unit) -> bytes | None\n\n"
"The codes of `unit` (native int32), as the Python version's dict.get gives them.");

static PyObject *unit_memo_get(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "unit_memo_get() takes a memo and a str");
        return NULL;
    }
    UnitMemo *m = PyCapsule_GetPointer(args[0], UNIT_MEMO);
    if (m == NULL)
        return NULL;
    PyObject *unit = args[1];
    const int kind = PyUnicode_KIND(unit);
    const void *data = PyUnicode_DATA(unit);
    const Py_ssize_t length = PyUnicode_GET_LENGTH(unit);
    if (length == 0)
        Py_RETURN_NONE;
    const UnitSlot *e = unit_slot(m, kind, data, 0, length, unit_hash(kind, data, 0, length));
    if (!e->length)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)(m->codes + e->codes_at),
                                     (Py_ssize_t)e->n_codes * (Py_ssize_t)sizeof(int32_t));
}

PyDoc_STRVAR(unit_memo_units_doc,
"unit_memo_units(memo) -> list[str]\n\n"
"The units `memo` holds (the Python version's dict keys), in no particular order.");

static PyObject *unit_memo_units(PyObject *module, PyObject *capsule)
{
    UnitMemo *m = PyCapsule_GetPointer(capsule, UNIT_MEMO);
    if (m == NULL)
        return NULL;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t s = 0; out != NULL && s <= m->mask; s++) {
        const UnitSlot *e = &m->slots[s];
        if (!e->length)
            continue;
        PyObject *unit =
            PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, m->chars + e->chars_at, e->length);
        if (unit == NULL || PyList_Append(out, unit) < 0)
            Py_CLEAR(out);
        Py_XDECREF(unit);
    }
    return out;
}

#define SEGMENT_CHUNK ((Py_ssize_t)1 << 18)

/* Units missed[lo:hi] (`chars` characters in all): scanned one by one, their CJK runs
   segmented in one `cut` call, their codes (words, then the tokens of each run; a "\n" token
   separates consecutive runs) stored in the memo and counted. */
static int digest_units(Tally *t, PyObject *missed, Py_ssize_t lo, Py_ssize_t hi,
                        Py_ssize_t chars, PyObject *memo, UnitMemo *native_memo,
                        PyObject *codes, PyObject *reg, PyObject *cut, Py_ssize_t max_unit)
{
    int rc = -1;
    Py_ssize_t n = hi - lo;
    PyObject *words = PyList_New(n), *tokens = NULL;
    Py_ssize_t *runs = PyMem_Malloc((size_t)n * sizeof(Py_ssize_t));
    Py_UCS2 *buf = PyMem_Malloc((size_t)(2 * chars + 1) * sizeof(Py_UCS2));
    Codes unit_codes = {NULL, 0, 0};
    if (words == NULL || runs == NULL || buf == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t buf_len = 0, total_runs = 0;
    for (Py_ssize_t u = 0; u < n; u++) {
        PyObject *unit = PyList_GET_ITEM(missed, lo + u);
        PyObject *counts = PyDict_New();
        if (counts == NULL)
            goto done;
        PyList_SET_ITEM(words, u, counts);
        runs[u] = scan_range(unit, PyUnicode_KIND(unit), PyUnicode_DATA(unit), 0,
                             PyUnicode_GET_LENGTH(unit), counts, buf, &buf_len);
        if (runs[u] < 0)
            goto done;
        total_runs += runs[u];
    }
    if (total_runs > 0) {
        PyObject *joined = PyUnicode_FromKindAndData(PyUnicode_2BYTE_KIND, buf, buf_len);
        if (joined == NULL)
            goto done;
        tokens = PyObject_CallOneArg(cut, joined);
        Py_DECREF(joined);
        if (tokens == NULL)
            goto done;
        if (!PyList_Check(tokens)) {
            PyErr_SetString(PyExc_TypeError, "cut() must return a list");
            goto done;
        }
    }
    Py_ssize_t cursor = 0, n_tokens = tokens ? PyList_GET_SIZE(tokens) : 0, runs_seen = 0;
    for (Py_ssize_t u = 0; u < n; u++) {
        unit_codes.len = 0;
        Py_ssize_t wpos = 0;
        PyObject *word, *count;
        while (PyDict_Next(PyList_GET_ITEM(words, u), &wpos, &word, &count)) {
            Py_ssize_t code = code_of(codes, reg, word);
            if (code == CODE_ERROR || codes_push(&unit_codes, code, PyLong_AsSsize_t(count)) < 0)
                goto done;
        }
        for (Py_ssize_t r = 0; r < runs[u]; r++, runs_seen++) {
            if (runs_seen > 0) {
                PyObject *sep = cursor < n_tokens ? PyList_GET_ITEM(tokens, cursor) : NULL;
                if (sep == NULL || !PyUnicode_Check(sep) || PyUnicode_GET_LENGTH(sep) != 1 ||
                    PyUnicode_READ_CHAR(sep, 0) != '\n') {
                    PyErr_SetString(PyExc_RuntimeError,
                                    "segmenter output does not match its input's runs");
                    goto done;
                }
                cursor++;
            }
            while (cursor < n_tokens) {
                PyObject *token = PyList_GET_ITEM(tokens, cursor);
                if (PyUnicode_Check(token) && PyUnicode_GET_LENGTH(token) == 1 &&
                    PyUnicode_READ_CHAR(token, 0) == '\n')
                    break;
                Py_INCREF(token); /* register may run arbitrary code */
                Py_ssize_t code = code_of(codes, reg, token);
                Py_DECREF(token);
                if (code == CODE_ERROR || codes_push(&unit_codes, code, 1) < 0)
                    goto done;
                cursor++;
            }
        }
        PyObject *unit = PyList_GET_ITEM(missed, lo + u);
        if (PyUnicode_GET_LENGTH(unit) <= max_unit) {
            if (native_memo != NULL) {
                if (unit_memo_put(native_memo, unit, unit_codes.items, unit_codes.len) < 0)
                    goto done;
            }
            else {
                PyObject *value = PyBytes_FromStringAndSize(
                    (const char *)unit_codes.items, unit_codes.len * (Py_ssize_t)sizeof(int32_t));
                if (value == NULL)
                    goto done;
                int set = PyDict_SetItem(memo, unit, value);
                Py_DECREF(value);
                if (set < 0)
                    goto done;
            }
            t->stored += PyUnicode_GET_LENGTH(unit);
        }
        if (tally_codes(t, unit_codes.items, unit_codes.len) < 0)
            goto done;
    }
    if (cursor != n_tokens) {
        PyErr_SetString(PyExc_RuntimeError, "segmenter output does not match its input's runs");
        goto done;
    }
    rc = 0;
done:
    Py_XDECREF(words);
    Py_XDECREF(tokens);
    PyMem_Free(runs);
    PyMem_Free(buf);
    PyMem_Free(unit_codes.items);
    return rc;
}

PyDoc_STRVAR(digest_doc,
"digest(text, memo, codes, register, cut, n_slots, max_unit)\n"
"    -> (slots, tf, other, tokens, stored)\n\n"
"Term frequencies of text by code, with a memo of its units. See\n"
"simdup.textscan.digest_python for the definition.");

static PyObject *digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "digest() takes 7 arguments");
        return NULL;
    }
    PyObject *text = args[0], *memo = args[1], *codes = args[2], *reg = args[3], *cut = args[4];
    if (check_text(text, "digest") < 0)
        return NULL;
    /* The memo: a dict, or a native one (unit_memo). */
    UnitMemo *native_memo = NULL;
    if (PyCapsule_CheckExact(memo)) {
        native_memo = PyCapsule_GetPointer(memo, UNIT_MEMO);
        if (native_memo == NULL)
            return NULL;
    }
    else if (!PyDict_Check(memo)) {
        PyErr_SetString(PyExc_TypeError, "digest() needs a dict or a unit_memo for memo");
        return NULL;
    }
    if (!PyDict_Check(codes)) {
        PyErr_SetString(PyExc_TypeError, "digest() needs a dict for codes");
        return NULL;
    }
    Py_ssize_t n_slots = PyLong_AsSsize_t(args[5]);
    Py_ssize_t max_unit = PyLong_AsSsize_t(args[6]);
    if (n_slots < 0 || max_unit < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "n_slots and max_unit must be >= 0");
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);

    Tally t;
    PyObject *missed = NULL, *result = NULL;
    if (tally_init(&t, n_slots) < 0)
        goto done;
    missed = PyList_New(0);
    if (missed == NULL)
        goto done;

    /* 1. Units found in the memo are counted from it; the others are collected. */
    Py_ssize_t pos = 0, start, end;
    while (next_unit(kind, data, n, &pos, &start, &end)) {
        if (native_memo != NULL) { /* looked up where it lies: a str only for a unit missed */
            const UnitSlot *e = unit_slot(native_memo, kind, data, start, end,
                                          unit_hash(kind, data, start, end));
            if (e->length) {
                if (tally_codes(&t, native_memo->codes + e->codes_at, e->n_codes) < 0)
                    goto done;
                continue;
            }
        }
        PyObject *unit = PyUnicode_Substring(text, start, end);
        if (unit == NULL)
            goto done;
        PyObject *hit = native_memo ? NULL : PyDict_GetItemWithError(memo, unit); /* borrowed */
        int rc;
        if (hit != NULL) {
            rc = PyBytes_Check(hit)
                     ? tally_codes(&t, (const int32_t *)PyBytes_AS_STRING(hit),
                                   PyBytes_GET_SIZE(hit) / (Py_ssize_t)sizeof(int32_t))
                     : (PyErr_SetString(PyExc_TypeError, "memo values must be bytes"), -1);
        }
        else {
            rc = PyErr_Occurred() ? -1 : PyList_Append(missed, unit);
        }
        Py_DECREF(unit);
        if (rc < 0)
            goto done;
    }

    /* 2. The other units, in groups of about SEGMENT_CHUNK characters (so that the token list
       of one segmenter call stays bounded however long the text). */
    Py_ssize_t n_missed = PyList_GET_SIZE(missed);
    for (Py_ssize_t lo = 0, hi; lo < n_missed; lo = hi) {
        Py_ssize_t chars = PyUnicode_GET_LENGTH(PyList_GET_ITEM(missed, lo));
        for (hi = lo + 1; hi < n_missed; hi++) {
            Py_ssize_t more = PyUnicode_GET_LENGTH(PyList_GET_ITEM(missed, hi));
            if (chars + more > SEGMENT_CHUNK)
                break;
            chars += more;
        }
        if (digest_units(&t, missed, lo, hi, chars, memo, native_memo, codes, reg, cut,
                         max_unit) < 0)
            goto done;
    }
    result = tally_result(&t);

done:
    tally_free(&t);
    Py_XDECREF(missed);
    return result;
}

/* args[0] and args[1] as contiguous buffers; -1 with an exception set (nothing to release). */
static int two_buffers(PyObject *const *args, Py_buffer *a, Py_buffer *b)
{
    if (PyObject_GetBuffer(args[0], a, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (PyObject_GetBuffer(args[1], b, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(a);
        return -1;
    }
    return 0;
}

/* args[0], args[1] and args[2] as contiguous buffers; -1 with an exception set (nothing to
   release). */
static int three_buffers(PyObject *const *args, Py_buffer *a, Py_buffer *b, Py_buffer *c)
{
    if (two_buffers(args, a, b) < 0)
        return -1;
    if (PyObject_GetBuffer(args[2], c, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(b);
        PyBuffer_Release(a);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(simhash_doc,
"simhash(hashes, weights) -> int\n\n"
"Charikar SimHash of uint64 hashes with float64 weights that are integers of magnitude below\n"
"2**24 (simhash.scaled_weights): bit i is 1 when the weights of hashes with bit i set outweigh\n"
"the others.");

/* The fingerprint of n hashes with integer weights wi (see simhash_doc). */
static uint64_t simhash_of(const uint64_t *h, const int64_t *wi, Py_ssize_t n)
{
    /* Integer sums (the weights are integers below 2**24): exact in any order. Bit by bit over
       all hashes, branch-free, so that the compiler can vectorise the inner loop with a
       constant shift. counter_b = 2 * (weight of hashes with bit b set) - total weight. */
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += wi[i];
    int64_t with_bit[64];
    for (int b = 0; b < 64; b++) {
        int64_t sum = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            sum += wi[i] & -(int64_t)((h[i] >> b) & 1);
        with_bit[b] = sum;
    }
    uint64_t fp = 0;
    for (int b = 0; b < 64; b++)
        if (2 * with_bit[b] - total > 0)
            fp |= (uint64_t)1 << b;
    return fp;
}

/* wi = the weights w scaled as simdup/simhash.py:scaled_weights scales them (by 2**(24 - e),
   e the exponent of the largest magnitude: ldexp is exact; rint rounds half to even, as
   numpy's rint does). -1 when a weight is not finite. */
static int scale_weights(const double *w, Py_ssize_t n, int64_t *wi)
{
    double top = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!isfinite(w[i]))
            return -1;
        if (fabs(w[i]) > top)
            top = fabs(w[i]);
    }
    int exponent = 0;
    if (top > 0.0)
        frexp(top, &exponent); /* top < 2**exponent */
    const int shift = 24 - exponent;
    for (Py_ssize_t i = 0; i < n; i++)
        wi[i] = (int64_t)rint(ldexp(w[i], shift));
    return 0;
}

/* simhash(hashes, weights), or with `scale` the weights first scaled (scale_weights). */
static PyObject *simhash_common(PyObject *const *args, Py_ssize_t nargs, int scale,
                                const char *name)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes 2 arguments", name);
        return NULL;
    }
    Py_buffer hb, wb;
    if (two_buffers(args, &hb, &wb) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = hb.len / 8;
    if (hb.len % 8 || wb.len != hb.len) {
        PyErr_Format(PyExc_ValueError, "%s() needs n uint64 hashes and n float64 weights", name);
        goto done;
    }
    const uint64_t *h = (const uint64_t *)hb.buf;
    const double *w = (const double *)wb.buf;
    int64_t *wi = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (wi == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (scale) {
        if (scale_weights(w, n, wi) < 0) {
            PyMem_Free(wi);
            PyErr_Format(PyExc_ValueError, "%s() needs finite weights", name);
            goto done;
        }
    }
    else {
        for (Py_ssize_t i = 0; i < n; i++)
            wi[i] = (int64_t)w[i];
    }
    result = PyLong_FromUnsignedLongLong(simhash_of(h, wi, n));
    PyMem_Free(wi);
done:
    PyBuffer_Release(&hb);
    PyBuffer_Release(&wb);
    return result;
}

static PyObject *simhash(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return simhash_common(args, nargs, 0, "simhash");
}

PyDoc_STRVAR(simhash_of_weights_doc,
"simhash_of_weights(hashes, weights) -> int\n\n"
"simhash(hashes, scaled_weights(weights)) in one call (simdup/simhash.py): the finite\n"
"float64 weights scaled by a power of two so that the largest magnitude is below 2**24,\n"
"rounded half to even.");

static PyObject *simhash_of_weights(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return simhash_common(args, nargs, 1, "simhash_of_weights");
}

PyDoc_STRVAR(jaccard_doc,
"bottom_k_jaccard(a, b, k) -> float\n\n"
"Jaccard estimate from two bottom-k sketches (sorted distinct uint32, native byte order).\n"
"See simdup.sketch.estimate_jaccard for the definition.");

/* The estimate of simdup.sketch.estimate_jaccard from two sorted distinct uint32 sketches. */
static double sketch_estimate(const uint32_t *a, Py_ssize_t na, const uint32_t *b, Py_ssize_t nb,
                              Py_ssize_t k)
{
    Py_ssize_t i = 0, j = 0, common = 0, taken = 0;
    if (na == 0 && nb == 0)
        return 1.0;
    if (na < k && nb < k) {
        /* Both sketches hold their whole sets: exact. */
        while (i < na && j < nb) {
            if (a[i] == b[j]) {
                common++;
                i++;
                j++;
            }
            else if (a[i] < b[j]) {
                i++;
            }
            else {
                j++;
            }
        }
        return (double)common / (double)(na + nb - common);
    }
    /* The k smallest values of the union, and how many of them both hold. */
    while (taken < k && (i < na || j < nb)) {
        if (i < na && j < nb && a[i] == b[j]) {
            common++;
            i++;
            j++;
        }
        else if (j >= nb || (i < na && a[i] < b[j])) {
            i++;
        }
        else {
            j++;
        }
        taken++;
    }
    return (double)common / (double)taken;
}

static PyObject *bottom_k_jaccard(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "bottom_k_jaccard() takes 3 arguments");
        return NULL;
    }
    Py_buffer ab, bb;
    Py_ssize_t k = PyLong_AsSsize_t(args[2]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (two_buffers(args, &ab, &bb) < 0)
        return NULL;
    double result = sketch_estimate((const uint32_t *)ab.buf, ab.len / 4,
                                    (const uint32_t *)bb.buf, bb.len / 4, k);
    PyBuffer_Release(&ab);
    PyBuffer_Release(&bb);
    return PyFloat_FromDouble(result);
}

PyDoc_STRVAR(jaccard_pairs_doc,
"bottom_k_jaccard_pairs(sketches, i, j, k) -> bytes\n\n"
"bottom_k_jaccard(sketches[i[n]], sketches[j[n]], k) for every n, as native float64: `sketches`\n"
"a list of bytes, `i` and `j` int64 buffers of the same length.");

static PyObject *bottom_k_jaccard_pairs(PyObject *module, PyObject *const *args,
                                        Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "bottom_k_jaccard_pairs() takes 4 arguments");
        return NULL;
    }
    PyObject *sketches = args[0];
    if (!PyList_Check(sketches)) {
        PyErr_SetString(PyExc_TypeError, "bottom_k_jaccard_pairs() needs a list of sketches");
        return NULL;
    }
    Py_ssize_t k = PyLong_AsSsize_t(args[3]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer ib, jb;
    if (two_buffers(args + 1, &ib, &jb) < 0)
        return NULL;
    PyObject *result = NULL;
    if (ib.len != jb.len || ib.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "bottom_k_jaccard_pairs() needs two int64 arrays of one length");
        goto done;
    }
    const Py_ssize_t n = ib.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t count = PyList_GET_SIZE(sketches);
    const int64_t *ii = (const int64_t *)ib.buf, *jj = (const int64_t *)jb.buf;
    result = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double));
    if (result == NULL)
        goto done;
    double *out = (double *)PyBytes_AS_STRING(result);
    for (Py_ssize_t p = 0; p < n; p++) {
        if (ii[p] < 0 || ii[p] >= count || jj[p] < 0 || jj[p] >= count) {
            PyErr_SetString(PyExc_IndexError, "bottom_k_jaccard_pairs() index out of range");
            Py_CLEAR(result);
            goto done;
        }
        PyObject *a = PyList_GET_ITEM(sketches, ii[p]), *b = PyList_GET_ITEM(sketches, jj[p]);
        if (!PyBytes_Check(a) || !PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "bottom_k_jaccard_pairs() needs bytes sketches");
            Py_CLEAR(result);
            goto done;
        }
        out[p] = sketch_estimate((const uint32_t *)PyBytes_AS_STRING(a), PyBytes_GET_SIZE(a) / 4,
                                 (const uint32_t *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b) / 4,
                                 k);
    }
done:
    PyBuffer_Release(&ib);
    PyBuffer_Release(&jb);
    return result;
}

PyDoc_STRVAR(count_controls_doc,
"count_controls(text, limit) -> int\n\n"
"How many of the first `limit` characters are C0/C1 controls other than \\t \\n \\v \\f \\r\n"
"(U+0000-0008, U+000E-001F, U+007F-009F).");

static PyObject *count_controls(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "count_controls() takes 2 arguments");
        return NULL;
    }
    if (check_text(args[0], "count_controls") < 0)
        return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(args[1]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    const int kind = PyUnicode_KIND(args[0]);
    const void *data = PyUnicode_DATA(args[0]);
    Py_ssize_t n = PyUnicode_GET_LENGTH(args[0]), count = 0;
    if (limit < n)
        n = limit < 0 ? 0 : limit;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        count += ch <= 0x08 || (ch >= 0x0E && ch <= 0x1F) || (ch >= 0x7F && ch <= 0x9F);
    }
    return PyLong_FromSsize_t(count);
}

/* ------------------------------------------------------------------ strip_urls */

/* ch equals the lower-case ASCII letter `lower` ignoring case, as Python's re sees it. */
static inline int letter(Py_UCS4 ch, char lower)
{
    return ch == (Py_UCS4)lower || ch == (Py_UCS4)(lower - 32) || (lower == 's' && ch == 0x17F);
}

static inline int url_char(Py_UCS4 ch)
{
    return !is_space(ch) && ch != '<' && ch != '>' && ch != '"' && ch != '\'' && ch != '(' &&
           ch != ')' && ch != '[' && ch != ']';
}

/* End of the URL starting at i (see simdup.normalize._URL), or -1. */
static Py_ssize_t url_at(int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
#define AT(k, c) ((k) < n && letter(PyUnicode_READ(kind, data, (k)), (c)))
#define IS(k, c) ((k) < n && PyUnicode_READ(kind, data, (k)) == (Py_UCS4)(c))
    Py_UCS4 ch = PyUnicode_READ(kind, data, i);
    Py_ssize_t j;
    if (letter(ch, 'h') && AT(i + 1, 't') && AT(i + 2, 't') && AT(i + 3, 'p')) {
        j = i + 4;
        if (AT(j, 's'))
            j++;
        if (!(IS(j, ':') && IS(j + 1, '/') && IS(j + 2, '/')))
            return -1;
        j += 3;
    }
    else if (letter(ch, 'f') && AT(i + 1, 't') && AT(i + 2, 'p') && IS(i + 3, ':') &&
             IS(i + 4, '/') && IS(i + 5, '/')) {
        j = i + 6;
    }
    else if (letter(ch, 'w') && AT(i + 1, 'w') && AT(i + 2, 'w') && IS(i + 3, '.')) {
        j = i + 4;
    }
    else {
        return -1;
    }
#undef AT
#undef IS
    Py_ssize_t end = j;
    while (end < n && url_char(PyUnicode_READ(kind, data, end)))
        end++;
    return end > j ? end : -1;
}

/* text and the optional list of removed pieces of strip_urls and strip_link_targets; -1 with
   an exception set when the arguments are wrong. */
static int text_and_removed(PyObject *const *args, Py_ssize_t nargs, const char *name,
                            PyObject **text, PyObject **removed)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes 1 or 2 arguments", name);
        return -1;
    }
    *text = args[0];
    *removed = nargs == 2 && args[1] != Py_None ? args[1] : NULL;
    if (check_text(*text, name) < 0)
        return -1;
    if (*removed != NULL && !PyList_Check(*removed)) {
        PyErr_Format(PyExc_TypeError, "%s() needs a list for the removed pieces", name);
        return -1;
    }
    return 0;
}

/* removed.append(text[start:end]) when there is a list. */
static int append_removed(PyObject *removed, PyObject *text, Py_ssize_t start, Py_ssize_t end)
{
    if (removed == NULL)
        return 0;
    PyObject *piece = PyUnicode_Substring(text, start, end);
    if (piece == NULL)
        return -1;
    int rc = PyList_Append(removed, piece);
    Py_DECREF(piece);
    return rc;
}

/* A text with spans replaced, built as they are found: nothing is copied until the first
   span (the result is then never longer than the text: every replacement is shorter than
   what it replaces), and each span removed is appended to `removed` when there is a list. */
typedef struct {
    PyObject *text, *removed;
    int kind;
    const void *data;
    Py_ssize_t n, copied, len;
    char *out;
} Rewrite;

static void rewrite_init(Rewrite *r, PyObject *text, PyObject *removed)
{
    r->text = text;
    r->removed = removed;
    r->kind = PyUnicode_KIND(text);
    r->data = PyUnicode_DATA(text);
    r->n = PyUnicode_GET_LENGTH(text);
    r->copied = r->len = 0;
    r->out = NULL;
}

/* text[start:end] made `replacement` (ASCII, shorter than the span). -1 with an exception. */
static int rewrite_span(Rewrite *r, Py_ssize_t start, Py_ssize_t end, const char *replacement)
{
    const int kind = r->kind;
    if (r->out == NULL && (r->out = PyMem_Malloc((size_t)r->n * (size_t)kind)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (append_removed(r->removed, r->text, start, end) < 0)
        return -1;
    memcpy(r->out + r->len * kind, (const char *)r->data + r->copied * kind,
           (size_t)((start - r->copied) * kind));
    r->len += start - r->copied;
    for (const char *c = replacement; *c; c++)
        PyUnicode_WRITE(kind, r->out, r->len++, (Py_UCS4)*c);
    r->copied = end;
    return 0;
}

/* The new text (the same object when nothing was replaced); frees the buffer either way.
   `ok` 0: an error is set already, NULL is returned. */
static PyObject *rewrite_finish(Rewrite *r, int ok)
{
    PyObject *result = NULL;
    if (ok && r->out == NULL) {
        result = Py_NewRef(r->text);
    }
    else if (ok) {
        const int kind = r->kind;
        memcpy(r->out + r->len * kind, (const char *)r->data + r->copied * kind,
               (size_t)((r->n - r->copied) * kind));
        result = PyUnicode_FromKindAndData(kind, r->out, r->len + r->n - r->copied);
    }
    PyMem_Free(r->out);
    return result;
}

PyDoc_STRVAR(strip_urls_doc,
"strip_urls(text, removed=None) -> str\n\n"
"simdup.normalize.strip_urls_python: every http(s)://, ftp:// or www. URL (any case) made\n"
"one space; each URL appended to the list `removed` when given.");

static PyObject *strip_urls(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text, *removed;
    if (text_and_removed(args, nargs, "strip_urls", &text, &removed) < 0)
        return NULL;
    Rewrite r;
    rewrite_init(&r, text, removed);
    for (Py_ssize_t i = 0; i < r.n; i++) {
        Py_UCS4 ch = PyUnicode_READ(r.kind, r.data, i);
        if ((ch | 0x20) != 'h' && (ch | 0x20) != 'f' && (ch | 0x20) != 'w')
            continue;
        Py_ssize_t end = url_at(r.kind, r.data, r.n, i);
        if (end < 0)
            continue;
        if (rewrite_span(&r, i, end, " ") < 0)
            return rewrite_finish(&r, 0);
        i = end - 1;
    }
    return rewrite_finish(&r, 1);
}

/* ------------------------------------------------------------------ markup_marks */

/* Bits of markup_marks (simdup.normalize.MARK_*). */
#define MARK_FRONT_MATTER 1 /* starts with "---" */
#define MARK_TAG 2          /* "<" */
#define MARK_LINK 4         /* "](" */
#define MARK_REFERENCE 8    /* "]:" */
#define MARK_URL 16         /* "://", "www." or "WWW." */

PyDoc_STRVAR(markup_marks_doc,
"markup_marks(text) -> int\n\n"
"simdup.normalize.markup_marks_python(text): which markup strip_markup may find, in one pass.");

static PyObject *markup_marks(PyObject *module, PyObject *text)
{
    if (check_text(text, "markup_marks") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
#define CH(k) PyUnicode_READ(kind, data, (k))
    long marks = 0;
    if (n >= 3 && CH(0) == '-' && CH(1) == '-' && CH(2) == '-')
        marks |= MARK_FRONT_MATTER;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = CH(i);
        if (ch == '<') {
            marks |= MARK_TAG;
        }
        else if (ch == ']' && i + 1 < n) {
            Py_UCS4 next = CH(i + 1);
            marks |= next == '(' ? MARK_LINK : next == ':' ? MARK_REFERENCE : 0;
        }
        else if (ch == ':' && i + 2 < n && CH(i + 1) == '/' && CH(i + 2) == '/') {
            marks |= MARK_URL;
        }
        else if ((ch == 'w' || ch == 'W') && i + 3 < n && CH(i + 1) == ch && CH(i + 2) == ch &&
                 CH(i + 3) == '.') {
            marks |= MARK_URL;
        }
    }
#undef CH
    return PyLong_FromLong(marks);
}

/* ------------------------------------------------------------------ strip_link_targets */

static inline int target_char(Py_UCS4 ch) { return ch != '(' && ch != ')' && !is_space(ch); }

/* End of the Markdown link target starting with "](" at i (simdup.normalize._MD_LINK_TARGET),
   or -1. Each part of the pattern is followed by a character its class excludes, so its
   greedy match is the only one that can succeed: no backtracking is needed. */
static Py_ssize_t link_target_at(int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
#define CH(k) PyUnicode_READ(kind, data, (k))
    Py_ssize_t j = i + 2;
    while (j < n && target_char(CH(j)))
        j++;
    /* (?:\([^()\s]*\)[^()\s]*)* */
    while (j < n && CH(j) == '(') {
        Py_ssize_t k = j + 1;
        while (k < n && target_char(CH(k)))
            k++;
        if (!(k < n && CH(k) == ')'))
            break;
        k++;
        while (k < n && target_char(CH(k)))
            k++;
        j = k;
    }
    /* (?:\s+"[^"]*")? */
    if (j < n && is_space(CH(j))) {
        Py_ssize_t k = j;
        while (k < n && is_space(CH(k)))
            k++;
        if (k < n && CH(k) == '"') {
            k++;
            while (k < n && CH(k) != '"')
                k++;
            if (k < n)
                j = k + 1;
        }
    }
    return j < n && CH(j) == ')' ? j + 1 : -1;
#undef CH
}

PyDoc_STRVAR(strip_link_targets_doc,
"strip_link_targets(text, removed=None) -> str\n\n"
"simdup.normalize.strip_link_targets_python: every Markdown link or image target\n"
"](target \"title\") made '] '; each one appended to the list `removed` when given.");

static PyObject *strip_link_targets(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text, *removed;
    if (text_and_removed(args, nargs, "strip_link_targets", &text, &removed) < 0)
        return NULL;
    Rewrite r;
    rewrite_init(&r, text, removed);
    for (Py_ssize_t i = 0; i + 1 < r.n; i++) {
        if (PyUnicode_READ(r.kind, r.data, i) != ']' ||
            PyUnicode_READ(r.kind, r.data, i + 1) != '(')
            continue;
        Py_ssize_t end = link_target_at(r.kind, r.data, r.n, i);
        if (end < 0)
            continue;
        if (rewrite_span(&r, i, end, "] ") < 0)
            return rewrite_finish(&r, 0);
        i = end - 1;
    }
    return rewrite_finish(&r, 1);
}

/* ------------------------------------------------------------------ strip_ignorables */

/* Default_Ignorable_Code_Point, inclusive ranges: simdup.normalize.DEFAULT_IGNORABLE (Unicode
   15.1). tests/test_native.py checks every code point against the Python table. */
static const Py_UCS4 ignorable_ranges[][2] = {
    {0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C}, {0x115F, 0x1160},
    {0x17B4, 0x17B5}, {0x180B, 0x180F}, {0x200B, 0x200F}, {0x202A, 0x202E},
    {0x2060, 0x206F}, {0x3164, 0x3164}, {0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF},
    {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
    {0xE0000, 0xE0FFF},
};

/* One byte per BMP code point: a text is checked with one table load per character and no
   data-dependent branch (texts almost never hold any of them). 64 KB, but ~0.4 ns a character
   against ~0.7 ns for a bitmap of 8 KB (shift and mask). */
static uint8_t ignorable_bmp[0x10000];

static void init_ignorable_bmp(void)
{
    size_t n = sizeof ignorable_ranges / sizeof ignorable_ranges[0];
    for (size_t r = 0; r < n; r++)
        for (Py_UCS4 ch = ignorable_ranges[r][0]; ch <= ignorable_ranges[r][1] && ch <= 0xFFFF;
             ch++)
            ignorable_bmp[ch] = 1;
}

static inline int is_ignorable(Py_UCS4 ch)
{
    if (ch <= 0xFFFF)
        return ignorable_bmp[ch];
    return (ch >= 0x1BCA0 && ch <= 0x1BCA3) || (ch >= 0x1D173 && ch <= 0x1D17A) ||
           (ch >= 0xE0000 && ch <= 0xE0FFF);
}

/* Index of the first default-ignorable character, or n. */
static Py_ssize_t first_ignorable(int kind, const void *data, Py_ssize_t n)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        /* U+00AD is the only one below U+0100. */
        const char *hit = memchr(data, 0xAD, (size_t)n);
        return hit ? hit - (const char *)data : n;
    }
    const Py_ssize_t block = 64;
    for (Py_ssize_t start = 0; start < n; start += block) {
        Py_ssize_t end = start + block < n ? start + block : n;
        uint32_t any = 0;
        if (kind == PyUnicode_2BYTE_KIND) {
            const Py_UCS2 *s = (const Py_UCS2 *)data;
            for (Py_ssize_t i = start; i < end; i++)
                any |= ignorable_bmp[s[i]];
        }
        else {
            const Py_UCS4 *s = (const Py_UCS4 *)data;
            for (Py_ssize_t i = start; i < end; i++)
                any |= (uint32_t)is_ignorable(s[i]);
        }
        if (any) {
            for (Py_ssize_t i = start; i < end; i++)
                if (is_ignorable(PyUnicode_READ(kind, data, i)))
                    return i;
        }
    }
    return n;
}

PyDoc_STRVAR(strip_ignorables_doc,
"strip_ignorables(text) -> str\n\n"
"simdup.normalize.strip_ignorables_python(text): every Default_Ignorable_Code_Point removed\n"
"(text itself when it holds none).");

static PyObject *strip_ignorables(PyObject *module, PyObject *text)
{
    if (check_text(text, "strip_ignorables") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const char *src = (const char *)data;
    Py_ssize_t at = first_ignorable(kind, src, n);
    if (at == n)
        return Py_NewRef(text);
    char *out = PyMem_Malloc((size_t)n * (size_t)kind);
    if (out == NULL)
        return PyErr_NoMemory();
    /* Copy the spans between ignorables (the table scan finds each next one). */
    Py_ssize_t len = 0, from = 0;
    while (at < n) {
        memcpy(out + len * kind, src + from * kind, (size_t)((at - from) * kind));
        len += at - from;
        from = at + 1;
        at = from + first_ignorable(kind, src + from * kind, n - from);
    }
    memcpy(out + len * kind, src + from * kind, (size_t)((n - from) * kind));
    len += n - from;
    PyObject *result = PyUnicode_FromKindAndData(kind, out, len);
    PyMem_Free(out);
    return result;
}

/* ------------------------------------------------------------------ minhash_signature */

#define MH_GOLDEN UINT64_C(0x9E3779B97F4A7C15)

/* splitmix64 finaliser (simdup.minhash.mix64). */
static inline uint64_t mh_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Seed j (0-based) is mh_mix((j + 1) * golden) (simdup.minhash._seeds): the seeds of `perms`
   permutations are a prefix of those of any larger count, so one table serves every perms in
   the allowed range (16..1024); larger counts compute the rest per call. */
#define MH_TABLE 1024
static uint64_t mh_seeds[MH_TABLE];

static void init_minhash_seeds(void)
{
    for (uint64_t j = 0; j < MH_TABLE; j++)
        mh_seeds[j] = mh_mix((j + 1) * MH_GOLDEN);
}

/* sig[j] = min(sig[j], min_i mix(h[i] ^ seeds[j])). Hashes outer, permutations inner: the
   minima are independent of one another, so the loop over j vectorises. Without AVX2 there is
   no vector 64-bit multiply worth having; with it (emulated from 32-bit multiplies, 4 lanes)
   the loop is ~1.7x faster, and with AVX-512 (x86-64-v4: a native 64-bit multiply, 8 lanes)
   ~9x (measured on a Zen 5 core: 100,000 signatures of 90 hashes, 128 permutations, 1.23 s
   plain, 0.72 s AVX2, 0.13 s AVX-512). GCC builds all three and picks one at load time
   (ifunc). Integer arithmetic: every clone gives the same values. SIMDUP_NO_TARGET_CLONES
   builds the plain one only (to test it on a machine with AVX2). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(SIMDUP_NO_TARGET_CLONES)
#if __GNUC__ >= 11 /* the first to know x86-64-v4 */
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
__attribute__((target_clones("avx2", "default")))
#endif
#endif
static void mh_kernel(const uint64_t *h, Py_ssize_t n, const uint64_t *seeds, Py_ssize_t perms,
                      uint64_t *sig)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint64_t x = h[i];
        for (Py_ssize_t j = 0; j < perms; j++) {
            uint64_t v = mh_mix(x ^ seeds[j]);
            sig[j] = v < sig[j] ? v : sig[j];
        }
    }
}

/* The signature of n hashes with `perms` permutations (perms >= 0), as native-order uint64
   bytes: for each seed s_j, the minimum of mix(h ^ s_j); all ones when there are no hashes
   (duplicates change no minimum: a set's signature). */
static PyObject *minhash_bytes(const uint64_t *h, Py_ssize_t n, Py_ssize_t perms)
{
    const uint64_t *seeds = mh_seeds;
    uint64_t *extra = NULL;
    if (perms > MH_TABLE) {
        extra = PyMem_Malloc((size_t)perms * sizeof(uint64_t));
        if (extra == NULL)
            return PyErr_NoMemory();
        memcpy(extra, mh_seeds, sizeof mh_seeds);
        for (Py_ssize_t j = MH_TABLE; j < perms; j++)
            extra[j] = mh_mix(((uint64_t)j + 1) * MH_GOLDEN);
        seeds = extra;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, perms * (Py_ssize_t)sizeof(uint64_t));
    if (result != NULL) {
        uint64_t *sig = (uint64_t *)PyBytes_AS_STRING(result);
        for (Py_ssize_t j = 0; j < perms; j++)
            sig[j] = UINT64_MAX;
        mh_kernel(h, n, seeds, perms, sig);
    }
    PyMem_Free(extra);
    return result;
}

PyDoc_STRVAR(minhash_signature_doc,
"minhash_signature(hashes, perms) -> bytes\n\n"
"simdup.minhash.signature_python(hashes, perms) as `perms` native-order uint64: for each\n"
"seed s_j, the minimum of mix(h ^ s_j) over the uint64 `hashes` (all ones when empty).");

static PyObject *minhash_signature(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "minhash_signature() takes 2 arguments");
        return NULL;
    }
    Py_ssize_t perms = PyLong_AsSsize_t(args[1]);
    if (perms == -1 && PyErr_Occurred())
        return NULL;
    if (perms < 0 || perms > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "minhash_signature() needs perms >= 0");
        return NULL;
    }
    Py_buffer hb;
    if (PyObject_GetBuffer(args[0], &hb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *result = NULL;
    if (hb.len % (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "minhash_signature() needs uint64 hashes");
        goto done;
    }
    result = minhash_bytes((const uint64_t *)hb.buf, hb.len / (Py_ssize_t)sizeof(uint64_t), perms);
done:
    PyBuffer_Release(&hb);
    return result;
}

/* ------------------------------------------------------------------ markup_word_hashes */

/* Seed of the markup words' hashes (simdup.features.MARKUP_SEED: "markup!!"). */
#define MARKUP_SEED UINT64_C(0x6D61726B75702121)
#define FNV_OFFSET UINT64_C(0xCBF29CE484222325)
#define FNV_PRIME UINT64_C(0x100000001B3)

PyDoc_STRVAR(markup_word_hashes_doc,
"markup_word_hashes(text) -> bytes\n\n"
"simdup.features.markup_word_hashes_python(text) as native-order uint64: one hash per word\n"
"(maximal run of alphanumeric characters), ASCII case folded.");

/* Py_UNICODE_ISALNUM, from a table for ASCII (most of the markup: URLs and paths). */
static inline int is_alnum(Py_UCS4 ch)
{
    return ch < 128 ? ascii_class[ch] == 1 : Py_UNICODE_ISALNUM(ch);
}

static PyObject *markup_word_hashes(PyObject *module, PyObject *text)
{
    if (check_text(text, "markup_word_hashes") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    /* At most one word per two characters (words are separated). */
    uint64_t *out = PyMem_Malloc((size_t)(n / 2 + 1) * sizeof(uint64_t));
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < n;) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!is_alnum(ch)) {
            i++;
            continue;
        }
        uint64_t h = FNV_OFFSET;
        for (; i < n && is_alnum(ch = PyUnicode_READ(kind, data, i)); i++)
            h = (h ^ (uint64_t)(ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch)) * FNV_PRIME;
        out[count++] = mh_mix(h ^ MARKUP_SEED);
    }
    PyObject *result = PyBytes_FromStringAndSize((const char *)out,
                                                 count * (Py_ssize_t)sizeof(uint64_t));
    PyMem_Free(out);
    return result;
}

PyDoc_STRVAR(bottom_k_doc,
"bottom_k(hashes, k) -> bytes\n\n"
"simdup.sketch.bottom_k_python(hashes, k) as native-order uint32: the k smallest distinct\n"
"values of the top 32 bits of the uint64 `hashes`, ascending.");

/* Ascending LSD radix sort of n uint32 (8-bit digits, 4 stable passes through `tmp`): a few
   hundred values sort several times faster than with qsort's comparator calls. */
static void radix_sort_u32(uint32_t *v, uint32_t *tmp, Py_ssize_t n)
{
    Py_ssize_t count[4][256];
    memset(count, 0, sizeof count);
    for (Py_ssize_t i = 0; i < n; i++)
        for (int d = 0; d < 4; d++)
            count[d][(v[i] >> (8 * d)) & 0xff]++;
    uint32_t *src = v, *dst = tmp;
    for (int d = 0; d < 4; d++) {
        Py_ssize_t at = 0;
        for (int b = 0; b < 256; b++) {
            Py_ssize_t c = count[d][b];
            count[d][b] = at;
            at += c;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            dst[count[d][(src[i] >> (8 * d)) & 0xff]++] = src[i];
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    /* Four passes: the sorted values are back in `v`. */
}

/* The bottom-k sketch of the hashes of a and b together (b may be empty): the k smallest
   distinct top 32 bits, sorted, as native-order uint32 bytes. */
static PyObject *bottom_k_bytes(const uint64_t *a, Py_ssize_t na, const uint64_t *b,
                                Py_ssize_t nb, Py_ssize_t k)
{
    const Py_ssize_t n = na + nb;
    uint32_t *top = PyMem_Malloc((size_t)(n > 0 ? 2 * n : 1) * sizeof(uint32_t));
    if (top == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < na; i++)
        top[i] = (uint32_t)(a[i] >> 32);
    for (Py_ssize_t i = 0; i < nb; i++)
        top[na + i] = (uint32_t)(b[i] >> 32);
    radix_sort_u32(top, top + n, n);
    /* Distinct values in place, stopping at k of them. */
    Py_ssize_t kept = 0;
    for (Py_ssize_t i = 0; i < n && kept < k; i++)
        if (kept == 0 || top[i] != top[kept - 1])
            top[kept++] = top[i];
    PyObject *result =
        PyBytes_FromStringAndSize((const char *)top, kept * (Py_ssize_t)sizeof(uint32_t));
    PyMem_Free(top);
    return result;
}

static PyObject *bottom_k(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "bottom_k() takes 2 arguments");
        return NULL;
    }
    Py_ssize_t k = PyLong_AsSsize_t(args[1]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "bottom_k() needs k >= 0");
        return NULL;
    }
    Py_buffer hb;
    if (PyObject_GetBuffer(args[0], &hb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *result = NULL;
    if (hb.len % (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "bottom_k() needs uint64 hashes");
        goto done;
    }
    result = bottom_k_bytes((const uint64_t *)hb.buf, hb.len / (Py_ssize_t)sizeof(uint64_t),
                            NULL, 0, k);
done:
    PyBuffer_Release(&hb);
    return result;
}

/* ------------------------------------------------------------------ document_parts */

PyDoc_STRVAR(document_parts_doc,
"document_parts(hashes, weights, markup_hashes, sketch_size, perms)\n"
"    -> (fingerprint, sketch, signature)\n\n"
"What a document's features make, in one call (simdup.processor.DocumentProcessor\n"
".fingerprint_features): simhash_of_weights(hashes, weights); bottom_k of the hashes and the\n"
"uint64 markup_hashes together; minhash_signature(hashes, perms), or b'' when perms is 0.");

static PyObject *document_parts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "document_parts() takes 5 arguments");
        return NULL;
    }
    Py_ssize_t k = PyLong_AsSsize_t(args[3]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t perms = PyLong_AsSsize_t(args[4]);
    if (perms == -1 && PyErr_Occurred())
        return NULL;
    if (k < 0 || perms < 0 || perms > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "document_parts() needs sketch_size, perms >= 0");
        return NULL;
    }
    Py_buffer hb, wb, mb;
    if (three_buffers(args, &hb, &wb, &mb) < 0)
        return NULL;
    PyObject *fingerprint = NULL, *sketch = NULL, *signature = NULL, *result = NULL;
    int64_t *wi = NULL;
    const Py_ssize_t n = hb.len / 8;
    if (hb.len % 8 || wb.len != hb.len || mb.len % 8) {
        PyErr_SetString(PyExc_ValueError,
                        "document_parts() needs n uint64 hashes, n float64 weights and uint64 "
                        "markup hashes");
        goto done;
    }
    const uint64_t *h = (const uint64_t *)hb.buf;
    if (n == 0) {
        fingerprint = PyLong_FromLong(0); /* simhash.simhash of nothing */
    }
    else {
        wi = PyMem_Malloc((size_t)n * sizeof(int64_t));
        if (wi == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        if (scale_weights((const double *)wb.buf, n, wi) < 0) {
            PyErr_SetString(PyExc_ValueError, "document_parts() needs finite weights");
            goto done;
        }
        fingerprint = PyLong_FromUnsignedLongLong(simhash_of(h, wi, n));
    }
    if (fingerprint == NULL)
        goto done;
    sketch = bottom_k_bytes(h, n, (const uint64_t *)mb.buf, mb.len / 8, k);
    if (sketch == NULL)
        goto done;
    signature = perms ? minhash_bytes(h, n, perms) : PyBytes_FromStringAndSize(NULL, 0);
    if (signature == NULL)
        goto done;
    result = PyTuple_Pack(3, fingerprint, sketch, signature);
done:
    Py_XDECREF(fingerprint);
    Py_XDECREF(sketch);
    Py_XDECREF(signature);
    PyMem_Free(wi);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&wb);
    PyBuffer_Release(&mb);
    return result;
}

/* ---- one table of the exact Hamming index (simdup/index.py: _table_pairs) ---------------- */

PyDoc_STRVAR(table_pairs_doc,
"table_pairs(unique, key_masks, earlier_masks, threshold) -> (a, b, d) or None\n\n"
"The pairs one table of the block index emits (simdup/index.py: _table_pairs): positions\n"
"a < b of `unique` (uint64) equal on every block of `key_masks` (uint64, contiguous bit\n"
"ranges), within `threshold` bits, and not equal on any block of `earlier_masks`. Returned\n"
"as int64, int64 and uint8 bytes, in the Python definition's order; None when a key and a\n"
"position do not fit in 64 bits together (the caller then runs the Python definition).");

typedef struct {
    int64_t *a, *b;
    uint8_t *d;
    Py_ssize_t size, capacity;
} PairBuffer;

static int pair_buffer_push(PairBuffer *p, int64_t a, int64_t b, uint8_t d)
{
    if (p->size == p->capacity) {
        Py_ssize_t grown = p->capacity ? 2 * p->capacity : 1024;
        int64_t *na = PyMem_Realloc(p->a, (size_t)grown * sizeof(int64_t));
        if (na == NULL)
            return -1;
        p->a = na;
        int64_t *nb = PyMem_Realloc(p->b, (size_t)grown * sizeof(int64_t));
        if (nb == NULL)
            return -1;
        p->b = nb;
        uint8_t *nd = PyMem_Realloc(p->d, (size_t)grown);
        if (nd == NULL)
            return -1;
        p->d = nd;
        p->capacity = grown;
    }
    p->a[p->size] = a;
    p->b[p->size] = b;
    p->d[p->size] = d;
    p->size++;
    return 0;
}

/* Stable LSD radix sort of v[0..n) by bits `low`..`high` - 1 (11-bit digits), `tmp` of the
 * same size; the sorted values end in v. Values that arrive in order of their lower bits (a
 * position below the key) stay in that order among equal keys. */
static void radix_sort_u64(uint64_t *v, uint64_t *tmp, Py_ssize_t n, int low, int high)
{
    enum { DIGIT = 11, BUCKETS = 1 << 11 };
    Py_ssize_t count[BUCKETS];
    uint64_t *src = v, *dst = tmp;
    for (int shift = low; shift < high; shift += DIGIT) {
        memset(count, 0, sizeof(count));
        for (Py_ssize_t i = 0; i < n; i++)
            count[(src[i] >> shift) & (BUCKETS - 1)]++;
        Py_ssize_t total = 0;
        for (int c = 0; c < BUCKETS; c++) {
            Py_ssize_t here = count[c];
            count[c] = total;
            total += here;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
        uint64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != v)
        memcpy(v, src, (size_t)n * sizeof(uint64_t));
}

/* Bits set in x, without the libgcc call __builtin_popcountll becomes when the build may not
 * assume the POPCNT instruction (the extension is built for any x86-64). */
static inline int bit_count(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* The pairs of each bucket (a run of equal keys in `packed`, sorted; `sorted_u`: their
 * fingerprints in the same order) within `threshold` bits and not equal on an earlier block;
 * -1 when out of memory. GCC builds a clone for CPUs with POPCNT and picks one at load time
 * (ifunc): bit_count's bit trick is compiled to that one instruction there. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(SIMDUP_NO_TARGET_CLONES)
__attribute__((target_clones("popcnt", "default")))
#endif
static int bucket_pairs(const uint64_t *packed, const uint64_t *sorted_u, Py_ssize_t n,
                        int idx_bits, int threshold, const uint64_t *earlier,
                        Py_ssize_t n_earlier, PairBuffer *out)
{
    const uint64_t position_mask = ((uint64_t)1 << idx_bits) - 1;
    Py_ssize_t start = 0;
    while (start < n) {
        const uint64_t key = packed[start] >> idx_bits;
        Py_ssize_t end = start + 1;
        while (end < n && (packed[end] >> idx_bits) == key)
            end++;
        for (Py_ssize_t p = start; p + 1 < end; p++) {
            const uint64_t up = sorted_u[p];
            for (Py_ssize_t q = p + 1; q < end; q++) {
                const uint64_t x = up ^ sorted_u[q];
                const int d = bit_count(x);
                if (d > threshold)
                    continue;
                int canonical = 1;
                for (Py_ssize_t j = 0; j < n_earlier && canonical; j++)
                    canonical = (x & earlier[j]) != 0;
                if (!canonical)
                    continue;
                const int64_t a = (int64_t)(packed[p] & position_mask);
                const int64_t b = (int64_t)(packed[q] & position_mask);
                if (pair_buffer_push(out, a < b ? a : b, a < b ? b : a, (uint8_t)d) < 0)
                    return -1;
            }
        }
        start = end;
    }
    return 0;
}

static PyObject *table_pairs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "table_pairs() takes 4 arguments");
        return NULL;
    }
    long threshold = PyLong_AsLong(args[3]);
    if (threshold == -1 && PyErr_Occurred())
        return NULL;
    if (threshold < 0 || threshold > 64) {
        PyErr_SetString(PyExc_ValueError, "table_pairs() needs 0 <= threshold <= 64");
        return NULL;
    }
    Py_buffer ub, kb, eb;
    if (three_buffers(args, &ub, &kb, &eb) < 0)
        return NULL;
    PyObject *result = NULL;
    uint64_t *packed = NULL, *tmp = NULL;
    PairBuffer out = {NULL, NULL, NULL, 0, 0};
    const Py_ssize_t word = (Py_ssize_t)sizeof(uint64_t);
    if (ub.len % word || kb.len % word || eb.len % word) {
        PyErr_SetString(PyExc_ValueError, "table_pairs() needs uint64 arrays");
        goto done;
    }
    const Py_ssize_t n = ub.len / word, n_keys = kb.len / word, n_earlier = eb.len / word;
    const uint64_t *u = (const uint64_t *)ub.buf;
    const uint64_t *keys = (const uint64_t *)kb.buf;
    const uint64_t *earlier = (const uint64_t *)eb.buf;
    int key_bits = 0;
    for (Py_ssize_t j = 0; j < n_keys; j++) {
        uint64_t m = keys[j];
        if (m == 0 || ((m >> __builtin_ctzll(m)) & ((m >> __builtin_ctzll(m)) + 1)) != 0) {
            PyErr_SetString(PyExc_ValueError, "table_pairs() needs contiguous nonzero masks");
            goto done;
        }
        key_bits += bit_count(m);
    }
    int idx_bits = 1;
    while (idx_bits < 63 && ((Py_ssize_t)1 << idx_bits) < n)
        idx_bits++;
    if (key_bits + idx_bits > 64) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (n >= 2) {
        packed = PyMem_Malloc((size_t)n * sizeof(uint64_t));
        tmp = PyMem_Malloc((size_t)n * sizeof(uint64_t));
        if (packed == NULL || tmp == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        /* (key, position) in one value: the key's blocks side by side above the position, the
         * table's first block lowest, as the Python definition packs them. */
        int low[64], offset[64];
        for (Py_ssize_t j = 0, at = idx_bits; j < n_keys && j < 64; j++) {
            low[j] = __builtin_ctzll(keys[j]);
            offset[j] = (int)at;
            at += bit_count(keys[j]);
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t v = (uint64_t)i;
            for (Py_ssize_t j = 0; j < n_keys; j++)
                v |= ((u[i] & keys[j]) >> low[j]) << offset[j];
            packed[i] = v;
        }
        /* Packed in position order: sorting by the key bits alone keeps each bucket's
         * positions ascending, as a sort of the whole value would. */
        radix_sort_u64(packed, tmp, n, idx_bits, key_bits + idx_bits);
        /* The fingerprints in bucket order (tmp is free now): a bucket's are compared in a
         * sequential run of memory. */
        const uint64_t position_mask = ((uint64_t)1 << idx_bits) - 1;
        for (Py_ssize_t i = 0; i < n; i++)
            tmp[i] = u[packed[i] & position_mask];
        if (bucket_pairs(packed, tmp, n, idx_bits, (int)threshold, earlier, n_earlier, &out) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    {
        /* PyBytes_FromStringAndSize(NULL, 0) is an empty bytes (no pairs: buffers NULL). */
        PyObject *a = PyBytes_FromStringAndSize((const char *)out.a, out.size * word);
        PyObject *b = PyBytes_FromStringAndSize((const char *)out.b, out.size * word);
        PyObject *d = PyBytes_FromStringAndSize((const char *)out.d, out.size);
        if (a != NULL && b != NULL && d != NULL)
            result = PyTuple_Pack(3, a, b, d);
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(d);
    }
done:
    PyMem_Free(out.a);
    PyMem_Free(out.b);
    PyMem_Free(out.d);
    PyMem_Free(packed);
    PyMem_Free(tmp);
    PyBuffer_Release(&eb);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&ub);
    return result;
}

/* ---- SimHash counters of groups of hashes (simdup/simhash.py: group_counters) ------------ */

PyDoc_STRVAR(group_counters_doc,
"group_counters(hashes, weights, sizes) -> bytes\n\n"
"The signed SimHash counters of consecutive groups of hashes (simdup/simhash.py:\n"
"group_counters_python): group g is the next sizes[g] of `hashes` (uint64) with their integer\n"
"`weights` (int64); counter b of a group adds a hash's weight when its bit b is set and\n"
"subtracts it otherwise. len(sizes) x 64 int64 values.");

static PyObject *group_counters(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "group_counters() takes 3 arguments");
        return NULL;
    }
    Py_buffer hb, wb, sb;
    if (three_buffers(args, &hb, &wb, &sb) < 0)
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t word = 8;
    if (hb.len % word || wb.len != hb.len || sb.len % word) {
        PyErr_SetString(PyExc_ValueError,
                        "group_counters() needs n uint64 hashes, n int64 weights, int64 sizes");
        goto done;
    }
    const Py_ssize_t n = hb.len / word, groups = sb.len / word;
    const uint64_t *h = (const uint64_t *)hb.buf;
    const int64_t *w = (const int64_t *)wb.buf;
    const int64_t *sizes = (const int64_t *)sb.buf;
    Py_ssize_t total = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        if (sizes[g] < 0 || sizes[g] > n - total) {
            PyErr_SetString(PyExc_ValueError, "group_counters() sizes must add up to len(hashes)");
            goto done;
        }
        total += sizes[g];
    }
    if (total != n) {
        PyErr_SetString(PyExc_ValueError, "group_counters() sizes must add up to len(hashes)");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, groups * 64 * word);
    if (result == NULL)
        goto done;
    int64_t *out = (int64_t *)PyBytes_AS_STRING(result);
    Py_ssize_t at = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        int64_t *c = out + 64 * g;
        /* counter_b = 2 * (weight with bit b set) - total weight, as simhash() sums it. */
        int64_t with_bit[64] = {0}, sum = 0;
        for (Py_ssize_t i = at; i < at + sizes[g]; i++) {
            const uint64_t x = h[i];
            const int64_t v = w[i];
            sum += v;
            for (int b = 0; b < 64; b++)
                with_bit[b] += v & -(int64_t)((x >> b) & 1);
        }
        for (int b = 0; b < 64; b++)
            c[b] = 2 * with_bit[b] - sum;
        at += sizes[g];
    }
done:
    PyBuffer_Release(&sb);
    PyBuffer_Release(&wb);
    PyBuffer_Release(&hb);
    return result;
}

/* ---- a text cut into blocks (simdup/blocks.py: cut_text_python) -------------------------- */

PyDoc_STRVAR(cut_blocks_doc,
"cut_blocks(text, max_lines, max_chars) -> (bytes, lines)\n\n"
"The blocks of `text` (simdup/blocks.py: cut_text_python) as int64 rows (start_line,\n"
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

/* ---- SimHash of windows of blocks (simdup/passages.py: _window_fingerprints_python) ------ */

PyDoc_STRVAR(window_fingerprints_doc,
"window_fingerprints(counters, rows, window_end) -> bytes\n\n"
"The SimHash of each window of blocks (simdup/passages.py: _window_fingerprints_python):\n"
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

/* ---- sorted distinct values of runs (simdup/passages.py: _distinct_runs_python) ---------- */

PyDoc_STRVAR(distinct_runs_doc,
"distinct_runs(values, bounds) -> (values, bounds)\n\n"
"Each run values[bounds[k]:bounds[k + 1]] (uint32; bounds int64, ascending from 0 to\n"
"len(values)) sorted and made distinct (simdup/passages.py: _distinct_runs_python): the runs\n"
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

/* ------------------------------------------------------------------ line-level edges */

/* simdup/passages.py, "Line-level edges": the tokens of a casefolded text as ids that are equal
   exactly when the tokens are (edge_tokens), and the alignment of two ranges of them
   (matching_blocks, edge_chain). Python definitions: _edge_tokens_python,
   _matching_blocks_python and _edge_chain_python, next to refine_edges. */

/* A growable int64 array (PyMem; an exception is set when it cannot grow). */
typedef struct {
    int64_t *v;
    Py_ssize_t size, capacity;
} EdgeInts;

static int edge_ints_push(EdgeInts *s, int64_t x)
{
    if (s->size == s->capacity) {
        if (s->capacity > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(int64_t)) {
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t grown = s->capacity ? 2 * s->capacity : 256;
        int64_t *v = PyMem_Realloc(s->v, (size_t)grown * sizeof(int64_t));
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->v = v;
        s->capacity = grown;
    }
    s->v[s->size++] = x;
    return 0;
}

/* The vocabulary of edge_tokens: every distinct token met, by a hash of its code points
   (compared exactly), with its id, the number of tokens met before it. Kept between calls in a
   capsule (edge_vocabulary), so that the texts sharing it get comparable ids without a str or
   a dict lookup per token. */
typedef struct {
    uint64_t hash;
    Py_ssize_t start, length; /* its code points: chars[start:start + length]; 0: empty slot */
    int64_t id;
} EdgeSlot;

typedef struct {
    EdgeSlot *slots;
    Py_ssize_t mask, used;
    Py_UCS4 *chars; /* every token's code points, one after the other */
    Py_ssize_t n_chars, chars_capacity;
} EdgeVocabulary;

#define EDGE_VOCABULARY "simdup.native._speedups.edge_vocabulary"

static void edge_vocabulary_free(PyObject *capsule)
{
    EdgeVocabulary *v = PyCapsule_GetPointer(capsule, EDGE_VOCABULARY);
    if (v == NULL)
        return;
    PyMem_Free(v->slots);
    PyMem_Free(v->chars);
    PyMem_Free(v);
}

PyDoc_STRVAR(edge_vocabulary_doc,
"edge_vocabulary() -> vocabulary\n\n"
"A new, empty vocabulary for edge_tokens (an opaque capsule; the Python version is a dict).");

static PyObject *edge_vocabulary(PyObject *module, PyObject *unused)
{
    EdgeVocabulary *v = PyMem_Calloc(1, sizeof(EdgeVocabulary));
    if (v == NULL)
        return PyErr_NoMemory();
    enum { FIRST_SLOTS = 1024 };
    v->slots = PyMem_Calloc(FIRST_SLOTS, sizeof(EdgeSlot));
    if (v->slots == NULL) {
        PyMem_Free(v);
        return PyErr_NoMemory();
    }
    v->mask = FIRST_SLOTS - 1;
    PyObject *capsule = PyCapsule_New(v, EDGE_VOCABULARY, edge_vocabulary_free);
    if (capsule == NULL) {
        PyMem_Free(v->slots);
        PyMem_Free(v);
    }
    return capsule;
}

PyDoc_STRVAR(edge_vocabulary_size_doc,
"edge_vocabulary_size(vocabulary) -> int\n\n"
"How many distinct tokens `vocabulary` holds (len() of the Python version's dict).");

static PyObject *edge_vocabulary_size(PyObject *module, PyObject *capsule)
{
    EdgeVocabulary *v = PyCapsule_GetPointer(capsule, EDGE_VOCABULARY);
    return v == NULL ? NULL : PyLong_FromSsize_t(v->used);
}

DEFINE_TABLE_GROW(edge_vocabulary_grow, EdgeVocabulary, EdgeSlot)

/* One character more of a token's hash (FNV-1a on code points; mh_mix at the end). */
#define EDGE_HASH_STEP(h, ch) (((h) ^ (uint64_t)(ch)) * FNV_PRIME)

/* *id = the vocabulary's id of the token text[start:start + length] (of `hash`), a new one
   (the number of tokens it knows) if it has none. -1 with an exception set. */
static inline int edge_token_id(EdgeVocabulary *v, const int kind, const void *data,
                                Py_ssize_t start, Py_ssize_t length, uint64_t hash, int64_t *id)
{
    Py_ssize_t s = (Py_ssize_t)(hash & (uint64_t)v->mask);
    for (; v->slots[s].length; s = (s + 1) & v->mask) {
        const EdgeSlot *e = &v->slots[s];
        if (e->hash != hash || e->length != length)
            continue;
        const Py_UCS4 *known = v->chars + e->start;
        Py_ssize_t p = 0;
        while (p < length && known[p] == PyUnicode_READ(kind, data, start + p))
            p++;
        if (p == length) {
            *id = e->id;
            return 0;
        }
    }
    if (v->n_chars + length > v->chars_capacity) {
        Py_ssize_t grown = v->chars_capacity ? v->chars_capacity : 4096;
        while (grown < v->n_chars + length) {
            if (grown > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(Py_UCS4)) {
                PyErr_NoMemory();
                return -1;
            }
            grown *= 2;
        }
        Py_UCS4 *chars = PyMem_Realloc(v->chars, (size_t)grown * sizeof(Py_UCS4));
        if (chars == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        v->chars = chars;
        v->chars_capacity = grown;
    }
    for (Py_ssize_t p = 0; p < length; p++)
        v->chars[v->n_chars + p] = PyUnicode_READ(kind, data, start + p);
    v->slots[s] = (EdgeSlot){hash, v->n_chars, length, (int64_t)v->used};
    v->n_chars += length;
    *id = (int64_t)v->used++;
    if (2 * v->used > v->mask && edge_vocabulary_grow(v) < 0)
        return -1;
    return 0;
}

/* Word characters of the BMP (is_word), a bit each, made on first use: edge_tokens looks at
   every character of a text, and Py_UNICODE_ISALNUM is several table lookups. */
static uint8_t edge_word_bmp[0x10000 / 8];
static int edge_word_bmp_ready = 0;

static void edge_init_word_bmp(void)
{
    for (Py_UCS4 ch = 0; ch < 0x10000; ch++)
        if (is_word(ch))
            edge_word_bmp[ch >> 3] |= (uint8_t)(1u << (ch & 7));
    edge_word_bmp_ready = 1;
}

static inline int edge_is_word(Py_UCS4 ch)
{
    return ch < 0x10000 ? (edge_word_bmp[ch >> 3] >> (ch & 7)) & 1 : is_word(ch);
}

/* The tokens of a text (of `kind`, a constant where this is inlined) into `ids`, and the index
   of the first token of each line but the first into `starts`; -1 with an exception set. */
static inline int edge_scan(const int kind, const void *data, Py_ssize_t n, EdgeVocabulary *v,
                            EdgeInts *ids, EdgeInts *starts)
{
    for (Py_ssize_t i = 0; i < n;) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch == '\n' || ch == '\r') {
            /* \r\n is one line end, as split_lines has it */
            i += ch == '\r' && i + 1 < n && PyUnicode_READ(kind, data, i + 1) == '\n' ? 2 : 1;
            if (edge_ints_push(starts, ids->size) < 0)
                return -1;
            continue;
        }
        uint64_t hash = EDGE_HASH_STEP(MH_GOLDEN, ch);
        Py_ssize_t end = i + 1;
        if (edge_is_word(ch)) { /* never CJK: a run of word characters */
            for (; end < n; end++) {
                const Py_UCS4 next = PyUnicode_READ(kind, data, end);
                if (!edge_is_word(next))
                    break;
                hash = EDGE_HASH_STEP(hash, next);
            }
        }
        else if (!is_cjk(ch)) { /* a CJK ideograph is a token of its own; the rest none */
            i++;
            continue;
        }
        int64_t id;
        if (edge_token_id(v, kind, data, i, end - i, mh_mix(hash ^ (uint64_t)(end - i)), &id) < 0 ||
            edge_ints_push(ids, id) < 0)
            return -1;
        i = end;
    }
    return 0;
}

PyDoc_STRVAR(edge_tokens_doc,
"edge_tokens(folded, vocabulary) -> (ids, line_starts)\n\n"
"simdup.passages._edge_tokens_python(folded, vocabulary) as native int64 bytes, `vocabulary`\n"
"from edge_vocabulary(): the id of each token of `folded` (a CJK ideograph, or a run of other\n"
"word characters), a token new to the vocabulary getting the number of tokens it knows; then\n"
"for each line (ended by \\n, \\r\\n or \\r) the index of its first token, and the number of\n"
"tokens.");

static PyObject *edge_tokens(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "edge_tokens() takes 2 arguments");
        return NULL;
    }
    if (check_text(args[0], "edge_tokens") < 0)
        return NULL;
    EdgeVocabulary *v = PyCapsule_GetPointer(args[1], EDGE_VOCABULARY);
    if (v == NULL)
        return NULL;
    PyObject *text = args[0];
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    EdgeInts ids = {NULL, 0, 0}, starts = {NULL, 0, 0};
    PyObject *result = NULL, *ids_bytes = NULL, *starts_bytes = NULL;
    if (!edge_word_bmp_ready)
        edge_init_word_bmp();
    if (edge_ints_push(&starts, 0) < 0)
        goto done;
    int scanned;
    /* One copy of the loop per kind (a constant there), each reading its kind directly. */
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        scanned = edge_scan(PyUnicode_1BYTE_KIND, data, n, v, &ids, &starts);
        break;
    case PyUnicode_2BYTE_KIND:
        scanned = edge_scan(PyUnicode_2BYTE_KIND, data, n, v, &ids, &starts);
        break;
    default:
        scanned = edge_scan(PyUnicode_4BYTE_KIND, data, n, v, &ids, &starts);
        break;
    }
    if (scanned < 0 || edge_ints_push(&starts, ids.size) < 0)
        goto done;
    ids_bytes = PyBytes_FromStringAndSize((const char *)ids.v,
                                          ids.size * (Py_ssize_t)sizeof(int64_t));
    starts_bytes = PyBytes_FromStringAndSize((const char *)starts.v,
                                             starts.size * (Py_ssize_t)sizeof(int64_t));
    if (ids_bytes != NULL && starts_bytes != NULL)
        result = PyTuple_Pack(2, ids_bytes, starts_bytes);
done:
    Py_XDECREF(ids_bytes);
    Py_XDECREF(starts_bytes);
    PyMem_Free(ids.v);
    PyMem_Free(starts.v);
    return result;
}

/* The lines of a text (of `kind`, a constant where this is inlined): where each starts and
   ends; -1 with an exception set. */
static inline int edge_lines(const int kind, const void *data, Py_ssize_t n, EdgeInts *starts,
                             EdgeInts *ends)
{
    Py_ssize_t line = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch != '\n' && ch != '\r')
            continue;
        if (edge_ints_push(starts, line) < 0 || edge_ints_push(ends, i) < 0)
            return -1;
        if (ch == '\r' && i + 1 < n && PyUnicode_READ(kind, data, i + 1) == '\n')
            i++;
        line = i + 1;
    }
    /* Text after the last line end is a line; a text that ends with one has none after it. */
    if (line < n && (edge_ints_push(starts, line) < 0 || edge_ints_push(ends, n) < 0))
        return -1;
    return 0;
}

PyDoc_STRVAR(line_offsets_doc,
"line_offsets(text) -> (starts, ends)\n\n"
"simdup.passages._line_offsets_python(text) as native int64 bytes: where each line of `text`\n"
"(split_lines: ended by \\n, \\r\\n or \\r, none after a final line end) starts and ends.");

static PyObject *line_offsets(PyObject *module, PyObject *text)
{
    if (check_text(text, "line_offsets") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    EdgeInts starts = {NULL, 0, 0}, ends = {NULL, 0, 0};
    PyObject *result = NULL, *starts_bytes = NULL, *ends_bytes = NULL;
    int found;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        found = edge_lines(PyUnicode_1BYTE_KIND, data, n, &starts, &ends);
        break;
    case PyUnicode_2BYTE_KIND:
        found = edge_lines(PyUnicode_2BYTE_KIND, data, n, &starts, &ends);
        break;
    default:
        found = edge_lines(PyUnicode_4BYTE_KIND, data, n, &starts, &ends);
        break;
    }
    if (found < 0)
        goto done;
    starts_bytes = PyBytes_FromStringAndSize((const char *)starts.v,
                                             starts.size * (Py_ssize_t)sizeof(int64_t));
    ends_bytes = PyBytes_FromStringAndSize((const char *)ends.v,
                                           ends.size * (Py_ssize_t)sizeof(int64_t));
    if (starts_bytes != NULL && ends_bytes != NULL)
        result = PyTuple_Pack(2, starts_bytes, ends_bytes);
done:
    Py_XDECREF(starts_bytes);
    Py_XDECREF(ends_bytes);
    PyMem_Free(starts.v);
    PyMem_Free(ends.v);
    return result;
}

/* A run a[i:i + k] == b[j:j + k]. */
typedef struct {
    Py_ssize_t i, j, k;
} EdgeRun;

typedef struct {
    EdgeRun *v;
    Py_ssize_t size, capacity;
} EdgeRuns;

static int edge_runs_push(EdgeRuns *r, Py_ssize_t i, Py_ssize_t j, Py_ssize_t k)
{
    if (r->size == r->capacity) {
        if (r->capacity > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(EdgeRun)) {
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t grown = r->capacity ? 2 * r->capacity : 64;
        EdgeRun *v = PyMem_Realloc(r->v, (size_t)grown * sizeof(EdgeRun));
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        r->v = v;
        r->capacity = grown;
    }
    r->v[r->size++] = (EdgeRun){i, j, k};
    return 0;
}

static uint64_t edge_gram_hash(const int64_t *x, Py_ssize_t length)
{
    uint64_t h = MH_GOLDEN;
    for (Py_ssize_t t = 0; t < length; t++)
        h = (h ^ (uint64_t)x[t]) * UINT64_C(0x100000001B3);
    return mh_mix(h);
}

/* _equal_runs: every maximal run (i, j, k) of a[i:i + k] == b[j:j + k] with k >= min_run,
   appended to `runs` in order of i, then j. 0 when done, 1 when more than max_grams pairs
   (i, j) start equal min_run-grams (nothing appended), -1 with an exception set.
   The distinct grams of b are classes (a hash table of them, compared exactly), each with its
   positions in order; each gram of a then meets the positions of its class. A pair (i, j) whose
   (i - 1, j - 1) also matches is inside a run found from an earlier i: no work. */
static int edge_equal_runs(const int64_t *a, Py_ssize_t na, const int64_t *b, Py_ssize_t nb,
                           Py_ssize_t min_run, Py_ssize_t max_grams, EdgeRuns *runs)
{
    const Py_ssize_t n = na - min_run + 1, m = nb - min_run + 1;
    if (n < 1 || m < 1)
        return 0;
    if (m > PY_SSIZE_T_MAX / 64 || n > PY_SSIZE_T_MAX / 64) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t capacity = 16;
    while (capacity < 2 * m)
        capacity *= 2;
    const Py_ssize_t mask = capacity - 1;
    /* slot -> class; per class its first and last position and how many; per position of b the
       next of its class; per position of a its class (-1: none) */
    Py_ssize_t *memory = PyMem_Malloc((size_t)(capacity + 4 * m + n) * sizeof(Py_ssize_t));
    uint64_t *hashes = PyMem_Malloc((size_t)m * sizeof(uint64_t));
    int status = -1;
    if (memory == NULL || hashes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t *slot = memory, *first = slot + capacity, *last = first + m, *count = last + m,
               *next = count + m, *class_of = next + m;
    for (Py_ssize_t s = 0; s < capacity; s++)
        slot[s] = -1;
    const size_t gram_bytes = (size_t)min_run * sizeof(int64_t);
    Py_ssize_t classes = 0;
    for (Py_ssize_t j = 0; j < m; j++) {
        const uint64_t h = edge_gram_hash(b + j, min_run);
        Py_ssize_t s = (Py_ssize_t)(h & (uint64_t)mask), c;
        while ((c = slot[s]) >= 0 && !(hashes[c] == h && !memcmp(b + first[c], b + j, gram_bytes)))
            s = (s + 1) & mask;
        next[j] = -1;
        if (c < 0) {
            c = classes++;
            slot[s] = c;
            hashes[c] = h;
            first[c] = last[c] = j;
            count[c] = 1;
        }
        else {
            next[last[c]] = j;
            last[c] = j;
            count[c]++;
        }
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint64_t h = edge_gram_hash(a + i, min_run);
        Py_ssize_t s = (Py_ssize_t)(h & (uint64_t)mask), c;
        while ((c = slot[s]) >= 0 && !(hashes[c] == h && !memcmp(b + first[c], a + i, gram_bytes)))
            s = (s + 1) & mask;
        class_of[i] = c;
        if (c >= 0) {
            if (count[c] > max_grams - total) { /* total + count[c] > max_grams, no overflow */
                status = 1;
                goto done;
            }
            total += count[c];
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (class_of[i] < 0)
            continue;
        for (Py_ssize_t j = first[class_of[i]]; j >= 0; j = next[j]) {
            if (i > 0 && j > 0 && a[i - 1] == b[j - 1])
                continue;
            Py_ssize_t k = min_run;
            while (i + k < na && j + k < nb && a[i + k] == b[j + k])
                k++;
            if (edge_runs_push(runs, i, j, k) < 0)
                goto done;
        }
    }
    status = 0;
done:
    PyMem_Free(memory);
    PyMem_Free(hashes);
    return status;
}

/* A box of a[alo:ahi] x b[blo:bhi] and the runs at [from, to) that may lie in it. */
typedef struct {
    Py_ssize_t alo, ahi, blo, bhi, from, to;
} EdgeBox;

static int edge_run_order(const void *x, const void *y)
{
    const Py_ssize_t p = ((const EdgeRun *)x)->i, q = ((const EdgeRun *)y)->i;
    return (p > q) - (p < q);
}

/* _choose_runs: the runs difflib's get_matching_blocks keeps of the maximal equal runs `runs`
   (reordered and clipped in place) of sequences of na and nb tokens, in `chosen` (room for
   `count`) by ascending i; how many, or -1 with an exception set. Each box's runs are clipped
   to it, the longest (ties: smallest i, then j) chosen, and the rest split into those before
   it on both sides and those after it on both sides (none is both: it would be longer), each
   group a box of its own at its own part of the array. */
static Py_ssize_t edge_choose_runs(EdgeRun *runs, Py_ssize_t count, Py_ssize_t na, Py_ssize_t nb,
                                   Py_ssize_t min_run, EdgeRun *chosen)
{
    if (count == 0)
        return 0;
    /* The boxes waiting hold disjoint nonempty parts of the array: at most `count`. */
    EdgeBox *stack = PyMem_Malloc((size_t)count * sizeof(EdgeBox));
    if (stack == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t depth = 0, n_chosen = 0;
    stack[depth++] = (EdgeBox){0, na, 0, nb, 0, count};
    while (depth) {
        const EdgeBox box = stack[--depth];
        Py_ssize_t kept = box.from, best = -1;
        for (Py_ssize_t r = box.from; r < box.to; r++) {
            const Py_ssize_t d = runs[r].i - runs[r].j;
            Py_ssize_t lo = runs[r].i, hi = runs[r].i + runs[r].k;
            lo = lo < box.alo ? box.alo : lo;
            lo = lo < box.blo + d ? box.blo + d : lo;
            hi = hi > box.ahi ? box.ahi : hi;
            hi = hi > box.bhi + d ? box.bhi + d : hi;
            if (hi - lo < min_run)
                continue;
            runs[kept] = (EdgeRun){lo, lo - d, hi - lo};
            if (best < 0 || runs[kept].k > runs[best].k ||
                (runs[kept].k == runs[best].k &&
                 (lo < runs[best].i || (lo == runs[best].i && runs[kept].j < runs[best].j))))
                best = kept;
            kept++;
        }
        if (best < 0)
            continue;
        const EdgeRun top = runs[best];
        chosen[n_chosen++] = top;
        Py_ssize_t left = box.from, right;
        for (Py_ssize_t r = box.from; r < kept; r++) {
            if (runs[r].i < top.i && runs[r].j < top.j) {
                const EdgeRun swap = runs[left];
                runs[left++] = runs[r];
                runs[r] = swap;
            }
        }
        right = left;
        for (Py_ssize_t r = left; r < kept; r++) {
            if (runs[r].i + runs[r].k > top.i + top.k && runs[r].j + runs[r].k > top.j + top.k) {
                const EdgeRun swap = runs[right];
                runs[right++] = runs[r];
                runs[r] = swap;
            }
        }
        if (left > box.from)
            stack[depth++] = (EdgeBox){box.alo, top.i, box.blo, top.j, box.from, left};
        if (right > left)
            stack[depth++] = (EdgeBox){top.i + top.k, box.ahi, top.j + top.k, box.bhi, left, right};
    }
    PyMem_Free(stack);
    qsort(chosen, (size_t)n_chosen, sizeof(EdgeRun), edge_run_order);
    return n_chosen;
}

/* The matching blocks of the int64 buffers args[0] and args[1] with min_run = args[2] and
   max_grams = args[3], in *chosen (PyMem, NULL when none) and *n_chosen: 0, 1 (more than
   max_grams equal grams: none), or -1 with an exception set. */
static int edge_align(PyObject *const *args, const char *name, EdgeRun **chosen,
                      Py_ssize_t *n_chosen)
{
    *chosen = NULL;
    *n_chosen = 0;
    const Py_ssize_t min_run = PyLong_AsSsize_t(args[2]);
    if (min_run == -1 && PyErr_Occurred())
        return -1;
    const Py_ssize_t max_grams = PyLong_AsSsize_t(args[3]);
    if (max_grams == -1 && PyErr_Occurred())
        return -1;
    if (min_run < 1) {
        PyErr_Format(PyExc_ValueError, "%s() needs min_run >= 1", name);
        return -1;
    }
    Py_buffer ab, bb;
    if (two_buffers(args, &ab, &bb) < 0)
        return -1;
    EdgeRuns runs = {NULL, 0, 0};
    int status = -1;
    if (ab.len % (Py_ssize_t)sizeof(int64_t) || bb.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_Format(PyExc_ValueError, "%s() needs int64 tokens", name);
        goto done;
    }
    const Py_ssize_t na = ab.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t nb = bb.len / (Py_ssize_t)sizeof(int64_t);
    status = edge_equal_runs((const int64_t *)ab.buf, na, (const int64_t *)bb.buf, nb, min_run,
                             max_grams, &runs);
    if (status != 0 || runs.size == 0)
        goto done;
    *chosen = PyMem_Malloc((size_t)runs.size * sizeof(EdgeRun));
    if (*chosen == NULL) {
        PyErr_NoMemory();
        status = -1;
        goto done;
    }
    *n_chosen = edge_choose_runs(runs.v, runs.size, na, nb, min_run, *chosen);
    if (*n_chosen < 0) {
        PyMem_Free(*chosen);
        *chosen = NULL;
        *n_chosen = 0;
        status = -1;
    }
done:
    PyMem_Free(runs.v);
    PyBuffer_Release(&ab);
    PyBuffer_Release(&bb);
    return status;
}

PyDoc_STRVAR(matching_blocks_doc,
"matching_blocks(a, b, min_run, max_grams) -> list of (i, j, size) or None\n\n"
"simdup.passages._matching_blocks_python(a, b, min_run, max_grams): the matching blocks of\n"
"difflib.SequenceMatcher(None, a, b, autojunk=False) of at least min_run tokens (a and b\n"
"int64 buffers), in order; None when more than max_grams pairs of positions start equal\n"
"min_run-grams.");

static PyObject *matching_blocks(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "matching_blocks() takes 4 arguments");
        return NULL;
    }
    EdgeRun *chosen;
    Py_ssize_t n_chosen;
    const int status = edge_align(args, "matching_blocks", &chosen, &n_chosen);
    if (status < 0)
        return NULL;
    if (status == 1)
        Py_RETURN_NONE;
    PyObject *result = PyList_New(n_chosen);
    for (Py_ssize_t r = 0; result != NULL && r < n_chosen; r++) {
        PyObject *run = Py_BuildValue("(nnn)", chosen[r].i, chosen[r].j, chosen[r].k);
        if (run == NULL)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, r, run);
    }
    PyMem_Free(chosen);
    return result;
}

/* How many of positions x..x + k - 1 lie in lo..hi - 1. */
static inline Py_ssize_t edge_overlap(Py_ssize_t x, Py_ssize_t k, Py_ssize_t lo, Py_ssize_t hi)
{
    const Py_ssize_t from = x > lo ? x : lo, to = x + k < hi ? x + k : hi;
    return to > from ? to - from : 0;
}

PyDoc_STRVAR(edge_chain_doc,
"edge_chain(a, b, min_run, max_grams, gap, core_a_start, core_a_stop, core_b_start,\n"
"           core_b_stop) -> (first_a, last_a, first_b, last_b) or None\n\n"
"simdup.passages._edge_chain_python with the same arguments: of the matching blocks of the\n"
"int64 buffers a and b (matching_blocks), the chain (consecutive blocks no more than `gap`\n"
"tokens apart on either side) holding most positions of a[core_a_start:core_a_stop] and\n"
"b[core_b_start:core_b_stop]; its first and last token on each side. None when no block\n"
"(or more than max_grams equal grams), or none holds any of them.");

static PyObject *edge_chain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "edge_chain() takes 9 arguments");
        return NULL;
    }
    Py_ssize_t numbers[5];
    for (int p = 0; p < 5; p++) {
        numbers[p] = PyLong_AsSsize_t(args[4 + p]);
        if (numbers[p] == -1 && PyErr_Occurred())
            return NULL;
    }
    const Py_ssize_t gap = numbers[0], a_lo = numbers[1], a_hi = numbers[2], b_lo = numbers[3],
                     b_hi = numbers[4];
    EdgeRun *c;
    Py_ssize_t n;
    const int status = edge_align(args, "edge_chain", &c, &n);
    if (status < 0)
        return NULL;
    /* Runs chain while no more than `gap` tokens lie between two of them on either side; the
       best chain is the first of the highest score, and must score above 0. */
    Py_ssize_t best_first = -1, best_last = -1, head = 0, best_score = 0, score = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (r && (c[r].i - (c[r - 1].i + c[r - 1].k) > gap ||
                  c[r].j - (c[r - 1].j + c[r - 1].k) > gap)) {
            if (score > best_score) {
                best_first = head;
                best_last = r - 1;
                best_score = score;
            }
            head = r;
            score = 0;
        }
        score += edge_overlap(c[r].i, c[r].k, a_lo, a_hi) +
                 edge_overlap(c[r].j, c[r].k, b_lo, b_hi);
    }
    if (score > best_score) {
        best_first = head;
        best_last = n - 1;
    }
    PyObject *result;
    if (best_first < 0) {
        result = Py_NewRef(Py_None);
    }
    else {
        const EdgeRun first = c[best_first], last = c[best_last];
        result = Py_BuildValue("(nnnn)", first.i, last.i + last.k - 1, first.j,
                               last.j + last.k - 1);
    }
    PyMem_Free(c);
    return result;
}

static PyMethodDef methods[] = {
    {"collapse", collapse, METH_O, collapse_doc},
    {"digest", (PyCFunction)(void (*)(void))digest, METH_FASTCALL, digest_doc},
    {"unit_memo", unit_memo, METH_NOARGS, unit_memo_doc},
    {"unit_memo_size", unit_memo_size, METH_O, unit_memo_size_doc},
    {"unit_memo_clear", unit_memo_clear, METH_O, unit_memo_clear_doc},
    {"unit_memo_units", unit_memo_units, METH_O, unit_memo_units_doc},
    {"unit_memo_get", (PyCFunction)(void (*)(void))unit_memo_get, METH_FASTCALL,
     unit_memo_get_doc},
    {"document_parts", (PyCFunction)(void (*)(void))document_parts, METH_FASTCALL,
     document_parts_doc},
    {"simhash", (PyCFunction)(void (*)(void))simhash, METH_FASTCALL, simhash_doc},
    {"simhash_of_weights", (PyCFunction)(void (*)(void))simhash_of_weights, METH_FASTCALL,
     simhash_of_weights_doc},
    {"strip_urls", (PyCFunction)(void (*)(void))strip_urls, METH_FASTCALL, strip_urls_doc},
    {"markup_marks", markup_marks, METH_O, markup_marks_doc},
    {"markup_word_hashes", markup_word_hashes, METH_O, markup_word_hashes_doc},
    {"strip_link_targets", (PyCFunction)(void (*)(void))strip_link_targets, METH_FASTCALL,
     strip_link_targets_doc},
    {"strip_ignorables", strip_ignorables, METH_O, strip_ignorables_doc},
    {"bottom_k_jaccard", (PyCFunction)(void (*)(void))bottom_k_jaccard, METH_FASTCALL,
     jaccard_doc},
    {"bottom_k_jaccard_pairs", (PyCFunction)(void (*)(void))bottom_k_jaccard_pairs,
     METH_FASTCALL, jaccard_pairs_doc},
    {"count_controls", (PyCFunction)(void (*)(void))count_controls, METH_FASTCALL,
     count_controls_doc},
    {"minhash_signature", (PyCFunction)(void (*)(void))minhash_signature, METH_FASTCALL,
     minhash_signature_doc},
    {"bottom_k", (PyCFunction)(void (*)(void))bottom_k, METH_FASTCALL, bottom_k_doc},
    {"table_pairs", (PyCFunction)(void (*)(void))table_pairs, METH_FASTCALL, table_pairs_doc},
    {"group_counters", (PyCFunction)(void (*)(void))group_counters, METH_FASTCALL,
     group_counters_doc},
    {"cut_blocks", (PyCFunction)(void (*)(void))cut_blocks, METH_FASTCALL, cut_blocks_doc},
    {"window_fingerprints", (PyCFunction)(void (*)(void))window_fingerprints, METH_FASTCALL,
     window_fingerprints_doc},
    {"distinct_runs", (PyCFunction)(void (*)(void))distinct_runs, METH_FASTCALL,
     distinct_runs_doc},
    {"edge_vocabulary", edge_vocabulary, METH_NOARGS, edge_vocabulary_doc},
    {"edge_vocabulary_size", edge_vocabulary_size, METH_O, edge_vocabulary_size_doc},
    {"edge_tokens", (PyCFunction)(void (*)(void))edge_tokens, METH_FASTCALL, edge_tokens_doc},
    {"line_offsets", line_offsets, METH_O, line_offsets_doc},
    {"matching_blocks", (PyCFunction)(void (*)(void))matching_blocks, METH_FASTCALL,
     matching_blocks_doc},
    {"edge_chain", (PyCFunction)(void (*)(void))edge_chain, METH_FASTCALL, edge_chain_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "simdup.native._speedups",
    .m_doc = "Native versions of simdup's hot loops (see the comment at the top of the source).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    init_ascii_class();
    init_ignorable_bmp();
    init_minhash_seeds();
    return PyModule_Create(&module);
}
