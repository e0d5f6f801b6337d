/*
 * simdup/native/sketches.c: SimHash, bottom-k sketches, MinHash; a document's parts in one
 * call.
 *
 * simhash and simhash_of_weights (twins in simdup/algorithms/simhash.py),
 * bottom_k, bottom_k_jaccard and bottom_k_jaccard_pairs (simdup/algorithms/sketch.py),
 * minhash_signature (simdup/algorithms/minhash.py), weighted_terms (simdup/text/features.py:
 * the hashes and weights a document's parts are made of) and document_parts
 * (simdup/text/processor.py), which runs the others' kernels on one document: it is in their
 * file, so that they inline into it.
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

#include <math.h>

/* ------------------------------------------------------------------ simhash */

PyDoc_STRVAR(simhash_doc,
"simhash(hashes, weights) -> int\n\n"
"Charikar SimHash of uint64 hashes with float64 weights that are integers of magnitude below\n"
"2**24 (simhash.scaled_weights): bit i is 1 when the weights of hashes with bit i set outweigh\n"
"the others.");

/* The fingerprint of n hashes with integer weights wi (see simhash_doc). */
VECTOR_CLONES
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

/* wi = the weights w scaled as simdup/algorithms/simhash.py:scaled_weights scales them (by 2**(24 - e),
   e the exponent of the largest magnitude: ldexp is exact; rint rounds half to even, as
   numpy's rint does). -1 when a weight is not finite. */
VECTOR_CLONES
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
    if (shift < -1000 || shift > 1000) { /* 2**shift is no double: ldexp, one by one */
        for (Py_ssize_t i = 0; i < n; i++)
            wi[i] = (int64_t)rint(ldexp(w[i], shift));
        return 0;
    }
    /* Multiplying by a power of two rounds (if at all: below the normal range) exactly as
       ldexp does, and vectorises. */
    const double scale = ldexp(1.0, shift);
    for (Py_ssize_t i = 0; i < n; i++)
        wi[i] = (int64_t)rint(w[i] * scale);
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
"simhash(hashes, scaled_weights(weights)) in one call (simdup/algorithms/simhash.py): the finite\n"
"float64 weights scaled by a power of two so that the largest magnitude is below 2**24,\n"
"rounded half to even.");

static PyObject *simhash_of_weights(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return simhash_common(args, nargs, 1, "simhash_of_weights");
}

/* ------------------------------------------------------------------ bottom_k_jaccard */

PyDoc_STRVAR(jaccard_doc,
"bottom_k_jaccard(a, b, k) -> float\n\n"
"Jaccard estimate from two bottom-k sketches (sorted distinct uint32, native byte order).\n"
"See simdup.algorithms.sketch.estimate_jaccard for the definition.");

/* The estimate of simdup.algorithms.sketch.estimate_jaccard from two sorted distinct uint32 sketches. */
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
"a list of bytes, `i` and `j` int64 buffers of the same length. The estimates are computed\n"
"without the GIL (the sketches' addresses are taken first), so threads can share the work.");

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
    PyObject *result = NULL, *held = NULL;
    const uint32_t **start = NULL;
    Py_ssize_t *size = NULL;
    if (ib.len != jb.len || ib.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "bottom_k_jaccard_pairs() needs two int64 arrays of one length");
        goto done;
    }
    const Py_ssize_t n = ib.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *ii = (const int64_t *)ib.buf, *jj = (const int64_t *)jb.buf;
    /* The sketches' addresses and lengths, from a copy of the list (its items stay alive
       while the GIL is released, whatever another thread does to the list). */
    held = PyList_GetSlice(sketches, 0, PyList_GET_SIZE(sketches));
    if (held == NULL)
        goto done;
    const Py_ssize_t count = PyList_GET_SIZE(held);
    start = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(*start));
    size = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(*size));
    if (start == NULL || size == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t d = 0; d < count; d++) {
        PyObject *item = PyList_GET_ITEM(held, d);
        if (!PyBytes_Check(item)) {
            size[d] = -1;  /* an error only if a pair uses it */
            start[d] = NULL;
            continue;
        }
        start[d] = (const uint32_t *)PyBytes_AS_STRING(item);
        size[d] = PyBytes_GET_SIZE(item) / 4;
    }
    for (Py_ssize_t p = 0; p < n; p++) {
        if (ii[p] < 0 || ii[p] >= count || jj[p] < 0 || jj[p] >= count) {
            PyErr_SetString(PyExc_IndexError, "bottom_k_jaccard_pairs() index out of range");
            goto done;
        }
        if (size[ii[p]] < 0 || size[jj[p]] < 0) {
            PyErr_SetString(PyExc_TypeError, "bottom_k_jaccard_pairs() needs bytes sketches");
            goto done;
        }
    }
    result = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double));
    if (result == NULL)
        goto done;
    double *out = (double *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t p = 0; p < n; p++)
        out[p] = sketch_estimate(start[ii[p]], size[ii[p]], start[jj[p]], size[jj[p]], k);
    Py_END_ALLOW_THREADS
done:
    PyMem_Free(start);
    PyMem_Free(size);
    Py_XDECREF(held);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&jb);
    return result;
}

/* ------------------------------------------------------------------ minhash_signature */

/* Seed j (0-based) is mh_mix((j + 1) * golden) (simdup.algorithms.minhash._seeds): the seeds of `perms`
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
   (ifunc). Integer arithmetic: every clone gives the same values (VECTOR_CLONES). */
