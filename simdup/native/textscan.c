/*
 * simdup/native/textscan.c: a text's units and their memo; whitespace collapsing.
 *
 * collapse, digest and the memo of units it keeps (unit_memo, unit_memo_size,
 * unit_memo_clear, unit_memo_units, unit_memo_get); their pure-Python twins are in
 * simdup/text/textscan.py.
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

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

/* *items (of *capacity, grown by doubling from 4096) with room for `more` after `used`; -1
   with MemoryError. */
static int room_for(void **items, Py_ssize_t *capacity, Py_ssize_t used, Py_ssize_t more,
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

/* Term frequencies of one document by code. Codes in [0, n_slots) are counted in a small
   open-addressing table (code -> its place in `touched`, the codes in order of first use,
   beside their counts): it stays in the cache, where a dense array over every slot of the
   vocabulary (tens of thousands) had a cache miss for most tokens. Codes outside go to
   `other`, whose values the Python side reads. */
typedef struct {
    Py_ssize_t n_slots;
    Py_ssize_t *touched; /* codes with a count, in order of first use */
    double *counts;      /* counts[i]: the count of touched[i] */
    Py_ssize_t n_touched, cap_touched, cap_counts;
    int32_t *table;      /* place in touched + 1 (0: empty); table_mask + 1 entries */
    Py_ssize_t table_mask;
    PyObject *other;     /* code -> count for codes outside [0, n_slots) other than -1 */
    Py_ssize_t tokens;   /* every token counted, stopwords included */
    Py_ssize_t stored;   /* characters of the units added to the memo */
} Tally;

#define TALLY_FIRST_TABLE 256 /* entries: room for 128 distinct terms before it grows */

static int tally_init(Tally *t, Py_ssize_t n_slots)
{
    memset(t, 0, sizeof(*t));
    t->n_slots = n_slots;
    t->other = PyDict_New();
    if (t->other == NULL)
        return -1;
    t->table = PyMem_Calloc(TALLY_FIRST_TABLE, sizeof(int32_t));
    if (t->table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->table_mask = TALLY_FIRST_TABLE - 1;
    return 0;
}

static void tally_free(Tally *t)
{
    PyMem_Free(t->table);
    PyMem_Free(t->touched);
    PyMem_Free(t->counts);
    Py_XDECREF(t->other);
}

static inline Py_ssize_t tally_place(Py_ssize_t code, Py_ssize_t mask)
{
    return (Py_ssize_t)(((uint64_t)code * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

/* Twice the table, every touched code put back (when it is half full). */
static int tally_grow(Tally *t)
{
    Py_ssize_t size = 2 * (t->table_mask + 1);
    if (size > INT32_MAX) {
        PyErr_NoMemory();
        return -1;
    }
    int32_t *table = PyMem_Calloc((size_t)size, sizeof(int32_t));
    if (table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t mask = size - 1;
    for (Py_ssize_t i = 0; i < t->n_touched; i++) {
        Py_ssize_t s = tally_place(t->touched[i], mask);
        while (table[s])
            s = (s + 1) & mask;
        table[s] = (int32_t)(i + 1);
    }
    PyMem_Free(t->table);
    t->table = table;
    t->table_mask = mask;
    return 0;
}

static int tally_add(Tally *t, Py_ssize_t code, Py_ssize_t n)
{
    t->tokens += n;
    if (code >= 0 && code < t->n_slots) {
        Py_ssize_t s = tally_place(code, t->table_mask);
        for (;;) {
            int32_t at = t->table[s];
            if (at == 0)
                break;
            if (t->touched[at - 1] == code) {
                t->counts[at - 1] += (double)n;
                return 0;
            }
            s = (s + 1) & t->table_mask;
        }
        if (room_for((void **)&t->touched, &t->cap_touched, t->n_touched, 1,
                           sizeof(Py_ssize_t)) < 0 ||
            room_for((void **)&t->counts, &t->cap_counts, t->n_touched, 1,
                           sizeof(double)) < 0)
            return -1;
        t->touched[t->n_touched] = code;
        t->counts[t->n_touched] = (double)n;
        t->table[s] = (int32_t)(++t->n_touched);
        return 2 * t->n_touched > t->table_mask ? tally_grow(t) : 0;
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
            tf_out[i] = t->counts[i];
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
/* One loop per character width, so that reads are plain array accesses (reading through
   PyUnicode_READ tested the width at every character: a third of a digest). */
#define NEXT_UNIT(T)                                                                          \
    static int next_unit_##T(const T *s, Py_ssize_t n, Py_ssize_t *pos, Py_ssize_t *start,   \
                             Py_ssize_t *end)                                                 \
    {                                                                                         \
        Py_ssize_t i = *pos;                                                                  \
        while (i < n && is_space(s[i]))                                                       \
            i++;                                                                              \
        if (i >= n)                                                                           \
            return 0;                                                                         \
        *start = i;                                                                           \
        for (;;) {                                                                            \
            /* the next whitespace run that holds a line break */                             \
            while (i < n && !is_space(s[i]))                                                  \
                i++;                                                                          \
            if (i >= n) {                                                                     \
                *end = *pos = n;                                                              \
                return 1;                                                                     \
            }                                                                                 \
            Py_ssize_t gap = i, newline = 0;                                                  \
            while (i < n && is_space(s[i])) {                                                 \
                if (s[i] == '\n')                                                             \
                    newline = 1;                                                              \
                i++;                                                                          \
            }                                                                                 \
            if (i >= n) {                                                                     \
                *end = gap;                                                                   \
                *pos = n;                                                                     \
                return 1;                                                                     \
            }                                                                                 \
            if (newline && !(is_cjk(s[gap - 1]) && is_cjk(s[i]))) {                           \
                *end = gap;                                                                   \
                *pos = i;                                                                     \
                return 1;                                                                     \
            }                                                                                 \
        }                                                                                     \
    }

NEXT_UNIT(Py_UCS1)
NEXT_UNIT(Py_UCS2)
NEXT_UNIT(Py_UCS4)
#undef NEXT_UNIT

static int next_unit(int kind, const void *data, Py_ssize_t n, Py_ssize_t *pos,
                     Py_ssize_t *start, Py_ssize_t *end)
{
    if (kind == PyUnicode_1BYTE_KIND)
        return next_unit_Py_UCS1(data, n, pos, start, end);
    if (kind == PyUnicode_2BYTE_KIND)
        return next_unit_Py_UCS2(data, n, pos, start, end);
    return next_unit_Py_UCS4(data, n, pos, start, end);
}

/* ---- the memo of units, natively (unit_memo) ---- */

/* A memo of units (simdup.text.textscan.digest_python's `memo`: a unit -> the int32 codes of its
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

/* The slot of text[start:end] (of `hash`), looking from slot `first` (where `hash` lands):
   the one holding it, or the empty one where it would go. */
static inline UnitSlot *unit_slot_from(const UnitMemo *m, int kind, const void *data,
                                       Py_ssize_t start, Py_ssize_t end, uint64_t hash,
                                       Py_ssize_t first)
{
    const Py_ssize_t length = end - start;
    for (Py_ssize_t s = first;; s = (s + 1) & m->mask) {
        UnitSlot *e = &m->slots[s];
        if (!e->length)
            return e;
        if (e->hash == hash && e->length == length &&
            unit_same(m->chars + e->chars_at, kind, data, start, length))
            return e;
    }
}

static inline UnitSlot *unit_slot(const UnitMemo *m, int kind, const void *data,
                                  Py_ssize_t start, Py_ssize_t end, uint64_t hash)
{
    const Py_ssize_t first = (Py_ssize_t)(hash & (uint64_t)m->mask);
    return unit_slot_from(m, kind, data, start, end, hash, first);
}

/* The units of a text with their hashes and the memo slots they land on. */
typedef struct {
    Py_ssize_t start, end, slot;
    uint64_t hash;
} FoundUnit;

typedef struct {
    FoundUnit *items;
    Py_ssize_t n, cap;
} FoundUnits;

/* Every unit of the text into `found`, each one's memo slot prefetched; -1 with MemoryError. */
static int find_units(int kind, const void *data, Py_ssize_t n, const UnitMemo *m,
                      FoundUnits *found)
{
    Py_ssize_t pos = 0, start, end;
    while (next_unit(kind, data, n, &pos, &start, &end)) {
        if (room_for((void **)&found->items, &found->cap, found->n, 1,
                           sizeof(FoundUnit)) < 0)
            return -1;
        uint64_t hash = unit_hash(kind, data, start, end);
        Py_ssize_t slot = (Py_ssize_t)(hash & (uint64_t)m->mask);
        PREFETCH(&m->slots[slot]);
        found->items[found->n++] = (FoundUnit){start, end, slot, hash};
    }
    return 0;
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
    if (room_for((void **)&m->chars, &m->chars_capacity, m->n_chars, length,
                       sizeof(Py_UCS4)) < 0 ||
        room_for((void **)&m->codes, &m->codes_capacity, m->n_codes, n, sizeof(int32_t)) < 0)
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
"simdup.text.textscan.digest_python for the definition.");

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
    FoundUnits found = {NULL, 0, 0};
    PyObject *missed = NULL, *result = NULL;
    if (tally_init(&t, n_slots) < 0)
        goto done;
    missed = PyList_New(0);
    if (missed == NULL)
        goto done;

    /* 1. Units found in the memo are counted from it; the others are collected. With the
       native memo, every unit is found and hashed first and its slot fetched ahead: a probe
       of a large memo is a cache miss, and these then overlap instead of following one
       another (they were a quarter of the time of a digest). */
    Py_ssize_t pos = 0, start, end;
    if (native_memo != NULL) {
        if (find_units(kind, data, n, native_memo, &found) < 0)
            goto done;
        for (Py_ssize_t u = 0; u < found.n; u++) {
            const FoundUnit *f = &found.items[u];
            if (u + 1 < found.n) { /* the next unit's characters and codes, if it is known */
                const UnitSlot *next = &native_memo->slots[found.items[u + 1].slot];
                if (next->length) {
                    PREFETCH(native_memo->chars + next->chars_at);
                    PREFETCH(native_memo->codes + next->codes_at);
                }
            }
            const UnitSlot *e = unit_slot_from(native_memo, kind, data, f->start, f->end,
                                               f->hash, f->slot);
            if (e->length) {
                if (tally_codes(&t, native_memo->codes + e->codes_at, e->n_codes) < 0)
                    goto done;
                continue;
            }
            PyObject *unit = PyUnicode_Substring(text, f->start, f->end);
            if (unit == NULL)
                goto done;
            int rc = PyList_Append(missed, unit);
            Py_DECREF(unit);
            if (rc < 0)
                goto done;
        }
    }
    else {
        while (next_unit(kind, data, n, &pos, &start, &end)) {
            PyObject *unit = PyUnicode_Substring(text, start, end);
            if (unit == NULL)
                goto done;
            PyObject *hit = PyDict_GetItemWithError(memo, unit); /* borrowed */
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
    PyMem_Free(found.items);
    Py_XDECREF(missed);
    return result;
}

PyMethodDef simdup_textscan_methods[] = {
    {"collapse", collapse, METH_O, collapse_doc},
    {"digest", (PyCFunction)(void (*)(void))digest, METH_FASTCALL, digest_doc},
    {"unit_memo", unit_memo, METH_NOARGS, unit_memo_doc},
    {"unit_memo_size", unit_memo_size, METH_O, unit_memo_size_doc},
    {"unit_memo_clear", unit_memo_clear, METH_O, unit_memo_clear_doc},
    {"unit_memo_units", unit_memo_units, METH_O, unit_memo_units_doc},
    {"unit_memo_get", (PyCFunction)(void (*)(void))unit_memo_get, METH_FASTCALL,
     unit_memo_get_doc},
    {NULL, NULL, 0, NULL},
};
