/*
 * simdup/native/common.h: what the C files of simdup.native._speedups share.
 *
 * The extension is one module built from several files, one per topic; module.c puts their
 * functions together. Every function in it has a pure-Python twin that defines what it must
 * return: the one list of them is TWINS in simdup/native/__init__.py, which
 * tests/native/test_native.py checks against the module's functions, and the Hypothesis tests
 * hold each function to its twin on arbitrary input. The build is optional (setup.py): without
 * a C compiler simdup runs the Python versions, with the same results, only slower.
 *
 * Character classes are CPython's own, so they match the `re` module exactly:
 *   word character = Py_UNICODE_ISALNUM (what `\w` means for str patterns, minus "_"),
 *   whitespace     = Py_UNICODE_ISSPACE (what `\s` and str.split() use),
 *   CJK            = U+4E00..U+9FD5 (jieba's Han range).
 *
 * The helpers here are static inline: they run per character or per document, and each file
 * is compiled on its own, so a helper defined in another file could not be inlined. Between
 * files there are only the method tables and init functions declared at the end, used once,
 * when the module is made.
 */
#ifndef SIMDUP_NATIVE_COMMON_H
#define SIMDUP_NATIVE_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* What one file defines for the others (ascii_class, the method tables, the init functions)
   is hidden from the dynamic linker: no other library's symbol of the same name can stand in
   for it, and it is reached directly rather than through the symbol table. */
#if defined(__GNUC__)
#define SIMDUP_HIDDEN __attribute__((visibility("hidden")))
#else
#define SIMDUP_HIDDEN
#endif

#define CJK_FIRST 0x4E00
#define CJK_LAST 0x9FD5

/* A hint that memory at p is about to be read (a no-op where the compiler has none). */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

static inline int is_cjk(Py_UCS4 ch) { return ch >= CJK_FIRST && ch <= CJK_LAST; }

/* 0: separator, 1: word character, 2: whitespace (a separator that can sit inside a CJK
   run). Filled by module.c before the module is made. */
extern SIMDUP_HIDDEN unsigned char ascii_class[128];

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

static inline int check_text(PyObject *text, const char *name)
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

/* args[0] and args[1] as contiguous buffers; -1 with an exception set (nothing to release). */
static inline int two_buffers(PyObject *const *args, Py_buffer *a, Py_buffer *b)
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
static inline int three_buffers(PyObject *const *args, Py_buffer *a, Py_buffer *b,
                                Py_buffer *c)
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

/* Loops over many integers (MinHash, SimHash) built three times, for AVX-512 (x86-64-v4), AVX2
   and the baseline, the one the processor can run picked at load time (GCC's target_clones,
   an ifunc). Only for integer arithmetic, and floating-point steps that round exactly
   (multiplying by a power of two, rint): every clone gives the same values.
   SIMDUP_NO_TARGET_CLONES builds the baseline only (to test it on a machine with AVX2). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(SIMDUP_NO_TARGET_CLONES)
#if __GNUC__ >= 11 /* the first to know x86-64-v4 */
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define VECTOR_CLONES
#endif

/* ---- hashing */

#define MH_GOLDEN UINT64_C(0x9E3779B97F4A7C15)

/* splitmix64 finaliser (simdup.algorithms.minhash.mix64). */
static inline uint64_t mh_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* FNV-1a (64-bit): the markup words' hashes and the edge tokens' hashes start so. */
#define FNV_OFFSET UINT64_C(0xCBF29CE484222325)
#define FNV_PRIME UINT64_C(0x100000001B3)

/* ---- open-addressed tables */

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

/* Each topic file's functions: a table ending with a {NULL} sentinel, all of which module.c
   adds to the module; and, where a file has tables to fill before its first call, its init
   function (module.c runs each once, before the module is made). */
extern SIMDUP_HIDDEN PyMethodDef simdup_textscan_methods[];  /* textscan.c */
extern SIMDUP_HIDDEN PyMethodDef simdup_normalize_methods[]; /* normalize.c */
SIMDUP_HIDDEN void simdup_normalize_init(void);
extern SIMDUP_HIDDEN PyMethodDef simdup_sketches_methods[];  /* sketches.c */
SIMDUP_HIDDEN void simdup_sketches_init(void);
extern SIMDUP_HIDDEN PyMethodDef simdup_index_methods[];     /* index.c */
extern SIMDUP_HIDDEN PyMethodDef simdup_markdown_methods[];  /* markdown.c */
extern SIMDUP_HIDDEN PyMethodDef simdup_fragments_methods[]; /* fragments.c */
extern SIMDUP_HIDDEN PyMethodDef simdup_tokens_methods[];    /* tokens.c */
extern SIMDUP_HIDDEN PyMethodDef simdup_jsonl_methods[];     /* jsonl.c */
extern SIMDUP_HIDDEN PyMethodDef simdup_editjoin_methods[];  /* editjoin.c */

#endif /* SIMDUP_NATIVE_COMMON_H */
