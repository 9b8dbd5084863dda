"""Pages built for the layout tests: a styled three-column page, a table-layout shop page and a
news article with a comment thread (replies nested), each with the regions people draw named by
an element id."""

from __future__ import annotations

SENTENCE = ("Plain words of one paragraph that run on for a while and say little of note, "
            "as paragraphs of a post often do. ")

STYLED_COLUMNS = f"""<!doctype html><html><head><meta charset="utf-8"><style>
body{{margin:0;background:#9ab;font:15px/1.5 Georgia,serif}}
#outer{{width:880px;margin:0 auto;background:#fff}}
#header{{background:#345;color:#fff;padding:24px 30px}}
#header h1{{margin:0;font-size:30px}} #header p{{margin:4px 0 0}}
#nav{{width:160px;float:left;padding:20px 10px}}
#main{{width:430px;float:left;padding:20px}}
#side{{width:210px;float:right;padding:20px 10px;background:#eef}}
#side .box{{margin-bottom:24px}}
#footer{{clear:both;background:#ccc;padding:10px 30px}}
</style></head><body><div id="outer">
<div id="header"><h1>Notes from the allotment</h1><p>Vegetables, weather and slugs</p></div>
<div id="body"><div id="cols">
<div id="nav"><b>Pages</b><br><a href="/">Home</a><br><a href="/about">About me</a><br>
<a href="/plots">The plots</a></div>
<div id="main"><h2>Leeks in November</h2><span>Posted on 3 November</span>
<p>{SENTENCE * 4}</p><p>{SENTENCE * 3}</p><p>{SENTENCE * 5}</p><p>{SENTENCE * 2}</p></div>
<div id="side">
<div class="box"><form><input type="text" value=""><button>Search</button></form></div>
<div class="box"><h3>About</h3><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="60"
 height="60"><p>I grow things and write about it.</p></div>
<div class="box"><h3>Archive</h3><ul><li><a href="/2026">2026</a><ul><li>November</li>
<li>October</li></ul></li><li><a href="/2025">2025</a></li></ul></div>
<div class="box"><h3>Labels</h3><a href="/l/leek">leeks</a>, <a href="/l/bean">beans</a>,
<a href="/l/soil">soil</a></div>
<div class="box"><h3>Followers</h3><table><tr><td>12 readers</td></tr></table></div>
</div></div>
<div id="footer">Written by hand. Powered by a text editor.</div>
</div></div></body></html>"""
"""Header band, navigation column, post column and a widget sidebar on a coloured background:
the wrapper is narrower than the page, so no region covers much of the page's area, and it has
two children (the header and the rest), so its children's tree edit distances do not vary."""

STYLED_REGIONS = ("header", "nav", "main", "side", "footer")

TABLE_LAYOUT = f"""<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:0;font:14px sans-serif">
<table id="page" width="100%" cellpadding="8" cellspacing="0" border="0">
<tr><td id="top" colspan="3" bgcolor="#dde"><h1>Jo's Record Shop</h1>
<a href="/">Home</a> | <a href="/new">New in</a> | <a href="/sale">Sale</a></td></tr>
<tr>
<td id="left" valign="top" width="180"><h3>Genres</h3><ul><li><a href="/g/jazz">Jazz</a></li>
<li><a href="/g/soul">Soul</a></li><li><a href="/g/funk">Funk</a></li>
<li><a href="/g/dub">Dub</a></li><li><a href="/g/folk">Folk</a></li></ul>
<h3>Newsletter</h3><form><input type="text"><button>Sign up</button></form></td>
<td id="product" valign="top"><h2>Blue Train (vinyl reissue)</h2>
<p>{SENTENCE * 3}</p><p>{SENTENCE * 2}</p>
<h3>Details</h3><table id="specs" border="1"><tr><th>Label</th><td>Blue Note</td></tr>
<tr><th>Format</th><td>LP</td></tr><tr><th>Released</th><td>1957</td></tr></table>
<p>{SENTENCE * 2}</p></td>
<td id="right" valign="top" width="220"><h3>Your basket</h3><p>The basket is empty.</p>
<h3>Bestsellers</h3><ol><li>Kind of Blue</li><li>A Love Supreme</li><li>Mingus Ah Um</li>
</ol></td>
</tr>
<tr><td id="bottom" colspan="3" bgcolor="#eee">Jo's Record Shop, 1 High Street. Open daily.</td></tr>
</table></body></html>"""
"""An old-school shop page laid out with one table: header row, three columns, footer row."""

TABLE_REGIONS = ("top", "left", "product", "right", "bottom")


def _comment(number: int, replies: int) -> str:
    nested = "".join(
        f'<li class="c"><div class="who"><b>reader{number}{k}</b> <span>2 hours ago</span>'
        f'</div><p>{SENTENCE}</p></li>' for k in range(replies))
    children = f"<ul>{nested}</ul>" if replies else ""
    return (f'<li class="c" id="c{number}"><div class="who"><b>commenter {number}</b> '
            f'<span>3 hours ago</span></div><p>{SENTENCE * (1 + number % 3)}</p>'
            f'<a href="#reply">Reply</a>{children}</li>')


COMMENT_COUNTS = (0, 2, 0, 1, 0, 0)

COMMENTS = f"""<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:8px;font:15px sans-serif">
<div id="masthead"><h1>The Daily Paper</h1><a href="/">Front page</a> <a href="/world">World</a>
</div>
<div id="story"><h2>Town hall gets a new roof</h2><p>{SENTENCE * 4}</p><p>{SENTENCE * 3}</p></div>
<div id="comments"><h3>6 comments</h3><ol>
{"".join(_comment(i, n) for i, n in enumerate(COMMENT_COUNTS))}
</ol></div>
<div id="foot">Contact the newsroom.</div>
</body></html>"""
"""A news article with six top-level comments, two of them with replies; no class names a post."""


def _flat_comment(number: int, replies: int) -> str:
    extra = ("", "<blockquote>Quoted words from the deal.</blockquote>",
             '<div><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="80" height="40">'
             "</div><p>A second paragraph.</p>", "")[number % 4]
    body = (f'<div><div><b>member{number}</b> <i>posted {number + 1} days ago</i></div>'
            f'{extra}<p>{SENTENCE * (1 + number % 2)}</p></div>')
    if not replies:
        return body
    return body + "<ul>" + "".join(
        f"<li><b>answer{number}{k}</b> {SENTENCE}</li>" for k in range(replies)) + "</ul>"


FLAT_REPLY_COUNTS = (3, 1, 2, 0)

FLAT_THREAD = f"""<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:8px;font:15px sans-serif">
<div id="top"><h1>Deal: coffee for half price</h1><p>{SENTENCE * 3}</p></div>
<div id="thread">{"".join(_flat_comment(i, n) for i, n in enumerate(FLAT_REPLY_COUNTS))}</div>
<div id="bottom"><form><textarea></textarea><button>Send</button></form></div>
</body></html>"""
"""A thread whose comments (some with a quote or a picture, so their tag trees differ) are
followed by the lists of their replies as siblings, not nested: each comment and its reply list
are one unit for people."""
