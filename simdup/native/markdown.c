/*
 * simdup/native/markdown.c: Markdown as rendered, line for line (markdown_lines).
 *
 * The twin, and the definition of every rule, is simdup/readers/markdown_lines.py: this file
 * follows it function by function, with the same names. Only ASCII characters take part in
 * markup, so the rules read the same on code points here. Two callbacks give what needs
 * Python's tables: decode(reference) and defined(label).
 * TWINS in simdup/native/__init__.py is the one list of the twins, function by function
 * (tests/native/test_native.py checks that it names every function of the module).
 */
#include "common.h"

enum { NORMAL, FENCE, COMMENT, SCRIPT, STYLE };

typedef struct {
    Py_UCS4 *buf;
    Py_ssize_t len, cap;
} Out;

static int out_grow(Out *o, Py_ssize_t more)
{
    if (o->len + more <= o->cap)
        return 0;
    Py_ssize_t cap = o->cap ? o->cap : 256;
    while (cap < o->len + more)
        cap *= 2;
    Py_UCS4 *buf = PyMem_Realloc(o->buf, (size_t)cap * sizeof(Py_UCS4));
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->buf = buf;
    o->cap = cap;
    return 0;
}

static int out_put(Out *o, const Py_UCS4 *s, Py_ssize_t n)
{
    if (n <= 0)
        return 0;
    if (out_grow(o, n) < 0)
        return -1;
    memcpy(o->buf + o->len, s, (size_t)n * sizeof(Py_UCS4));
    o->len += n;
    return 0;
}

static int out_ch(Out *o, Py_UCS4 c)
{
    if (out_grow(o, 1) < 0)
        return -1;
    o->buf[o->len++] = c;
    return 0;
}

/* Appends a Python str. */
static int out_str(Out *o, PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (out_grow(o, n) < 0)
        return -1;
    if (PyUnicode_AsUCS4(s, o->buf + o->len, n, 0) == NULL)
        return -1;
    o->len += n;
    return 0;
}

