/*
 * simdup/native/fragments.c: the exact runs of two k-gram sequences and the chains they make.
 *
 *   winnow            the k-grams winnowing keeps
 *                     (twin: simdup.algorithms.winnowing:winnow_python)
 *   fragment_chains   seeds, runs, clusters and chains of align()
 *                     (twin: simdup.algorithms.fragments:fragment_chains_python)
 *
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

#include <stdlib.h>

PyDoc_STRVAR(fragment_chains_doc,
"fragment_chains(qk, sk, k, max_occurrences, reach, min_match) -> (runs, chains, chain_of)\n\n"
"simdup.algorithms.fragments.fragment_chains_python: the exact runs of the k-gram hashes qk\n"
"and sk (uint64) that may make a fragment, rows (q0, q1, s0), and the chains they make, rows\n"
"(q_first, q_end, s_first, s_end, tokens), with each run's chain: three int64 bytes.");

typedef struct {
    uint64_t value;
    int64_t at;
} Keyed;

static int compare_keyed(const void *a, const void *b)
{
    const Keyed *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* A seed or a run: q, the diagonal (s - q), and for a run its last q. */
typedef struct {
    int64_t q, diagonal, q_last;
} Seed;

static int compare_by_diagonal(const void *a, const void *b)
{
    const Seed *x = a, *y = b;
    if (x->diagonal != y->diagonal)
        return (x->diagonal > y->diagonal) - (x->diagonal < y->diagonal);
    return (x->q > y->q) - (x->q < y->q);
}

static int compare_by_q(const void *a, const void *b)
{
    const Seed *x = a, *y = b;
    if (x->q != y->q)
        return (x->q > y->q) - (x->q < y->q);
    return (x->diagonal > y->diagonal) - (x->diagonal < y->diagonal);
}

static PyObject *three_empty(void)
{
    return Py_BuildValue("(y#y#y#)", "", (Py_ssize_t)0, "", (Py_ssize_t)0, "", (Py_ssize_t)0);
}

