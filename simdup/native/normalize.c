/*
 * simdup/native/normalize.c: markup, URLs, invisible and control characters; markup words.
 *
 * strip_ignorables, strip_urls, strip_link_targets and markup_marks (twins in
 * simdup/text/normalize.py), markup_word_hashes (simdup/text/features.py) and count_controls
 * (simdup/readers/decoding.py).
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

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

/* End of the URL starting at i (see simdup.text.normalize._URL), or -1. */
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
"simdup.text.normalize.strip_urls_python: every http(s)://, ftp:// or www. URL (any case) made\n"
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

/* Bits of markup_marks (simdup.text.normalize.MARK_*). */
#define MARK_FRONT_MATTER 1 /* starts with "---" */
#define MARK_TAG 2          /* "<" */
#define MARK_LINK 4         /* "](" */
#define MARK_REFERENCE 8    /* "]:" */
#define MARK_URL 16         /* "://", "www." or "WWW." */

PyDoc_STRVAR(markup_marks_doc,
"markup_marks(text) -> int\n\n"
"simdup.text.normalize.markup_marks_python(text): which markup strip_markup may find, in one pass.");

/* One loop per character width (plain array reads); every mark starts with an ASCII
   character, so the rest are passed over with one comparison. */
#define MARKUP_MARKS(T)                                                                       \
    static long markup_marks_##T(const T *s, Py_ssize_t n)                                    \
    {                                                                                         \
        long marks = 0;                                                                       \
        if (n >= 3 && s[0] == '-' && s[1] == '-' && s[2] == '-')                              \
            marks |= MARK_FRONT_MATTER;                                                       \
        for (Py_ssize_t i = 0; i < n; i++) {                                                  \
            Py_UCS4 ch = s[i];                                                                \
            if (ch > 'w')                                                                     \
                continue;                                                                     \
            if (ch == '<') {                                                                  \
                marks |= MARK_TAG;                                                            \
            }                                                                                 \
            else if (ch == ']' && i + 1 < n) {                                                \
                Py_UCS4 next = s[i + 1];                                                      \
                marks |= next == '(' ? MARK_LINK : next == ':' ? MARK_REFERENCE : 0;          \
            }                                                                                 \
            else if (ch == ':' && i + 2 < n && s[i + 1] == '/' && s[i + 2] == '/') {          \
                marks |= MARK_URL;                                                            \
            }                                                                                 \
            else if ((ch == 'w' || ch == 'W') && i + 3 < n && s[i + 1] == ch &&               \
                     s[i + 2] == ch && s[i + 3] == '.') {                                     \
                marks |= MARK_URL;                                                            \
            }                                                                                 \
        }                                                                                     \
        return marks;                                                                         \
    }

MARKUP_MARKS(Py_UCS1)
MARKUP_MARKS(Py_UCS2)
MARKUP_MARKS(Py_UCS4)
#undef MARKUP_MARKS

static PyObject *markup_marks(PyObject *module, PyObject *text)
{
    if (check_text(text, "markup_marks") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    long marks = kind == PyUnicode_1BYTE_KIND   ? markup_marks_Py_UCS1(data, n)
                 : kind == PyUnicode_2BYTE_KIND ? markup_marks_Py_UCS2(data, n)
                                                : markup_marks_Py_UCS4(data, n);
    return PyLong_FromLong(marks);
}

/* ------------------------------------------------------------------ strip_link_targets */

static inline int target_char(Py_UCS4 ch) { return ch != '(' && ch != ')' && !is_space(ch); }

/* End of the Markdown link target starting with "](" at i (simdup.text.normalize._MD_LINK_TARGET),
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
"simdup.text.normalize.strip_link_targets_python: every Markdown link or image target\n"
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

/* Default_Ignorable_Code_Point, inclusive ranges: simdup.text.normalize.DEFAULT_IGNORABLE (Unicode
   15.1). tests/native/test_native.py checks every code point against the Python table. */
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
"simdup.text.normalize.strip_ignorables_python(text): every Default_Ignorable_Code_Point removed\n"
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

/* ------------------------------------------------------------------ markup_word_hashes */

/* Seed of the markup words' hashes (simdup.text.features.MARKUP_SEED: "markup!!"). */
#define MARKUP_SEED UINT64_C(0x6D61726B75702121)

PyDoc_STRVAR(markup_word_hashes_doc,
"markup_word_hashes(text) -> bytes\n\n"
"simdup.text.features.markup_word_hashes_python(text) as native-order uint64: one hash per word\n"
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

/* ------------------------------------------------------------------ word_runs */

PyDoc_STRVAR(word_runs_doc,
"word_runs(text) -> str\n\n"
"simdup.text.normalize.word_runs_python(text): the maximal runs of alphanumeric characters,\n"
"joined by one space, with no space between two ideographs or kana.");

/* The ideographs and kana between which a space carries nothing (normalize._CJK). */
static inline int is_cjk_char(Py_UCS4 ch)
{
    return (ch >= 0x3040 && ch <= 0x30FF) || (ch >= 0x3400 && ch <= 0x4DBF) ||
           (ch >= 0x4E00 && ch <= 0x9FFF) || (ch >= 0xF900 && ch <= 0xFAFF);
}

/* Appends letter `ch` to a form being built in out[0:len]: one space first when a separator
   came since the last letter (`pending_space`), unless both are ideographs or kana. */
#define FORM_APPEND(out, len, pending_space, ch)                                              \
    do {                                                                                      \
        if ((pending_space) && !(is_cjk_char((out)[(len) - 1]) && is_cjk_char(ch)))          \
            (out)[(len)++] = ' ';                                                             \
        (pending_space) = 0;                                                                  \
        (out)[(len)++] = (ch);                                                                \
    } while (0)

static PyObject *word_runs(PyObject *module, PyObject *text)
{
    if (check_text(text, "word_runs") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_UCS4 *out = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Py_UCS4));
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t len = 0;
    int pending_space = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!is_alnum(ch)) {
            pending_space = len > 0;
            continue;
        }
        FORM_APPEND(out, len, pending_space, ch);
    }
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, len);
    PyMem_Free(out);
    return result;
}