static inline int is_blank(Py_UCS4 c) { return c == ' ' || c == '\t'; }
static inline int is_letter(Py_UCS4 c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int is_hex(Py_UCS4 c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static inline int is_punctuation(Py_UCS4 c)
{
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
           (c >= '{' && c <= '~');
}

/* The first index of c in s[k:n], or -1. */
static Py_ssize_t find_ch(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k, Py_UCS4 c)
{
    for (; k < n; k++)
        if (s[k] == c)
            return k;
    return -1;
}

/* The first index of the ASCII word w (len m) in s[k:n], or -1. */
static Py_ssize_t find_word(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k, const char *w,
                            Py_ssize_t m)
{
    for (; k + m <= n; k++) {
        Py_ssize_t j = 0;
        while (j < m && s[k + j] == (Py_UCS4)(unsigned char)w[j])
            j++;
        if (j == m)
            return k;
    }
    return -1;
}

static int starts_folded(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k, const char *w)
{
    Py_ssize_t m = (Py_ssize_t)strlen(w);
    if (k + m > n)
        return 0;
    for (Py_ssize_t j = 0; j < m; j++) {
        Py_UCS4 c = s[k + j];
        if (c >= 'A' && c <= 'Z')
            c += 32;
        if (c != (Py_UCS4)(unsigned char)w[j])
            return 0;
    }
    return 1;
}

static Py_ssize_t find_folded(const Py_UCS4 *s, Py_ssize_t n, const char *w, Py_ssize_t k)
{
    Py_UCS4 first = (Py_UCS4)(unsigned char)w[0];
    for (;;) {
        k = find_ch(s, n, k, first);
        if (k < 0 || starts_folded(s, n, k, w))
            return k;
        k++;
    }
}

/* How far ahead the end of an inline construct is looked for (LOOKAHEAD in the twin): the end
   of a search that starts at `start` in a line of n characters. */
#define LOOKAHEAD 1000
static inline Py_ssize_t ahead(Py_ssize_t n, Py_ssize_t start)
{
    return start + LOOKAHEAD < n ? start + LOOKAHEAD : n;
}

static Py_ssize_t indent(const Py_UCS4 *s, Py_ssize_t n)
{
    Py_ssize_t k = 0;
    while (k < 3 && k < n && s[k] == ' ')
        k++;
    return k;
}

/* _fence_at: 1 with *mark, *length, *where set when s opens a code fence (after any
   indentation, block quote markers and list item markers). */
static int fence_at(const Py_UCS4 *s, Py_ssize_t n, Py_UCS4 *mark, Py_ssize_t *length,
                    Py_ssize_t *where)
{
    Py_ssize_t k = 0;
    for (;;) {
        while (k < n && is_blank(s[k]))
            k++;
        if (k < n && s[k] == '>') {
            k++;
            continue;
        }
        Py_ssize_t j = k;
        while (j < n && j - k < 9 && is_digit(s[j]))
            j++;
        if (j < n &&
            ((j == k && (s[j] == '-' || s[j] == '*' || s[j] == '+')) ||
             (j > k && (s[j] == '.' || s[j] == ')'))) &&
            j + 1 < n && is_blank(s[j + 1])) {
            k = j + 1;
            continue;
        }
        break;
    }
    if (k >= n || (s[k] != '`' && s[k] != '~'))
        return 0;
    Py_ssize_t run = k;
    while (run < n && s[run] == s[k])
        run++;
    if (run - k < 3)
        return 0;
    *mark = s[k];
    *length = run - k;
    *where = run;
    return 1;
}

static int closes(const Py_UCS4 *s, Py_ssize_t n, Py_UCS4 mark, Py_ssize_t length)
{
    Py_UCS4 m;
    Py_ssize_t len, where;
    if (!fence_at(s, n, &m, &len, &where) || m != mark || len < length)
        return 0;
    for (Py_ssize_t k = where; k < n; k++)
        if (!is_blank(s[k]))
            return 0;
    return 1;
}

/* _stray_closing: whether the bare fence on line `row` (its run ending at `where`) closes a
   code block cut above it rather than opening one. Lines are text[bounds[2i]:bounds[2i+1]]. */
static int stray_closing(const Py_UCS4 *text, const Py_ssize_t *bounds, Py_ssize_t lines,
                         Py_ssize_t row, Py_UCS4 mark, Py_ssize_t length, Py_ssize_t where)
{
    const Py_UCS4 *s = text + bounds[2 * row];
    Py_ssize_t n = bounds[2 * row + 1] - bounds[2 * row];
    for (Py_ssize_t k = where; k < n; k++)
        if (!is_blank(s[k]))
            return 0;
    for (Py_ssize_t i = row + 1; i < lines; i++) {
        s = text + bounds[2 * i];
        n = bounds[2 * i + 1] - bounds[2 * i];
        Py_UCS4 m;
        Py_ssize_t len, w;
        if (find_ch(s, n, 0, mark) >= 0 && fence_at(s, n, &m, &len, &w) && m == mark &&
            len >= length) {
            for (Py_ssize_t k = w; k < n; k++)
                if (!is_blank(s[k]))
                    return 1;
            return 0;
        }
    }
    return 1;
}

static Py_ssize_t rstrip_blank(const Py_UCS4 *s, Py_ssize_t n)
{
    while (n > 0 && is_blank(s[n - 1]))
        n--;
    return n;
}

/* Is s[a:b], blanks stripped from its right, exactly `word`? */
static int line_is(const Py_UCS4 *s, Py_ssize_t n, const char *word)
{
    Py_ssize_t end = rstrip_blank(s, n);
    Py_ssize_t m = (Py_ssize_t)strlen(word);
    return end == m && find_word(s, end, 0, word, m) == 0;
}

/* is_yaml_line (simdup/readers/front_matter.py): whether s (blanks stripped from its right) is shaped as a line of YAML front
   matter. */
static int is_yaml_line(const Py_UCS4 *s, Py_ssize_t n)
{
    if (n == 0 || is_blank(s[0]) || s[0] == '#')
        return 1;
    if (s[0] == '-')
        return n == 1 || is_blank(s[1]);
    Py_ssize_t j;
    if (s[0] == '"' || s[0] == '\'') {
        j = find_ch(s, n, 1, s[0]);
        if (j < 0)
            return 0;
        j++;
    } else if (is_letter(s[0]) || is_digit(s[0]) || s[0] == '_' || s[0] > 127) {
        j = 1;
        while (j < n && s[j] != ':' && !is_blank(s[j]))
            j++;
    } else {
        return 0;
    }
    return j < n && s[j] == ':' && (j + 1 == n || is_blank(s[j + 1]));
}

/* front_matter_end (simdup/readers/front_matter.py): the row of the line closing the YAML front matter the lines open with, or
   0. Lines are text[bounds[2i]:bounds[2i+1]]. */
static Py_ssize_t front_matter_end(const Py_UCS4 *text, const Py_ssize_t *bounds,
                                   Py_ssize_t lines)
{
    const Py_UCS4 *s = text + bounds[0];
    if (lines == 0 || !line_is(s, bounds[1] - bounds[0], "---"))
        return 0;
    for (Py_ssize_t k = 1; k < lines; k++) {
        s = text + bounds[2 * k];
        Py_ssize_t n = bounds[2 * k + 1] - bounds[2 * k];
        if (line_is(s, n, "---") || line_is(s, n, "..."))
            return k;
        if (!is_yaml_line(s, rstrip_blank(s, n)))
            return 0;
    }
    return 0;
}

/* _rule_kind: '=', '-', 'b' (a thematic break) or 0. */
static int rule_kind(const Py_UCS4 *s, Py_ssize_t n)
{
    Py_ssize_t k = indent(s, n);
    Py_ssize_t end = rstrip_blank(s, n);
    if (end <= k)
        return 0;
    int all_eq = 1, all_dash = 1;
    for (Py_ssize_t j = k; j < end; j++) {
        all_eq &= s[j] == '=';
        all_dash &= s[j] == '-';
    }
    if (all_eq)
        return '=';
    if (all_dash)
        return '-';
    Py_UCS4 first = 0;
    Py_ssize_t marks = 0;
    for (Py_ssize_t j = k; j < end; j++) {
        if (is_blank(s[j]))
            continue;
        if (first == 0)
            first = s[j];
        if (s[j] != first)
            return 0;
        marks++;
    }
    if (marks >= 3 && (first == '*' || first == '_' || first == '-'))
        return 'b';
    return 0;
}

static int is_table_delimiter(const Py_UCS4 *s, Py_ssize_t n)
{
    int bar = 0, dash = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_UCS4 c = s[k];
        if (c == '|')
            bar = 1;
        else if (c == '-')
            dash = 1;
        else if (c != ' ' && c != '\t' && c != ':')
            return 0;
    }
    return bar && dash;
}

static int is_directive_line(const Py_UCS4 *s, Py_ssize_t n)
{
    Py_ssize_t a = 0, b = rstrip_blank(s, n);
    while (a < b && is_blank(s[a]))
        a++;
    if (b - a < 4)
        return 0;
    return (s[a] == '{' && s[a + 1] == '{' && s[b - 2] == '}' && s[b - 1] == '}') ||
           (s[a] == '{' && s[a + 1] == '%' && s[b - 2] == '%' && s[b - 1] == '}');
}

static int is_reference_definition(const Py_UCS4 *s, Py_ssize_t n)
{
    Py_ssize_t k = indent(s, n);
    if (k >= n || s[k] != '[' || (k + 1 < n && s[k + 1] == '^'))
        return 0;
    Py_ssize_t end = find_ch(s, n, k + 1, ']');
    if (end <= k + 1 || find_ch(s, end, k + 1, '[') >= 0 || end + 1 >= n || s[end + 1] != ':')
        return 0;
    for (Py_ssize_t j = end + 2; j < n; j++)
        if (!is_blank(s[j]))
            return 1;
    return 0;
}

static inline int tag_name_char(Py_UCS4 c) { return is_letter(c) || is_digit(c) || c == '-'; }
static inline int attribute_name_char(Py_UCS4 c)
{
    return is_letter(c) || is_digit(c) || c == '_' || c == '.' || c == ':' || c == '-';
}
static inline int unquoted_stop(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '=' || c == '<' || c == '>' ||
           c == '`';
}

static Py_ssize_t tag_end(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t j = k + 1;
    int closing = j < n && s[j] == '/';
    if (closing)
        j++;
    if (j >= n || !is_letter(s[j]))
        return -1;
    while (j < n && tag_name_char(s[j]))
        j++;
    if (closing) {
        while (j < n && is_blank(s[j]))
            j++;
        return j < n && s[j] == '>' ? j + 1 : -1;
    }
    for (;;) {
        Py_ssize_t blank = j;
        while (j < n && is_blank(s[j]))
            j++;
        if (j < n && s[j] == '>')
            return j + 1;
        if (j + 1 < n && s[j] == '/' && s[j + 1] == '>')
            return j + 2;
        if (j == blank || j >= n || !(is_letter(s[j]) || s[j] == '_' || s[j] == ':'))
            return -1;
        while (j < n && attribute_name_char(s[j]))
            j++;
        Py_ssize_t after_name = j;
        while (j < n && is_blank(s[j]))
            j++;
        if (j < n && s[j] == '=') {
            j++;
            while (j < n && is_blank(s[j]))
                j++;
            if (j < n && (s[j] == '"' || s[j] == '\'')) {
                Py_ssize_t quote = find_ch(s, ahead(n, j + 1), j + 1, s[j]);
                if (quote < 0)
                    return -1;
                j = quote + 1;
            }
            else {
                Py_ssize_t start = j;
                while (j < n && !unquoted_stop(s[j]))
                    j++;
                if (j == start)
                    return -1;
            }
        }
        else {
            j = after_name;
        }
    }
}

static Py_ssize_t autolink_end(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t j = k + 1;
    if (j >= n || !is_letter(s[j]))
        return -1;
    Py_ssize_t start = j;
    while (j < n && (is_letter(s[j]) || is_digit(s[j]) || s[j] == '+' || s[j] == '.' ||
                     s[j] == '-'))
        j++;
    if (j - start < 2 || j - start > 32 || j >= n || s[j] != ':')
        return -1;
    while (j < n && s[j] != ' ' && s[j] != '\t' && s[j] != '<' && s[j] != '>')
        j++;
    return j < n && s[j] == '>' ? j : -1;
}

static Py_ssize_t destination_end(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t j = k + 1;
    while (j < n && is_blank(s[j]))
        j++;
    if (j < n && s[j] == '<') {
        Py_ssize_t close = find_ch(s, ahead(n, j + 1), j + 1, '>');
        if (close < 0)
            return -1;
        j = close + 1;
    }
    else {
        int depth = 0;
        while (j < n && !is_blank(s[j])) {
            Py_UCS4 c = s[j];
            if (c == '(') {
                if (depth)
                    return -1;
                depth = 1;
            }
            else if (c == ')') {
                if (!depth)
                    break;
                depth = 0;
            }
            j++;
        }
    }
    Py_ssize_t blank = j;
    while (j < n && is_blank(s[j]))
        j++;
    if (j < n && j > blank && (s[j] == '"' || s[j] == '\'' || s[j] == '(')) {
        Py_ssize_t close = find_ch(s, ahead(n, j + 1), j + 1, s[j] == '(' ? ')' : s[j]);
        if (close < 0)
            return -1;
        j = close + 1;
        while (j < n && is_blank(s[j]))
            j++;
    }
    return j < n && s[j] == ')' ? j + 1 : -1;
}

static Py_ssize_t entity_end(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t j = k + 1;
    if (j < n && s[j] == '#') {
        j++;
        int hex = 0;
        Py_ssize_t most = 7;
        if (j < n && (s[j] == 'x' || s[j] == 'X')) {
            j++;
            hex = 1;
            most = 6;
        }
        Py_ssize_t start = j;
        while (j < n && (hex ? is_hex(s[j]) : is_digit(s[j])) && j - start < most)
            j++;
        return start < j && j < n && s[j] == ';' ? j + 1 : -1;
    }
    Py_ssize_t start = j;
    if (j >= n || !is_letter(s[j]))
        return -1;
    while (j < n && (is_letter(s[j]) || is_digit(s[j])) && j - start < 32)
        j++;
    return j < n && s[j] == ';' ? j + 1 : -1;
}

static Py_ssize_t ticks(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t j = k;
    while (j < n && s[j] == '`')
        j++;
    return j - k;
}

/* What closes each hidden state (COMMENT, SCRIPT, STYLE). */
static const char *const CLOSING[] = {"-->", "</script", "</style"};

typedef struct {
    PyObject *decode, *defined;
    int state;
    /* The last line holding what closes each hidden state (-1: none), by state - COMMENT;
       the line being read. A comment, script or style never closed hides nothing. */
    Py_ssize_t last[3], row;
    int scanned; /* last[] is known (found on the first need: most texts hide nothing) */
    const Py_UCS4 *text;
    Py_ssize_t total, lines;
} Inline;

/* in->last[h]: found by one pass back from the end of the text, which stops when all three
   are found. */
static Py_ssize_t last_closing(Inline *in, int h)
{
    if (!in->scanned) {
        const Py_UCS4 *text = in->text;
        Py_ssize_t line = in->lines - 1;
        int missing = 3;
        in->scanned = 1;
        for (Py_ssize_t k = in->total - 1; k >= 0 && missing; k--) {
            Py_UCS4 c = text[k];
            if (c == '\n')
                line--;
            else if (c == '>' && k >= 2 && text[k - 1] == '-' && text[k - 2] == '-') {
                if (in->last[0] < 0) {
                    in->last[0] = line;
                    missing--;
                }
            }
            else if (c == '<' && k + 1 < in->total && text[k + 1] == '/') {
                for (int t = 1; t < 3; t++)
                    if (in->last[t] < 0 && starts_folded(text, in->total, k, CLOSING[t])) {
                        in->last[t] = line;
                        missing--;
                    }
            }
        }
    }
    return in->last[h];
}

/* fn(s[a:b]): a new reference, or NULL with an exception set. */
static PyObject *call_on(PyObject *fn, const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t b)
{
    PyObject *piece = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s + a, b - a);
    if (piece == NULL)
        return NULL;
    PyObject *got = PyObject_CallOneArg(fn, piece);
    Py_DECREF(piece);
    return got;
}

