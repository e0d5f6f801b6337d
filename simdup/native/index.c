/*
 * simdup/native/index.c: one table of the exact Hamming index, and its radix sort.
 *
 * table_pairs; its pure-Python twin is in simdup/algorithms/index.py.
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

/* ---- one table of the exact Hamming index (simdup/algorithms/index.py: _table_pairs) ---------------- */

PyDoc_STRVAR(table_pairs_doc,
"table_pairs(unique, key_masks, earlier_masks, threshold) -> (a, b, d) or None\n\n"
"The pairs one table of the block index emits (simdup/algorithms/index.py: _table_pairs): positions\n"
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

PyMethodDef simdup_index_methods[] = {
    {"table_pairs", (PyCFunction)(void (*)(void))table_pairs, METH_FASTCALL, table_pairs_doc},
    {NULL, NULL, 0, NULL},
};
