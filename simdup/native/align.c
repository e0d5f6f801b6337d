/*
 * simdup/native/align.c: line-level edges of passages: tokens as ids, and their alignment.
 *
 * edge_vocabulary, edge_vocabulary_size, edge_tokens, line_offsets, matching_blocks and
 * edge_chain; their pure-Python twins are in simdup/passages/align.py.
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

/* ------------------------------------------------------------------ line-level edges */

/* simdup/passages/align.py, "Line-level edges": the tokens of a casefolded text as ids that are equal
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
"simdup.passages.align.edge_tokens_python(folded, vocabulary) as native int64 bytes, `vocabulary`\n"
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
"simdup.passages.align.line_offsets_python(text) as native int64 bytes: where each line of `text`\n"
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
"simdup.passages.align.matching_blocks_python(a, b, min_run, max_grams): the matching blocks of\n"
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
"simdup.passages.align.edge_chain_python with the same arguments: of the matching blocks of the\n"
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

PyMethodDef simdup_align_methods[] = {
    {"edge_vocabulary", edge_vocabulary, METH_NOARGS, edge_vocabulary_doc},
    {"edge_vocabulary_size", edge_vocabulary_size, METH_O, edge_vocabulary_size_doc},
    {"edge_tokens", (PyCFunction)(void (*)(void))edge_tokens, METH_FASTCALL, edge_tokens_doc},
    {"line_offsets", line_offsets, METH_O, line_offsets_doc},
    {"matching_blocks", (PyCFunction)(void (*)(void))matching_blocks, METH_FASTCALL,
     matching_blocks_doc},
    {"edge_chain", (PyCFunction)(void (*)(void))edge_chain, METH_FASTCALL, edge_chain_doc},
    {NULL, NULL, 0, NULL},
};