/* ------------------------------------------------------------------ folded_word_runs */

PyDoc_STRVAR(folded_word_runs_doc,
"folded_word_runs(text, table=None) -> str | None\n\n"
"simdup.text.normalize.folded_word_runs_python(text, table): the comparison form of text when\n"
"every letter or digit of it is ASCII, an ideograph, kana, a Hangul syllable or (with table)\n"
"a letter the table folds, and it has no U+0345; None otherwise.");

/* Letters that casefold() and NFKC leave as they are (normalize.INERT_LETTERS, checked
   against unicodedata by the tests): the unified ideographs and Extension A, the kana letters
   but U+309F and U+30FF (NFKC spells them out), the Hangul syllables. */
static inline int is_inert_letter(Py_UCS4 ch)
{
    return (ch >= 0x4E00 && ch <= 0x9FFF) || (ch >= 0x3400 && ch <= 0x4DBF) ||
           (ch >= 0xAC00 && ch <= 0xD7A3) || (ch >= 0x3041 && ch <= 0x3096) ||
           (ch >= 0x309D && ch <= 0x309E) || (ch >= 0x30A1 && ch <= 0x30FA) ||
           (ch >= 0x30FC && ch <= 0x30FE);
}

/* One pass of folded_word_runs over characters of type T into out (of the same type): the
   length written, or -1 when a character sends the text the long way. */
#define FOLDED_WORD_RUNS(T)                                                                   \
    static Py_ssize_t folded_word_runs_##T(const T *in, Py_ssize_t n, T *out)                \
    {                                                                                         \
        Py_ssize_t len = 0;                                                                   \
        int pending_space = 0;                                                                \
        for (Py_ssize_t i = 0; i < n; i++) {                                                  \
            Py_UCS4 ch = in[i];                                                               \
            if (ch < 128) {                                                                   \
                if (ascii_class[ch] != 1) {                                                   \
                    pending_space = len > 0;                                                  \
                    continue;                                                                 \
                }                                                                             \
                if (ch >= 'A' && ch <= 'Z')                                                   \
                    ch += 'a' - 'A';                                                          \
            }                                                                                 \
            else if (!is_inert_letter(ch)) {                                                  \
                /* U+0345 is no letter, but folds to one (iota). */                           \
                if (ch == 0x0345 || Py_UNICODE_ISALNUM(ch))                                   \
                    return -1;                                                                \
                pending_space = len > 0;                                                      \
                continue;                                                                     \
            }                                                                                 \
            FORM_APPEND(out, len, pending_space, (T)ch);                                      \
        }                                                                                     \
        return len;                                                                           \
    }

FOLDED_WORD_RUNS(Py_UCS1)
FOLDED_WORD_RUNS(Py_UCS2)
FOLDED_WORD_RUNS(Py_UCS4)

/* The long way round the table of other letters (``table``: 65536 native uint16, the folded
   letter of each BMP letter that case folding and NFKC turn into one letter, 0 for the rest):
   one generic loop with UCS4 output, for the texts the typed loops gave up on. */