static PyObject *fragment_chains(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "fragment_chains(qk, sk, k, max_occurrences, reach, min_match)");
        return NULL;
    }
    const Py_ssize_t k = PyLong_AsSsize_t(args[2]);
    const Py_ssize_t max_occurrences = PyLong_AsSsize_t(args[3]);
    const Py_ssize_t reach = PyLong_AsSsize_t(args[4]);
    const double min_match = PyFloat_AsDouble(args[5]);
    if (PyErr_Occurred())
        return NULL;
    if (k < 1) {
        PyErr_SetString(PyExc_ValueError, "fragment_chains: k must be at least 1");
        return NULL;
    }
    Py_buffer qb, sb;
    if (PyObject_GetBuffer(args[0], &qb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &sb, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&qb);
        return NULL;
    }
    PyObject *result = NULL;
    Keyed *sorted = NULL;
    Seed *seeds = NULL, *runs = NULL;
    int64_t *open = NULL, *chains = NULL, *chain_of = NULL, *kept = NULL;
    if (qb.len % 8 || sb.len % 8) {
        PyErr_SetString(PyExc_ValueError, "fragment_chains: qk and sk must be uint64 arrays");
        goto done;
    }
    const uint64_t *qk = qb.buf, *sk = sb.buf;
    const Py_ssize_t nq = qb.len / 8, ns = sb.len / 8;
    if (nq == 0 || ns == 0) {
        result = three_empty();
        goto done;
    }

    /* The source's k-grams sorted by value, then place (numpy's stable argsort). */
    sorted = PyMem_Malloc((size_t)ns * sizeof(Keyed));
    if (sorted == NULL)
        goto nomemory;
    for (Py_ssize_t j = 0; j < ns; j++) {
        sorted[j].value = sk[j];
        sorted[j].at = j;
    }
    qsort(sorted, (size_t)ns, sizeof(Keyed), compare_keyed);

    /* Seeds: each query k-gram with every place of it in the source, unless too many. */
    Py_ssize_t n_seeds = 0, capacity = 0;
    for (Py_ssize_t i = 0; i < nq; i++) {
        Py_ssize_t lo = 0, hi = ns;
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            if (sorted[mid].value < qk[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        Py_ssize_t end = lo;
        while (end < ns && sorted[end].value == qk[i])
            end++;
        if (end - lo == 0 || end - lo > max_occurrences)
            continue;
        if (n_seeds + (end - lo) > capacity) {
            Py_ssize_t grown_capacity = capacity ? 2 * capacity : 1024;
            while (grown_capacity < n_seeds + (end - lo))
                grown_capacity *= 2;
            Seed *grown = PyMem_Realloc(seeds, (size_t)grown_capacity * sizeof(Seed));
            if (grown == NULL)
                goto nomemory;
            seeds = grown;
            capacity = grown_capacity;
        }
        for (Py_ssize_t t = lo; t < end; t++) {
            seeds[n_seeds].q = i;
            seeds[n_seeds].diagonal = sorted[t].at - i;
            seeds[n_seeds].q_last = i;
            n_seeds++;
        }
    }
    if (n_seeds == 0) {
        result = three_empty();
        goto done;
    }

    /* Runs: seeds on one diagonal one apart; then by q0 (and diagonal). */
    qsort(seeds, (size_t)n_seeds, sizeof(Seed), compare_by_diagonal);
    runs = PyMem_Malloc((size_t)n_seeds * sizeof(Seed));
    if (runs == NULL)
        goto nomemory;
    Py_ssize_t n_runs = 0;
    for (Py_ssize_t t = 0; t < n_seeds; t++) {
        if (n_runs && runs[n_runs - 1].diagonal == seeds[t].diagonal &&
            runs[n_runs - 1].q_last + 1 == seeds[t].q) {
            runs[n_runs - 1].q_last = seeds[t].q;
        } else {
            runs[n_runs] = seeds[t];
            n_runs++;
        }
    }
    qsort(runs, (size_t)n_runs, sizeof(Seed), compare_by_q);

    /* Clusters of runs at most `reach` apart on the query side; those holding fewer than
       min_match tokens go. */
    kept = PyMem_Malloc((size_t)n_runs * sizeof(int64_t));
    if (kept == NULL)
        goto nomemory;
    Py_ssize_t n_kept = 0, cluster_start = 0;
    int64_t furthest = 0, held = 0;
    for (Py_ssize_t r = 0; r <= n_runs; r++) {
        int starts_new = r == n_runs || (r > 0 && runs[r].q - furthest > reach);
        if (starts_new && r > 0) {
            if ((double)held >= min_match - 1e-9)
                for (Py_ssize_t x = cluster_start; x < r; x++)
                    kept[n_kept++] = x;
            cluster_start = r;
            held = 0;
        }
        if (r == n_runs)
            break;
        int64_t end = runs[r].q_last + k - 1;
        furthest = r == 0 || end > furthest ? end : furthest;
        held += runs[r].q_last - runs[r].q + k;
    }

    /* Chains, as the twin makes them. */
    chains = PyMem_Malloc((size_t)(n_kept ? n_kept : 1) * 5 * sizeof(int64_t));
    chain_of = PyMem_Malloc((size_t)(n_kept ? n_kept : 1) * sizeof(int64_t));
    open = PyMem_Malloc((size_t)(n_kept ? n_kept : 1) * sizeof(int64_t));
    if (chains == NULL || chain_of == NULL || open == NULL)
        goto nomemory;
    Py_ssize_t n_chains = 0, n_open = 0;
    for (Py_ssize_t x = 0; x < n_kept; x++) {
        const Seed *run = &runs[kept[x]];
        const int64_t q0 = run->q, q1 = run->q_last, s0 = run->q + run->diagonal;
        const int64_t q_end = q1 + k - 1, s_end = s0 + (q1 - q0) + k - 1;
        Py_ssize_t best = -1;
        int64_t best_cost = 0;
        int closed = 0;
        for (Py_ssize_t o = 0; o < n_open; o++) {
            const int64_t *chain = &chains[5 * open[o]];
            const int64_t dq = q0 - chain[1];
            if (dq > reach) {
                closed = 1;
                continue;
            }
            const int64_t ds = s0 - chain[3];
            if (s0 <= chain[2] || !(-k < ds && ds <= reach) || dq <= -k)
                continue;
            const int64_t cost = (dq > ds ? dq - ds : ds - dq) + (dq > 0 ? dq : 0);
            if (best < 0 || cost < best_cost) {
                best = open[o];
                best_cost = cost;
            }
        }
        if (closed) {
            Py_ssize_t w = 0;
            for (Py_ssize_t o = 0; o < n_open; o++)
                if (q0 - chains[5 * open[o] + 1] <= reach)
                    open[w++] = open[o];
            n_open = w;
        }
        if (best >= 0) {
            int64_t *chain = &chains[5 * best];
            if (q_end > chain[1])
                chain[1] = q_end;
            if (s_end > chain[3])
                chain[3] = s_end;
            chain[4] += q1 - q0 + k;
            chain_of[x] = best;
        } else {
            int64_t *chain = &chains[5 * n_chains];
            chain[0] = q0;
            chain[1] = q_end;
            chain[2] = s0;
            chain[3] = s_end;
            chain[4] = q1 - q0 + k;
            chain_of[x] = n_chains;
            open[n_open++] = n_chains;
            n_chains++;
        }
    }

    /* The kept runs as rows (q0, q1, s0). */
    int64_t *rows = PyMem_Malloc((size_t)(n_kept ? n_kept : 1) * 3 * sizeof(int64_t));
    if (rows == NULL)
        goto nomemory;
    for (Py_ssize_t x = 0; x < n_kept; x++) {
        const Seed *run = &runs[kept[x]];
        rows[3 * x] = run->q;
        rows[3 * x + 1] = run->q_last;
        rows[3 * x + 2] = run->q + run->diagonal;
    }
    result = Py_BuildValue("(y#y#y#)", (const char *)rows, (Py_ssize_t)(n_kept * 3 * 8),
                           (const char *)chains, (Py_ssize_t)(n_chains * 5 * 8),
                           (const char *)chain_of, (Py_ssize_t)(n_kept * 8));
    PyMem_Free(rows);
    goto done;

nomemory:
    PyErr_NoMemory();
done:
    PyMem_Free(sorted);
    PyMem_Free(seeds);
    PyMem_Free(runs);
    PyMem_Free(kept);
    PyMem_Free(chains);
    PyMem_Free(chain_of);
    PyMem_Free(open);
    PyBuffer_Release(&qb);
    PyBuffer_Release(&sb);
    return result;
}


PyDoc_STRVAR(winnow_doc,
"winnow(kgrams, w) -> bytes\n\n"
"simdup.algorithms.winnowing.winnow_python: the positions (int64 bytes, ascending) of the\n"
"rightmost smallest hash (kgrams: uint64) of every window of w consecutive ones, each once.");

static PyObject *winnow(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "winnow(kgrams, w)");
        return NULL;
    }
    const Py_ssize_t w = PyLong_AsSsize_t(args[1]);
    if (w == -1 && PyErr_Occurred())
        return NULL;
    if (w < 1) {
        PyErr_SetString(PyExc_ValueError, "w must be at least 1");
        return NULL;
    }
    Py_buffer kb;
    if (PyObject_GetBuffer(args[0], &kb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (kb.len % 8) {
        PyBuffer_Release(&kb);
        PyErr_SetString(PyExc_ValueError, "winnow: kgrams must be a uint64 array");
        return NULL;
    }
    const uint64_t *h = kb.buf;
    const Py_ssize_t n = kb.len / 8;
    PyObject *result = NULL;
    int64_t *out = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (out == NULL) {
        PyBuffer_Release(&kb);
        return PyErr_NoMemory();
    }
    Py_ssize_t count = 0;
    if (n > 0 && (n <= w || w == 1)) {
        if (w == 1) {
            for (Py_ssize_t i = 0; i < n; i++)
                out[count++] = i;
        } else {
            Py_ssize_t m = 0;
            for (Py_ssize_t i = 1; i < n; i++)
                if (h[i] <= h[m])
                    m = i;
            out[count++] = m;
        }
    } else if (n > 0) {
        /* The rightmost minimum of the window [i, i + w): it never moves left as the window
           slides, so each window either keeps it, takes the newcomer, or (when it has slid
           out) looks the window over again. */
        Py_ssize_t m = -1;
        for (Py_ssize_t i = 0; i + w <= n; i++) {
            const Py_ssize_t last = i + w - 1;
            if (m < i) {
                m = i;
                for (Py_ssize_t j = i + 1; j <= last; j++)
                    if (h[j] <= h[m])
                        m = j;
            } else if (h[last] <= h[m]) {
                m = last;
            }
            if (count == 0 || out[count - 1] != m)
                out[count++] = m;
        }
    }
    result = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(count * 8));
    PyMem_Free(out);
    PyBuffer_Release(&kb);
    return result;
}

PyMethodDef simdup_fragments_methods[] = {
    {"winnow", (PyCFunction)(void (*)(void))winnow, METH_FASTCALL, winnow_doc},
    {"fragment_chains", (PyCFunction)(void (*)(void))fragment_chains, METH_FASTCALL,
     fragment_chains_doc},
    {NULL, NULL, 0, NULL},
};