/* decode(s[a:b]) appended; -1 with an exception set. */
static int put_decoded(Inline *in, Out *o, const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t b)
{
    PyObject *got = call_on(in->decode, s, a, b);
    if (got == NULL)
        return -1;
    int rc = PyUnicode_Check(got) ? out_str(o, got) : -1;
    if (rc < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "decode() must return str");
    Py_DECREF(got);
    return rc;
}

/* defined(s[a:b]): 1, 0, or -1 with an exception set. */
static int is_defined(Inline *in, const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t b)
{
    PyObject *got = call_on(in->defined, s, a, b);
    if (got == NULL)
        return -1;
    int truth = PyObject_IsTrue(got);
    Py_DECREF(got);
    return truth;
}

/* _Inline.line: what s[k:n] shows, appended to o. */
static int inline_line(Inline *in, Out *o, const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t k)
{
    while (k < n) {
        if (in->state != NORMAL) {
            const char *closing = CLOSING[in->state - COMMENT];
            Py_ssize_t found = find_folded(s, n, closing, k);
            if (found < 0)
                return 0;
            k = found + (Py_ssize_t)strlen(closing);
            if (in->state != COMMENT) {
                Py_ssize_t end = find_ch(s, n, k, '>');
                if (end < 0)
                    return 0;
                k = end + 1;
            }
            in->state = NORMAL;
            continue;
        }
        Py_UCS4 c = s[k];
        if (c == '\\') {
            if (k + 1 == n) {
                k++;
                continue;
            }
            if (is_punctuation(s[k + 1])) {
                if (out_ch(o, s[k + 1]) < 0)
                    return -1;
                k += 2;
                continue;
            }
        }
        else if (c == '`') {
            Py_ssize_t run = ticks(s, n, k);
            Py_ssize_t j = k + run;
            const Py_ssize_t limit = ahead(n, j);
            for (;;) {
                j = find_ch(s, limit, j, '`');
                if (j < 0)
                    break;
                Py_ssize_t other = ticks(s, n, j);
                if (other == run)
                    break;
                j += other;
            }
            if (j < 0) {
                for (Py_ssize_t t = 0; t < run; t++)
                    if (out_ch(o, '`') < 0)
                        return -1;
                k += run;
                continue;
            }
            Py_ssize_t a = k + run, b = j;
            if (b - a >= 2 && s[a] == ' ' && s[b - 1] == ' ') {
                int only_spaces = 1;
                for (Py_ssize_t t = a; t < b; t++)
                    only_spaces &= s[t] == ' ';
                if (!only_spaces) {
                    a++;
                    b--;
                }
            }
            if (out_put(o, s + a, b - a) < 0)
                return -1;
            k = j + run;
            continue;
        }
        else if (c == '<') {
            if (k + 3 < n && s[k + 1] == '!' && s[k + 2] == '-' && s[k + 3] == '-') {
                Py_ssize_t end = find_word(s, n, k + 4, "-->", 3);
                if (end >= 0) {
                    k = end + 3;
                    continue;
                }
                if (last_closing(in, 0) > in->row) {
                    in->state = COMMENT;
                    return 0;
                }
            }
            Py_ssize_t end = autolink_end(s, n, k);
            if (end > 0) {
                if (out_put(o, s + k + 1, end - k - 1) < 0)
                    return -1;
                k = end + 1;
                continue;
            }
            end = tag_end(s, n, k);
            if (end > 0) {
                static const char *const words[] = {"script", "style"};
                for (int w = 0; w < 2; w++) {
                    Py_ssize_t after = k + 1 + (Py_ssize_t)strlen(words[w]);
                    if (!starts_folded(s, n, k + 1, words[w]))
                        continue;
                    Py_UCS4 t = s[after];
                    int hidden = SCRIPT + w;
                    if ((t == ' ' || t == '\t' || t == '>' || t == '/') &&
                        (last_closing(in, hidden - COMMENT) > in->row ||
                         find_folded(s, n, CLOSING[hidden - COMMENT], end) >= 0))
                        in->state = hidden;
                }
                if (out_ch(o, ' ') < 0)
                    return -1;
                k = end;
                continue;
            }
        }
        else if (c == '&') {
            Py_ssize_t end = entity_end(s, n, k);
            if (end > 0) {
                if (put_decoded(in, o, s, k, end) < 0)
                    return -1;
                k = end;
                continue;
            }
        }
        else if (c == ']' && k + 1 < n) {
            if (s[k + 1] == '(') {
                Py_ssize_t end = destination_end(s, n, k + 1);
                if (end > 0) {
                    if (out_ch(o, ']') < 0)
                        return -1;
                    k = end;
                    continue;
                }
            }
            else if (s[k + 1] == '[') {
                Py_ssize_t close = find_ch(s, ahead(n, k + 2), k + 2, ']');
                if (close > 0 && find_ch(s, close, k + 2, '[') < 0) {
                    int known = close == k + 2 ? 1 : is_defined(in, s, k + 2, close);
                    if (known < 0)
                        return -1;
                    if (known) {
                        if (out_ch(o, ']') < 0)
                            return -1;
                        k = close + 1;
                        continue;
                    }
                }
            }
        }
        else if (c == '[' && k + 1 < n && s[k + 1] == '^') {
            Py_ssize_t close = find_ch(s, ahead(n, k + 2), k + 2, ']');
            if (close > k + 2) {
                int blank = 0;
                for (Py_ssize_t t = k + 2; t < close; t++)
                    blank |= is_blank(s[t]);
                if (!blank) {
                    k = close + 1;
                    continue;
                }
            }
        }
        else if (c == '{' && k + 1 < n && (s[k + 1] == '{' || s[k + 1] == '%')) {
            Py_ssize_t end =
                find_word(s, ahead(n, k + 2), k + 2, s[k + 1] == '{' ? "}}" : "%}", 2);
            if (end > 0) {
                k = end + 2;
                continue;
            }
        }
        if (out_ch(o, c) < 0)
            return -1;
        k++;
    }
    return 0;
}