VECTOR_CLONES
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
"simdup.algorithms.minhash.signature_python(hashes, perms) as `perms` native-order uint64: for each\n"
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

/* ------------------------------------------------------------------ bottom_k */

PyDoc_STRVAR(bottom_k_doc,
"bottom_k(hashes, k) -> bytes\n\n"
"simdup.algorithms.sketch.bottom_k_python(hashes, k) as native-order uint32: the k smallest distinct\n"
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

/* ------------------------------------------------------------------ weighted_terms */

PyDoc_STRVAR(weighted_terms_doc,
"weighted_terms(slots, tf, hashes, idf, log_tf, weighting) -> (hashes, weights) | None\n\n"
"simdup.text.features.weighted_terms_python: the uint64 hashes[slots] and the float64 weights\n"
"of the int64 `slots` with term frequencies `tf` (float64), as native-order bytes. `weighting`\n"
"0 tf, 1 binary, 2 logtf, 3 tfidf (times idf[slots]); log_tf[k] is the log-tf weight of a\n"
"count k (1 + log k, computed by numpy: the same values as the twin's). None when a count is\n"
"not a whole number the table holds (the caller weighs with numpy).");

static PyObject *weighted_terms(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "weighted_terms() takes 6 arguments");
        return NULL;
    }
    long weighting = PyLong_AsLong(args[5]);
    if (weighting == -1 && PyErr_Occurred())
        return NULL;
    if (weighting < 0 || weighting > 3) {
        PyErr_SetString(PyExc_ValueError, "weighted_terms() needs a weighting of 0 to 3");
        return NULL;
    }
    Py_buffer sb, tb, hb, ib, lb;
    if (three_buffers(args, &sb, &tb, &hb) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &ib, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&sb);
        PyBuffer_Release(&tb);
        PyBuffer_Release(&hb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &lb, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&sb);
        PyBuffer_Release(&tb);
        PyBuffer_Release(&hb);
        PyBuffer_Release(&ib);
        return NULL;
    }
    PyObject *out_h = NULL, *out_w = NULL, *result = NULL;
    const Py_ssize_t n = sb.len / 8, vocabulary = hb.len / 8, table = lb.len / 8;
    if (sb.len % 8 || tb.len != sb.len || hb.len % 8 || ib.len != hb.len || lb.len % 8) {
        PyErr_SetString(PyExc_ValueError,
                        "weighted_terms() needs n int64 slots, n float64 counts, as many "
                        "uint64 hashes as float64 idf values, and a float64 table");
        goto done;
    }
    const int64_t *slots = (const int64_t *)sb.buf;
    const double *tf = (const double *)tb.buf, *idf = (const double *)ib.buf;
    const double *log_tf = (const double *)lb.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (slots[i] < 0 || slots[i] >= vocabulary) {
            PyErr_SetString(PyExc_IndexError, "weighted_terms() got a slot out of range");
            goto done;
        }
        /* A count the table cannot weigh exactly as numpy would: the caller does. */
        if (weighting >= 2 && !(tf[i] >= 1.0 && tf[i] < (double)table && tf[i] == floor(tf[i]))) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    out_h = PyBytes_FromStringAndSize(NULL, n * 8);
    out_w = PyBytes_FromStringAndSize(NULL, n * 8);
    if (out_h == NULL || out_w == NULL)
        goto done;
    uint64_t *h = (uint64_t *)PyBytes_AS_STRING(out_h);
    double *w = (double *)PyBytes_AS_STRING(out_w);
    const uint64_t *hashes = (const uint64_t *)hb.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        h[i] = hashes[slots[i]];
        switch (weighting) {
        case 0:
            w[i] = tf[i];
            break;
        case 1:
            w[i] = 1.0;
            break;
        case 2:
            w[i] = log_tf[(Py_ssize_t)tf[i]];
            break;
        default:
            w[i] = log_tf[(Py_ssize_t)tf[i]] * idf[slots[i]];
        }
    }
    result = PyTuple_Pack(2, out_h, out_w);
done:
    Py_XDECREF(out_h);
    Py_XDECREF(out_w);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&lb);
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

PyMethodDef simdup_sketches_methods[] = {
    {"document_parts", (PyCFunction)(void (*)(void))document_parts, METH_FASTCALL,
     document_parts_doc},
    {"weighted_terms", (PyCFunction)(void (*)(void))weighted_terms, METH_FASTCALL,
     weighted_terms_doc},
    {"simhash", (PyCFunction)(void (*)(void))simhash, METH_FASTCALL, simhash_doc},
    {"simhash_of_weights", (PyCFunction)(void (*)(void))simhash_of_weights, METH_FASTCALL,
     simhash_of_weights_doc},
    {"bottom_k_jaccard", (PyCFunction)(void (*)(void))bottom_k_jaccard, METH_FASTCALL,
     jaccard_doc},
    {"bottom_k_jaccard_pairs", (PyCFunction)(void (*)(void))bottom_k_jaccard_pairs,
     METH_FASTCALL, jaccard_pairs_doc},
    {"minhash_signature", (PyCFunction)(void (*)(void))minhash_signature, METH_FASTCALL,
     minhash_signature_doc},
    {"bottom_k", (PyCFunction)(void (*)(void))bottom_k, METH_FASTCALL, bottom_k_doc},
    {NULL, NULL, 0, NULL},
};

/* Run once by module.c, before the module is made (declared in common.h). */
void simdup_sketches_init(void) { init_minhash_seeds(); }