static Py_ssize_t folded_word_runs_table(int kind, const void *data, Py_ssize_t n,
                                         const uint16_t *table, Py_UCS4 *out)
{
    Py_ssize_t len = 0;
    int pending_space = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch < 128) {
            if (ascii_class[ch] != 1) {
                pending_space = len > 0;
                continue;
            }
            if (ch >= 'A' && ch <= 'Z')
                ch += 'a' - 'A';
        }
        else if (!is_inert_letter(ch)) {
            Py_UCS4 folded = ch < 0x10000 ? table[ch] : 0;
            if (folded)
                ch = folded;
            else if (ch == 0x0345 || Py_UNICODE_ISALNUM(ch))
                return -1;
            else {
                pending_space = len > 0;
                continue;
            }
        }
        FORM_APPEND(out, len, pending_space, ch);
    }
    return len;
}

static PyObject *folded_word_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "folded_word_runs(text, table=None)");
        return NULL;
    }
    PyObject *text = args[0];
    if (check_text(text, "folded_word_runs") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    /* The form is no longer than the text, and its characters are the text's (or lower). */
    void *out = PyMem_Malloc((size_t)(n > 0 ? n : 1) * (size_t)kind);
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t len;
    if (kind == PyUnicode_1BYTE_KIND)
        len = folded_word_runs_Py_UCS1(data, n, out);
    else if (kind == PyUnicode_2BYTE_KIND)
        len = folded_word_runs_Py_UCS2(data, n, out);
    else
        len = folded_word_runs_Py_UCS4(data, n, out);
    /* FromKindAndData finds the narrowest kind the form fits (a string's canonical form). */
    PyObject *result = len < 0 ? NULL : PyUnicode_FromKindAndData(kind, out, len);
    PyMem_Free(out);
    if (len >= 0 || nargs < 2 || args[1] == Py_None)
        return len < 0 ? Py_NewRef(Py_None) : result;
    Py_buffer table;
    if (PyObject_GetBuffer(args[1], &table, PyBUF_SIMPLE) < 0)
        return NULL;
    if (table.len != 65536 * (Py_ssize_t)sizeof(uint16_t)) {
        PyBuffer_Release(&table);
        PyErr_SetString(PyExc_ValueError, "the letter table must hold 65536 uint16");
        return NULL;
    }
    Py_UCS4 *wide = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Py_UCS4));
    if (wide == NULL) {
        PyBuffer_Release(&table);
        return PyErr_NoMemory();
    }
    len = folded_word_runs_table(kind, data, n, (const uint16_t *)table.buf, wide);
    PyBuffer_Release(&table);
    result = len < 0 ? Py_NewRef(Py_None)
                     : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, wide, len);
    PyMem_Free(wide);
    return result;
}

/* ------------------------------------------------------------------ bigram_hashes */

/* Seed of a short text's bigrams (simdup.algorithms.edit_join._BIGRAM_SEED: "bigrams!"). */
#define BIGRAM_SEED UINT64_C(0x62696772616D7321)

PyDoc_STRVAR(bigram_hashes_doc,
"bigram_hashes(text) -> bytes\n\n"
"simdup.algorithms.edit_join.bigram_hashes_python(text) as native-order uint64: the hash of\n"
"each character bigram of text with a mark (0) at each end, in order, repeats kept.");

