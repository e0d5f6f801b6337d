"""Draft (issue 34): the words of ``readers.markdown_text`` against those of cmark-gfm's
rendering of the same Markdown, per document of the visible set (word-multiset Jaccard), beside
today's ``strip_markup``; and the draft's speed. Needs ``pip install cmarkgfm``.

    PYTHONPATH=. python benchmarks/markdown_vs_cmark.py     (from the repository root)
"""
import glob, time, re, sys
from html.parser import HTMLParser
import cmarkgfm
from cmarkgfm.cmark import Options
from simdup.text.decoding import decode_data
from simdup.readers.markdown_text import markdown_text
from simdup.text.normalize import strip_markup
files = sorted(glob.glob('../shared/bench/visible/docs/**/*.md', recursive=True))
texts = []
for f in files:
    d = decode_data(f, open(f,'rb').read())
    if hasattr(d,'text'): texts.append((f, d.text))
class T(HTMLParser):
    def __init__(s): super().__init__(convert_charrefs=True); s.out=[]; s.skip=0
    def handle_starttag(s, tag, a):
        if tag in ('script','style'): s.skip+=1
        if tag=='img':
            alt=dict(a).get('alt'); 
            if alt: s.out.append(' '+alt+' ')
        s.out.append(' ')
    def handle_endtag(s, tag):
        if tag in ('script','style'): s.skip-=1
        s.out.append(' ')
    def handle_data(s, d):
        if not s.skip: s.out.append(d)
def cmark_text(t):
    h = cmarkgfm.markdown_to_html_with_extensions(t, Options.CMARK_OPT_UNSAFE|Options.CMARK_OPT_FOOTNOTES, ['table','strikethrough','autolink','tasklist'])
    p=T(); p.feed(h); p.close(); return "".join(p.out)
WORD=re.compile(r"[\u4e00-\u9fff]|[^\W_\u4e00-\u9fff]+")
from collections import Counter
def words(t): return Counter(w.lower() for w in WORD.findall(t))
def j(a,b):
    inter=sum((a&b).values()); uni=sum((a|b).values()); return inter/uni if uni else 1.0
FM=re.compile(r"\A---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
mine=[]; old=[]; t_mine=0
for f,t in texts:
    ref = words(cmark_text(FM.sub(lambda m: "\n"*m.group().count("\n"), t, count=1)))
    t0=time.perf_counter(); m,_ = markdown_text(t); t_mine+=time.perf_counter()-t0
    mine.append((j(words(m), ref), f)); old.append((j(words(strip_markup(t)), ref), f))
mine.sort(); old.sort()
import statistics
print("mine: median", statistics.median(x for x,_ in mine), "min", mine[:5])
print("old strip_markup: median", statistics.median(x for x,_ in old), "min", old[:3])
print("below 0.99: mine", sum(x<0.99 for x,_ in mine), "old", sum(x<0.99 for x,_ in old), "of", len(mine))
print("python markdown_text ms/doc", t_mine/len(texts)*1e3)