PyDoc_STRVAR(markdown_lines_doc,
"markdown_lines(text, decode, defined) -> (str, bytes)\n\n"
"simdup.readers.markdown_lines.markdown_lines_python: Markdown `text` as its rendering shows\n"
"it, line for line (line k of the result holds what line k of the text shows), and where each\n"
"of its lines starts (native-order int64). decode(ref) gives the character a reference such as\n"
"'&amp;' stands for, defined(label) whether the document defines a link label.");

static PyObject *markdown_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "markdown_lines() takes 3 arguments");
        return NULL;
    }
    if (check_text(args[0], "markdown_lines") < 0)
        return NULL;
    Py_UCS4 *text = PyUnicode_AsUCS4Copy(args[0]);
    if (text == NULL)
        return NULL;
    const Py_ssize_t total = PyUnicode_GET_LENGTH(args[0]);
    Inline in = {args[1], args[2], NORMAL, {-1, -1, -1}, 0, 0, text, total, 0};
    Out o = {NULL, 0, 0};
    PyObject *result = NULL;
    /* Line starts: lines are text[start:end] with any "\r" before the "\n" left out. */
    Py_ssize_t lines = 1;
    for (Py_ssize_t k = 0; k < total; k++)
        lines += text[k] == '\n';
    Py_ssize_t *bounds = PyMem_Malloc((size_t)(2 * lines) * sizeof(Py_ssize_t));
    /* Where each output line starts in o (a setext underline rewrites the line before). */
    Py_ssize_t *starts = PyMem_Malloc((size_t)(lines + 1) * sizeof(Py_ssize_t));
    if (bounds == NULL || starts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        Py_ssize_t at = 0, line = 0;
        for (Py_ssize_t k = 0; k <= total; k++) {
            if (k == total || text[k] == '\n') {
                Py_ssize_t end = k > at && text[k - 1] == '\r' ? k - 1 : k;
                bounds[2 * line] = at;
                bounds[2 * line + 1] = end;
                line++;
                at = k + 1;
            }
        }
    }
    in.lines = lines;