static PyObject *bigram_hashes(PyObject *module, PyObject *text)
{
    if (check_text(text, "bigram_hashes") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *result = PyBytes_FromStringAndSize(NULL, (n + 1) * (Py_ssize_t)sizeof(uint64_t));
    if (result == NULL)
        return NULL;
    uint64_t *out = (uint64_t *)PyBytes_AS_STRING(result);
    uint64_t previous = 0; /* the mark before the text */
    for (Py_ssize_t i = 0; i <= n; i++) {
        uint64_t ch = i < n ? (uint64_t)PyUnicode_READ(kind, data, i) : 0;
        out[i] = mh_mix(((previous << 21) | ch) ^ BIGRAM_SEED);
        previous = ch;
    }
    return result;
}

/* ------------------------------------------------------------------ bigram_features */

PyDoc_STRVAR(bigram_features_doc,
"bigram_features(text) -> (hashes, counts)\n\n"
"simdup.algorithms.edit_join.bigram_features_python(text) as native-order bytes: the distinct\n"
"bigram hashes of bigram_hashes(text), ascending (uint64), and how often each occurs\n"
"(float64).");

/* v[0..n) in ascending order: quicksort (middle pivot), insertion sort below 16. */
static void sort_u64(uint64_t *v, Py_ssize_t n)
{
    while (n > 16) {
        const uint64_t pivot = v[n / 2];
        Py_ssize_t i = 0, j = n - 1;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                const uint64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        /* The smaller side by recursion, the larger by the loop: depth O(log n). */
        if (j + 1 < n - i) {
            sort_u64(v, j + 1);
            v += i;
            n -= i;
        }
        else {
            sort_u64(v + i, n - i);
            n = j + 1;
        }
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        const uint64_t x = v[i];
        Py_ssize_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static PyObject *bigram_features(PyObject *module, PyObject *text)
{
    if (check_text(text, "bigram_features") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    uint64_t small[512];
    uint64_t *hashes = n + 1 <= 512 ? small : PyMem_Malloc((size_t)(n + 1) * sizeof(uint64_t));
    if (hashes == NULL)
        return PyErr_NoMemory();
    uint64_t previous = 0; /* the mark before the text */
    for (Py_ssize_t i = 0; i <= n; i++) {
        uint64_t ch = i < n ? (uint64_t)PyUnicode_READ(kind, data, i) : 0;
        hashes[i] = mh_mix(((previous << 21) | ch) ^ BIGRAM_SEED);
        previous = ch;
    }
    sort_u64(hashes, n + 1);
    Py_ssize_t distinct = 0;
    for (Py_ssize_t i = 0; i <= n; i++)
        distinct += i == 0 || hashes[i] != hashes[i - 1];
    PyObject *h = PyBytes_FromStringAndSize(NULL, distinct * (Py_ssize_t)sizeof(uint64_t));
    PyObject *c = PyBytes_FromStringAndSize(NULL, distinct * (Py_ssize_t)sizeof(double));
    PyObject *result = NULL;
    if (h != NULL && c != NULL) {
        uint64_t *out = (uint64_t *)PyBytes_AS_STRING(h);
        double *counts = (double *)PyBytes_AS_STRING(c);
        Py_ssize_t at = -1;
        for (Py_ssize_t i = 0; i <= n; i++) {
            if (i == 0 || hashes[i] != hashes[i - 1]) {
                out[++at] = hashes[i];
                counts[at] = 0.0;
            }
            counts[at] += 1.0;
        }
        result = PyTuple_Pack(2, h, c);
    }
    Py_XDECREF(h);
    Py_XDECREF(c);
    if (hashes != small)
        PyMem_Free(hashes);
    return result;
}

/* ------------------------------------------------------------------ form_token_count */

PyDoc_STRVAR(form_token_count_doc,
"form_token_count(form) -> int\n\n"
"simdup.text.features.form_token_count_python(form): how many tokens a short text's form\n"
"counts, each ideograph or kana one, each other run of what is not whitespace one.");

/* The ranges of simdup.text.features._IDEOGRAPHS. */
static inline int is_form_ideograph(Py_UCS4 ch)
{
    return (ch >= 0x3040 && ch <= 0x30FF) || (ch >= 0x3400 && ch <= 0x4DBF) ||
           (ch >= 0x4E00 && ch <= 0x9FFF) || (ch >= 0xF900 && ch <= 0xFAFF);
}

static PyObject *form_token_count(PyObject *module, PyObject *form)
{
    if (check_text(form, "form_token_count") < 0)
        return NULL;
    const int kind = PyUnicode_KIND(form);
    const void *data = PyUnicode_DATA(form);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(form);
    Py_ssize_t count = 0;
    int in_run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (is_form_ideograph(ch)) {
            count++;
            in_run = 0;
        }
        else if (Py_UNICODE_ISSPACE(ch)) { /* what the pattern's \s matches */
            in_run = 0;
        }
        else if (!in_run) {
            count++;
            in_run = 1;
        }
    }
    return PyLong_FromSsize_t(count);
}

PyMethodDef simdup_normalize_methods[] = {
    {"word_runs", word_runs, METH_O, word_runs_doc},
    {"folded_word_runs", (PyCFunction)(void (*)(void))folded_word_runs, METH_FASTCALL,
     folded_word_runs_doc},
    {"bigram_hashes", bigram_hashes, METH_O, bigram_hashes_doc},
    {"bigram_features", bigram_features, METH_O, bigram_features_doc},
    {"form_token_count", form_token_count, METH_O, form_token_count_doc},
    {"strip_urls", (PyCFunction)(void (*)(void))strip_urls, METH_FASTCALL, strip_urls_doc},
    {"markup_marks", markup_marks, METH_O, markup_marks_doc},
    {"markup_word_hashes", markup_word_hashes, METH_O, markup_word_hashes_doc},
    {"strip_link_targets", (PyCFunction)(void (*)(void))strip_link_targets, METH_FASTCALL,
     strip_link_targets_doc},
    {"strip_ignorables", strip_ignorables, METH_O, strip_ignorables_doc},
    {"count_controls", (PyCFunction)(void (*)(void))count_controls, METH_FASTCALL,
     count_controls_doc},
    {NULL, NULL, 0, NULL},
};

/* Run once by module.c, before the module is made (declared in common.h). */
void simdup_normalize_init(void) { init_ignorable_bmp(); }
