"""Where the posts of a page are: repeated records (forum posts, comments, answers, reviews),
the quotes inside them and their chrome (author box, dates, buttons, signatures).

A record is an element whose class, id, role or schema.org item type names a post (post, comment,
reply, answer, message, review) and that the page repeats (two or more elements of that tag and
name, digits removed: ``li#post_1``, ``li#post_2``). Requiring both the name and the repetition
is what separates posts from the post of an article page and from lists of links (menus repeat,
but do not call their items posts); a name made with a part word (``comment-body``,
``comments-area``) is a part or a list, not a post. A reply nested inside a post is its own
record: every node belongs to its innermost record.

Names are one kind of evidence; two others carry to sites whose names say nothing. Posts the
page declares in JSON-LD (:mod:`.schema`) are found by their text, and repeated sibling records
that hold prose plus short chrome (:mod:`.structure`, the MDR/DEPTA idea) by their shape, where
no named record is. A group of named records that is a listing (a board index's rows:
:func:`.structure.is_listing`) is not posts.

Inside a record, a quote is a ``blockquote`` or an element whose classes name a quote; chrome is
a ``header``/``footer``/``aside`` or an element whose classes name author, user, date,
signature, actions and the like, without a sentence in it (signatures aside). Both hold less
than half of the record's text (chrome may hold more of a very short post): vBulletin sets every
post's body in a ``blockquote``, and a wrapper named ``postdetails`` around the body is not
chrome.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..model import TEXT_TAG, PageCapture
from ..page.names import name_letters
from ..page.tree import holds
from ..text.sentences import sentence_share
from .schema import POST_TYPES, declared_groups
from .structure import SubtreeTotals, is_listing, structural_groups

POST_TYPE_NAMES = {name.lower(): name for name in POST_TYPES}
"""schema.org types whose items are posts, by their names as pages write them
(``http://schema.org/comment``)."""
RECORD_WORDS = ("post", "comment", "reply", "answer", "message", "review", "msg")
"""Words that name a post in class names, ids, roles and item types (matched as word prefixes:
``postbit``, ``comment``, ``answer-123``)."""
PART_WORDS = frozenset({
    "body", "content", "text", "meta", "author", "header", "head", "footer", "foot", "list",
    "form", "count", "date", "time", "link", "links", "button", "title", "info", "profile",
    "details", "avatar", "signature", "sig", "actions", "action", "vote", "votes", "icon", "user",
    "respond", "area", "section", "wrap", "wrapper", "container", "navigation",
    "nav", "pagination", "number", "num", "id", "edit", "quote", "share", "tools", "menu",
    "metadata", "rating", "stats", "image", "img", "new", "feed", "widget", "recent", "latest",
    "input", "field", "textarea", "submit", "login", "notes", "row",
})
"""A class made of a record word and one of these names a part of a post or a list of posts
(``comment-body``, ``comments-area``, ``post-date``), not a post."""
QUOTE_WORDS = frozenset({"quote", "quotecontent", "bbcodequote", "blockquote", "quoted"})
CHROME_WORDS = frozenset({
    "author", "user", "username", "userinfo", "avatar", "meta", "date", "time", "signature",
    "sig", "actions", "action", "vote", "votes", "permalink", "rank", "joined", "postcount",
    "badge", "profile", "postprofile", "posthead", "byline", "timestamp", "toolbar", "buttons",
    "controls", "footer", "header", "reply", "share", "like", "likes", "reactions", "report",
    "edit", "menu", "tools", "userstats", "usertitle", "postdate", "postinfo", "info", "stats",
    "postfoot", "postfooter", "postmeta", "commentmeta", "lastedit", "editnote", "creator",
})
SIGNATURE_WORDS = frozenset({"signature", "sig"})
"""Chrome that may hold sentences; other chrome never does (a sentence in a record's header is
an article's lead, not its byline)."""
CHROME_TAGS = frozenset({"HEADER", "FOOTER", "ASIDE", "NAV", "BUTTON", "FORM"})
QUOTE_TAGS = frozenset({"BLOCKQUOTE", "Q"})
MAX_PART_SHARE = 0.5
"""A quote or chrome holds less than this share of its record's text: a ``blockquote`` or a
``postdetails`` wrapper around the whole post is the post (vBulletin's body is a blockquote)."""
MAX_SHORT_CHROME_WORDS = 15
"""Chrome may hold more than half of a short post's words (a date line beside "Thanks!")."""
MIN_RECORD_WORDS = 3
"""A repeated group counts as records only when two of its members hold this many words."""
LIST_WORDS = frozenset({"list", "thread", "feed"})
"""A record word with one of these (``comment-list``, ``commentlist``), or in the plural
(``comments``, ``reviews``), names a list of posts."""
_GLUED_LIST_NAMES = frozenset(record + word for record in RECORD_WORDS for word in LIST_WORDS)
"""``commentlist``, ``postthread``: a list name written as one word."""
MAX_EMPTY_LIST_WORDS = 60
"""A list of posts with no post in it holds only its notices ("No reviews yet. Be the first to
write one.") when it has this few words; more are posts the names did not reveal."""

_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_DIGITS = re.compile(r"\d+")
_RECORD_WORD = re.compile("|".join(RECORD_WORDS))
"""Any of :data:`RECORD_WORDS`, anywhere: one search instead of one per word."""


@dataclass(slots=True)
class PostStructure:
    """Per node (index = node id): its innermost record (-1: none) and what part of that record
    it is in (``body``, ``quote``, ``chrome``)."""

    record_of: np.ndarray
    part_of: list[str]
    records: list[int] = field(default_factory=list)
    """Node ids of the record elements, in document order."""

    def key(self, node_id: int) -> tuple[int, str]:
        return int(self.record_of[node_id]), self.part_of[node_id]


def class_words(value: str) -> list[str]:
    """The lower-case words of a class list or id, camelCase split, digits dropped.

    >>> class_words("postbitlegacy postContainer comment-body js_123")
    ['postbitlegacy', 'post', 'container', 'comment', 'body', 'js']
    """
    return _WORD.findall(_CAMEL.sub(" ", value).lower())


def post_name(attrs: dict[str, str]) -> str | None:
    """The first class, id or role made of a record word and no part word (digits dropped), or a
    post item type; ``None`` when nothing names a post.

    >>> post_name({"class": "comment even thread-even"}), post_name({"id": "post_81"})
    ('comment', 'post_')
    >>> post_name({"class": "comment-body"}), post_name({"class": "comments-area"})
    (None, None)
    """
    return _post_name(attrs.get("class", ""), _DIGITS.sub("", attrs.get("id", "")),
                      attrs.get("role", ""), attrs.get("itemtype", ""), attrs.get("itemprop", ""))


@lru_cache(maxsize=4096)
def _post_name(classes: str, element_id: str, role: str, item_type: str,
               item_prop: str = "") -> str | None:
    """:func:`post_name` of one attribute set (pages repeat theirs: cached)."""
    name = item_type.rsplit("/", 1)[-1].lower()
    if name in POST_TYPE_NAMES:
        return POST_TYPE_NAMES[name]
    letters = f"{classes} {element_id} {role} {item_prop}".lower()
    if not _RECORD_WORD.search(letters):
        return None  # most names: no record word anywhere, so no need to split them
    for name in [*classes.split(), element_id, role, item_prop]:
        words = class_words(name)
        if not words or any(_is_part(word) for word in words) or _element_of_a_post(name):
            continue
        if any(word.startswith(RECORD_WORDS) and not word.endswith("s") or word in RECORD_WORDS
               for word in words):
            return _DIGITS.sub("", name)
    return None


def _element_of_a_post(name: str) -> bool:
    """A BEM element of a post block (``post__sidebar``, ``comment__item``: the part before
    ``__`` names one post): a part of a post, whatever the element is called. An element of a
    list (``comments__item``) or another block (``thread__post``) is judged by its words.

    >>> _element_of_a_post("post__sidebar"), _element_of_a_post("thread__post")
    (True, False)
    """
    block, separator, _ = name.partition("__")
    return bool(separator) and any(word.startswith(RECORD_WORDS) and not word.endswith("s")
                                   for word in class_words(block))


def _is_part(word: str) -> bool:
    """A part word, alone or glued to a record word (``postbody``, ``commenttext``)."""
    for prefix in ("", *RECORD_WORDS):
        if word.startswith(prefix):
            rest = word[len(prefix):]
            if rest in PART_WORDS or rest.rstrip("s") in PART_WORDS:
                return True
    return False


@dataclass(frozen=True, slots=True)
class Evidence:
    """Which evidence finds records: names (classes, ids, roles, microdata), posts declared in
    JSON-LD, repeated structure. All on by default; one off measures what the others find."""

    names: bool = True
    declared: bool = True
    structure: bool = True


def find_posts(page: PageCapture, evidence: Evidence = Evidence()) -> PostStructure:
    """Records, and each node's record and part.

    Elements named as posts are grouped by tag and name over the whole page, not only among
    siblings: a reply nested one level down is alone in its list but named as its parent is,
    and alternating classes (``even``/``odd``) must not split a thread.
    """
    nodes = page.nodes
    totals = SubtreeTotals.of(page)
    text_words = totals.words
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for node in nodes if evidence.names else ():
        if not node.is_text and node.attrs:
            name = post_name(node.attrs)
            if name is not None:
                groups[(node.tag, name)].append(node.id)
    key_of: dict[int, tuple[str, str]] = {}
    for key, members in groups.items():
        if (sum(text_words[m] >= MIN_RECORD_WORDS for m in members) >= 2
                and not is_listing(page, members, totals)):
            key_of.update(dict.fromkeys(members, key))
    is_record = np.zeros(len(nodes), dtype=bool)
    is_record[_drop_single_parts(page, key_of)] = True
    chrome_texts: set[int] = set()
    for group in declared_groups(page, text_words) if evidence.declared else ():
        near = _near_records(page, is_record)
        free = [member for member in group.members if not near[member]]
        is_record[free] = True
        chrome_texts.update(node_id for node_id in group.chrome
                            if any(holds(page, member, node_id) for member in free))
    structure = (structural_groups(page, totals, _near_records(page, is_record))
                 if evidence.structure else ())
    for group in structure:
        is_record[group.members] = True
        chrome_texts.update(group.chrome)
    record_of, part_of = _parts(page, is_record, text_words, chrome_texts, frozenset())
    posts_in_quotes = _quotes_holding_the_post(page, record_of, part_of)
    if posts_in_quotes:
        record_of, part_of = _parts(page, is_record, text_words, chrome_texts, posts_in_quotes)
    return PostStructure(record_of, part_of, [int(i) for i in np.flatnonzero(is_record)])


def _parts(page: PageCapture, is_record: np.ndarray, text_words: np.ndarray,
           chrome_texts: set[int], not_quotes: frozenset[int]) -> tuple[np.ndarray, list[str]]:
    """Each node's record and its part in it; the elements in ``not_quotes`` are taken for the
    body whatever their tag or name says."""
    nodes = page.nodes
    record_of = np.full(len(nodes), -1, dtype=np.int64)
    part_of = ["body"] * len(nodes)
    for node in nodes:  # parents come before their children
        parent = node.parent
        if is_record[node.id]:
            record_of[node.id] = node.id
            continue
        if parent is None:
            continue
        record = int(record_of[parent])
        record_of[node.id] = record
        part = part_of[parent]
        if record >= 0 and part == "body" and not node.is_text:
            words, whole = text_words[node.id], max(text_words[record], 1)
            if words < MAX_PART_SHARE * whole and node.id not in not_quotes and (
                    node.tag in QUOTE_TAGS or _has_word(node.attrs, QUOTE_WORDS)):
                part = "quote"
            elif ((words < MAX_PART_SHARE * whole or words < MAX_SHORT_CHROME_WORDS)
                  and (node.tag in CHROME_TAGS or _has_word(node.attrs, CHROME_WORDS))
                  and (_has_word(node.attrs, SIGNATURE_WORDS)
                       or not _has_sentence(page.text_of(node.id)))):
                part = "chrome"
        part_of[node.id] = "chrome" if part == "body" and node.id in chrome_texts else part
    return record_of, part_of


def _quotes_holding_the_post(page: PageCapture, record_of: np.ndarray,
                             part_of: list[str]) -> frozenset[int]:
    """The outermost quotes of records that have no text of their own outside quotes and
    chrome: a quote is a part of a post, so where nothing else is left it is the post itself
    (vBulletin writes every post's message in a ``blockquote``; a short reply under a long
    author box took less than half its record's words and went as a quote)."""
    if "quote" not in part_of:  # most pages: no quote at all
        return frozenset()
    own_text = {int(record_of[node.id]) for node in page.nodes
                if node.is_text and record_of[node.id] >= 0 and part_of[node.id] == "body"
                and node.text.strip()}
    return frozenset(
        node.id for node in page.nodes
        if part_of[node.id] == "quote" and node.parent is not None
        and part_of[node.parent] != "quote" and int(record_of[node.id]) not in own_text)


def _near_records(page: PageCapture, is_record: np.ndarray) -> np.ndarray:
    """Per node: a record, inside one, or holding one (structure is sought elsewhere)."""
    if not is_record.any():
        return is_record.copy()
    inside = is_record.tolist()
    for node in page.nodes:  # parents first
        if node.parent is not None and inside[node.parent]:
            inside[node.id] = True
    holding = is_record.tolist()
    for node in reversed(page.nodes):  # children first
        if node.parent is not None and holding[node.id]:
            holding[node.parent] = True
    return np.array(inside, dtype=bool) | np.array(holding, dtype=bool)


def is_post_list(attrs: dict[str, str]) -> bool:
    """A class or id that names a list of posts.

    >>> [is_post_list({"id": n}) for n in ("reviews", "comment-list", "commentlist", "comment")]
    [True, True, True, False]
    """
    return _is_post_list(attrs.get("class", ""), attrs.get("id", ""))


@lru_cache(maxsize=4096)
def _is_post_list(classes: str, element_id: str) -> bool:
    letters = name_letters(f"{classes}{element_id}")
    if not _RECORD_WORD.search(letters):
        return False  # most names: no record word anywhere, so no need to split them
    for name in (*classes.split(), element_id):
        words = class_words(name)
        for word, following in zip(words, [*words[1:], ""]):
            stem = word[:-1] if word.endswith("s") else word
            if stem in RECORD_WORDS and (word != stem or following in LIST_WORDS):
                return True
            if word in _GLUED_LIST_NAMES:
                return True
    return False


def post_list_chrome(page: PageCapture, posts: PostStructure) -> np.ndarray:
    """Per node: text of a list of posts outside its posts (its heading, "Comments are closed.",
    "0 reviews for this item.", the reply form's labels): in lists where that text is at most
    :data:`MAX_EMPTY_LIST_WORDS` words or less than the posts found in them (more is posts
    that were not found, not the list's chrome)."""
    nodes = page.nodes
    holder = [-1] * len(nodes)  # innermost list of posts around a node (a list: fast per node)
    for node in nodes:  # parents come before their children
        above = holder[node.parent] if node.parent is not None else -1
        named = "class" in node.attrs or "id" in node.attrs
        holder[node.id] = node.id if named and is_post_list(node.attrs) else above
    if max(holder, default=-1) < 0:
        return np.zeros(len(nodes), dtype=bool)  # no list of posts on the page
    outside = posts.record_of < 0
    loose = outside.tolist()
    loose_words: dict[int, int] = defaultdict(int)
    post_words: dict[int, int] = defaultdict(int)
    for node in nodes:
        if holder[node.id] >= 0 and node.tag == TEXT_TAG:
            words = loose_words if loose[node.id] else post_words
            words[holder[node.id]] += len(node.text.split())
    chrome_lists = {held for held, words in loose_words.items()
                    if words <= max(MAX_EMPTY_LIST_WORDS, post_words[held])}
    return outside & np.isin(np.array(holder, dtype=np.int64), list(chrome_lists))


def _drop_single_parts(page: PageCapture, key_of: dict[int, tuple[str, str]]) -> list[int]:
    """The candidates that are records: not those of another name that occur once inside a
    candidate (vBulletin's ``blockquote.postcontent`` in each ``li.postbit``, WordPress's
    ``article#div-comment-N`` in each ``li.comment``: parts, since records repeat). Nested
    candidates of the same name are replies and stay."""
    enclosing: dict[int, int] = {}  # candidate -> nearest enclosing candidate
    nearest = [-1] * len(page.nodes)
    for node in page.nodes:  # parents come first
        above = nearest[node.parent] if node.parent is not None else -1
        if node.id in key_of:
            enclosing[node.id] = above
            above = node.id
        nearest[node.id] = above
    inside: dict[tuple[int, tuple[str, str]], int] = defaultdict(int)
    for candidate, outer in enclosing.items():
        inside[(outer, key_of[candidate])] += 1
    return [candidate for candidate, outer in enclosing.items()
            if outer < 0 or key_of[outer] == key_of[candidate]
            or inside[(outer, key_of[candidate])] > 1]


def _has_sentence(text: str) -> bool:
    """A sentence of 8+ words ending in punctuation: a teaser's lead in its ``<header>``."""
    return sentence_share(text) > 0


def _has_word(attrs: dict[str, str], words: frozenset[str]) -> bool:
    """A class or microdata property (``itemprop="author"``) names one of ``words``."""
    return names_a_word(f"{attrs.get('class', '')} {attrs.get('itemprop', '')}", words)


def names_a_word(names: str, words: frozenset[str]) -> bool:
    """Whether one of the space-separated class names (or ids) in ``names`` is, or holds as a
    word, one of ``words`` (``post-meta``, ``postMeta`` and ``postmeta`` all name ``meta`` or
    ``postmeta``)."""
    return any(word in words for name in names.split()
               for word in (*class_words(name), name.lower().replace("-", "").replace("_", "")))
