/*
 * simdup/native/module.c: the module simdup.native._speedups, made of the topic files.
 *
 * PyInit__speedups fills the tables the files share (the ASCII character classes of
 * common.h) and runs each file's init function, then adds each file's method table to the
 * module. The files, and where the Python twins of their functions are:
 *   textscan.c   units, their memo, whitespace collapsing   simdup/text/textscan.py
 *   normalize.c  markup, URLs, invisible and control         simdup/text/normalize.py,
 *                characters, markup words                    text/features.py, readers/decoding.py
 *   sketches.c   SimHash, bottom-k, MinHash, a document's    simdup/algorithms/simhash.py,
 *                parts in one call                           sketch.py, minhash.py,
 *                                                            simdup/text/processor.py
 *   index.c      one table of the exact Hamming index        simdup/algorithms/index.py
 *   markdown.c   Markdown lines                              simdup/readers/markdown_lines.py
 *   fragments.c  winnowing, exact runs and chains of copied  simdup/algorithms/winnowing.py,
 *                fragments                                   fragments.py
 *   tokens.c     fragment tokens, the k-gram probe of decon  simdup/text/tokens.py,
 *                                                            algorithms/containment.py
 *   jsonl.c      the text field of plain JSON lines          simdup/readers/rows.py
 *   editjoin.c   the candidates of the edit join of short    simdup/algorithms/edit_join.py
 *                texts
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function.
 */
#include "common.h"

/* The ASCII character classes of common.h (is_word, is_space): one table for every file. */
unsigned char ascii_class[128];

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

/* The topic files, in the order their functions are added (common.h declares their tables). */
static const struct {
    PyMethodDef *methods;
    void (*init)(void); /* NULL: nothing to prepare */
} topics[] = {
    {simdup_textscan_methods, NULL},
    {simdup_normalize_methods, simdup_normalize_init},
    {simdup_sketches_methods, simdup_sketches_init},
    {simdup_index_methods, NULL},
    {simdup_markdown_methods, NULL},
    {simdup_fragments_methods, NULL},
    {simdup_tokens_methods, NULL},
    {simdup_jsonl_methods, NULL},
    {simdup_editjoin_methods, NULL},
};

#define N_TOPICS (sizeof topics / sizeof topics[0])

/* No m_methods: each file's table is added to the module as it is made (PyModule_Create adds
   m_methods the same way, with PyModule_AddFunctions). */
static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "simdup.native._speedups",
    .m_doc = "Native versions of simdup's hot loops (see simdup/native/module.c).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    init_ascii_class();
    for (size_t t = 0; t < N_TOPICS; t++)
        if (topics[t].init != NULL)
            topics[t].init();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    for (size_t t = 0; t < N_TOPICS; t++) {
        if (PyModule_AddFunctions(m, topics[t].methods) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