#define LINE(i) (text + bounds[2 * (i)])
#define LEN(i) (bounds[2 * (i) + 1] - bounds[2 * (i)])
    int state = NORMAL, prose = 0;
    Py_UCS4 fence_mark = '`';
    Py_ssize_t fence_length = 3, first = 0;
    Py_ssize_t closing = front_matter_end(text, bounds, lines);
    if (closing) {
        for (Py_ssize_t e = 0; e <= closing; e++) {
            starts[e] = o.len;
            if (e < closing && out_ch(&o, '\n') < 0)
                goto done;
        }
        first = closing + 1;
    }
    for (Py_ssize_t i = first; i < lines; i++) {
        if (i > 0 && out_ch(&o, '\n') < 0)
            goto done;
        starts[i] = o.len;
        const Py_UCS4 *s = LINE(i);
        Py_ssize_t n = LEN(i);
        if (state == FENCE) {
            if (closes(s, n, fence_mark, fence_length))
                state = NORMAL;
            else if (out_put(&o, s, n) < 0)
                goto done;
            prose = 0;
            continue;
        }
        in.row = i;
        Py_UCS4 mark;
        Py_ssize_t length, where;
        if (in.state != NORMAL) {
            /* A script or style ends at a code fence at the latest (see the twin). */
            if (in.state == COMMENT || !fence_at(s, n, &mark, &length, &where)) {
                if (inline_line(&in, &o, s, n, 0) < 0)
                    goto done;
                prose = 0;
                continue;
            }
            in.state = NORMAL;
        }
        if (fence_at(s, n, &mark, &length, &where) &&
            (mark == '~' || find_ch(s, n, where, '`') < 0)) {
            prose = 0;
            if (!stray_closing(text, bounds, lines, i, mark, length, where)) {
                state = FENCE;
                fence_mark = mark;
                fence_length = length;
            }
            continue;
        }
        Py_ssize_t k = indent(s, n);
        int kind = 0;
        if (k < n && (s[k] == '=' || s[k] == '-' || s[k] == '*' || s[k] == '_'))
            kind = rule_kind(s, n);
        if ((kind == '=' || kind == '-') && prose && !is_table_delimiter(s, n)) {
            /* The line before is a heading: "# " or "## " before its text, blanks left out. */
            Py_ssize_t a = starts[i - 1], b = o.len - 1; /* o.len - 1: its "\n" */
            while (a < b && is_blank(o.buf[a]))
                a++;
            Py_ssize_t keep = b - a, head = kind == '=' ? 2 : 3;
            Py_UCS4 *copy = PyMem_Malloc((size_t)(keep > 0 ? keep : 1) * sizeof(Py_UCS4));
            if (copy == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            memcpy(copy, o.buf + a, (size_t)keep * sizeof(Py_UCS4));
            o.len = starts[i - 1];
            int rc = out_put(&o, kind == '=' ? (const Py_UCS4[]){'#', ' '}
                                             : (const Py_UCS4[]){'#', '#', ' '},
                             head);
            if (rc == 0)
                rc = out_put(&o, copy, keep);
            PyMem_Free(copy);
            if (rc < 0 || out_ch(&o, '\n') < 0)
                goto done;
            starts[i] = o.len;
            prose = 0;
            continue;
        }
        if (kind == 'b' || (kind == '-' && rstrip_blank(s, n) - k >= 3)) {
            prose = 0;
            continue;
        }
        if (is_reference_definition(s, n) || is_table_delimiter(s, n) || is_directive_line(s, n)) {
            prose = 0;
            continue;
        }
        Py_ssize_t begin = 0;
        if (n - k >= 2 && s[k] == '[' && s[k + 1] == '^') {
            Py_ssize_t close = find_word(s, n, k + 2, "]:", 2);
            if (close > 0) {
                int blank = 0;
                for (Py_ssize_t t = k + 2; t < close; t++)
                    blank |= is_blank(s[t]);
                if (!blank)
                    begin = close + 2;
            }
        }
        else if (k < n && s[k] == '#') {
            Py_ssize_t j = k;
            while (j < n && s[j] == '#')
                j++;
            if (j - k <= 6 && (j == n || is_blank(s[j]))) {
                Py_ssize_t body = rstrip_blank(s, n), end = body;
                while (end > j && s[end - 1] == '#')
                    end--;
                if (end < body && (end == j || is_blank(s[end - 1])))
                    n = rstrip_blank(s, end);
                /* An attribute block ("{#id .class}") names the anchor: no text. */
                Py_ssize_t b = rstrip_blank(s, n);
                if (b > 0 && s[b - 1] == '}') {
                    Py_ssize_t brace = b - 1;
                    while (brace >= j && s[brace] != '{')
                        brace--;
                    if (brace > j && is_blank(s[brace - 1]) && brace + 1 < b &&
                        (s[brace + 1] == '#' || s[brace + 1] == '.') &&
                        find_ch(s, b - 1, brace, '}') < 0)
                        n = rstrip_blank(s, brace);
                }
            }
        }
        else if (n - k >= 3 && s[k] == ':' && s[k + 1] == ':' && s[k + 2] == ':') {
            /* A container ("::: tip Title"): its title shows, not its fence or type. */
            Py_ssize_t j = k;
            while (j < n && s[j] == ':')
                j++;
            while (j < n && is_blank(s[j]))
                j++;
            while (j < n && !is_blank(s[j]))
                j++;
            begin = j;
        }
        Py_ssize_t before = o.len;
        if (inline_line(&in, &o, s, n, begin) < 0)
            goto done;
        prose = 0;
        for (Py_ssize_t t = before; t < o.len; t++)
            if (!is_blank(o.buf[t])) {
                prose = 1;
                break;
            }
    }
#undef LINE
#undef LEN
    {
        PyObject *shown = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, o.buf ? o.buf : text,
                                                    o.len);
        PyObject *where = NULL;
        if (shown != NULL) {
            where = PyBytes_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int64_t));
            if (where != NULL) {
                int64_t *at = (int64_t *)PyBytes_AS_STRING(where);
                for (Py_ssize_t i = 0; i < lines; i++)
                    at[i] = (int64_t)starts[i];
                result = PyTuple_Pack(2, shown, where);
            }
        }
        Py_XDECREF(shown);
        Py_XDECREF(where);
    }
done:
    PyMem_Free(text);
    PyMem_Free(o.buf);
    PyMem_Free(bounds);
    PyMem_Free(starts);
    return result;
}

PyMethodDef simdup_markdown_methods[] = {
    {"markdown_lines", (PyCFunction)(void (*)(void))markdown_lines, METH_FASTCALL,
     markdown_lines_doc},
    {NULL, NULL, 0, NULL},
};
