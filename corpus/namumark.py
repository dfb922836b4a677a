"""NamuWiki markup (namumark) to the text a reader sees, for pretraining.

NamuWiki (the KLUE paper's NAMUWIKI corpus) ships its articles as markup. Kept: the prose of
paragraphs, list items and quotations, the shown text of links, of formatted spans and of
``{{{#!wiki}}}``/``{{{#!folding}}}`` boxes. Removed: tables (``||`` rows: infoboxes and
navigation boxes, cells rather than sentences), headings (``== 개요 ==``: labels, not
sentences; the title is kept beside the text), footnotes (``[* ...]``: asides that would
split the sentence they sit in), files and categories, macros (``[include(...)]``,
``[목차]``, ``[youtube(...)]``), HTML and syntax boxes, comments, horizontal rules and
struck-out text (``~~...~~``, ``--...--``: what the page shows as deleted). ``[br]`` is a
line break; ``[ruby(글, ruby=루비)]`` is its text.

A line-oriented cleaner in a few regular expressions and one bracket scanner: it is meant
for the bulk of articles, not as a namumark renderer (nested tables inside a box, or a
footnote that spans lines, lose or keep a little more than a browser shows; the tests in
tests/test_namuwiki.py pin each construct).
"""

from __future__ import annotations

import re

#: A heading line: ``= x =`` to ``====== x ======``, folded (``#``) or not.
_HEADING = re.compile(r"^\s*(={1,6})#?\s*(.*?)\s*#?\1\s*$")
_RULE = re.compile(r"^\s*-{4,9}\s*$")
_LIST = re.compile(r"^\s+(?:\*|[1aAiI]\.(?:#\d+)?)\s*")
_QUOTE = re.compile(r"^\s*>+\s*")
#: Macros shown as nothing in text (case-insensitive name, with or without arguments).
_MACRO = re.compile(
    r"\[(?:include|youtube|kakaotv|nicovideo|vimeo|navertv|age|dday|pagecount|anchor|"
    r"math|목차|tableofcontents|각주|footnote|date|datetime|clearfix|놀이|navbox)"
    r"(?:\([^\]]*\))?\]",
    re.IGNORECASE,
)
_BR = re.compile(r"\[br\]", re.IGNORECASE)
_RUBY = re.compile(r"\[ruby\(([^,\)]*)(?:,[^\)]*)?\)\]", re.IGNORECASE)
#: A link: ``[[target]]`` or ``[[target|label]]`` (no nested ``[[`` inside).
_LINK = re.compile(r"\[\[((?:(?!\]\]|\[\[).)*?)(?:\|((?:(?!\]\]|\[\[).)*))?\]\]")
_HIDDEN_LINK = re.compile(r"^\s*(?:파일|file|분류|category|이미지|image):", re.IGNORECASE)
#: Struck-out text; ``--x--`` only as a word of its own (``1990--2000`` is a range).
_STRUCK = re.compile(r"~~(?!\s)(.+?)~~|(?<![^\s(])--(?![\s-])(.+?)(?<!\s)--(?=[\s.,!?)]|$)")
_EMPHASIS = re.compile(r"'''(.+?)'''|''(.+?)''|__(.+?)__|\^\^(.+?)\^\^|,,(.+?),,")
_SPACES = re.compile(r"[ \t]{2,}")
#: A redirect's first line; the target may follow without a space (``#redirect문서``).
_REDIRECT = re.compile(r"^\s*#(?:redirect|넘겨주기)", re.IGNORECASE)
#: An innermost ``{{{...}}}`` box (no box opens or closes inside it).
_INNER_BOX = re.compile(r"\{\{\{((?:(?!\{\{\{|\}\}\}).)*)\}\}\}", re.DOTALL)
#: A box's size (``+1``..``-5``) or colour (``#red``, ``#fff,#000``) prefix before its text.
_BOX_STYLE = re.compile(r"(?:[+-][1-5]|#[0-9A-Za-z]+(?:,#[0-9A-Za-z]+)?)\s")


def is_redirect(markup: str) -> bool:
    """Whether an article is a redirect (``#redirect 문서`` / ``#넘겨주기 문서``)."""
    return _REDIRECT.match(markup) is not None


def _boxes(text: str) -> str:
    """``{{{...}}}`` blocks resolved innermost first: HTML, syntax and code-less raw boxes
    of a ``#!`` kind other than wiki/folding are dropped; the others keep their text."""
    out = text
    for _ in range(64):  # nesting depth; each pass resolves the innermost boxes
        new = _INNER_BOX.sub(lambda m: _box(m.group(1)), out)
        if new == out:
            break
        out = new
    return out


def _box(body: str) -> str:
    if body.startswith("#!"):
        kind, _, rest = body[2:].partition("\n")
        name = kind.split()[0].lower() if kind.split() else ""
        if name in ("wiki", "folding"):
            return "\n" + rest + "\n"
        return ""  # #!html, #!syntax, ...
    m = _BOX_STYLE.match(body)
    return body[m.end() :] if m else body  # size, colour: the text; else the literal


def _drop_footnotes(line: str) -> str:
    """``[* ...]`` and ``[*label ...]`` removed, brackets inside them counted."""
    out: list[str] = []
    i = 0
    while True:
        j = line.find("[*", i)
        if j < 0:
            out.append(line[i:])
            return "".join(out)
        out.append(line[i:j])
        depth, k = 0, j
        while k < len(line):
            if line[k] == "[":
                depth += 1
            elif line[k] == "]":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def _link(m: re.Match) -> str:
    target, label = m.group(1), m.group(2)
    if _HIDDEN_LINK.match(target):
        return ""
    if label is not None:
        return label
    if re.match(r"https?://", target):
        return ""
    return target.split("#", 1)[0].removeprefix(":")


def _inline(line: str) -> str:
    line = _RUBY.sub(r"\1", line)
    line = _MACRO.sub("", line)
    line = _drop_footnotes(line)
    for _ in range(4):  # a link's label may hold emphasis, and emphasis a link
        new = _EMPHASIS.sub(lambda m: next(g for g in m.groups() if g is not None), line)
        new = _LINK.sub(_link, new)
        if new == line:
            break
        line = new
    line = _BR.sub("\n", _STRUCK.sub("", line))  # after the footnotes: a [br] inside one goes
    return "\n".join(_SPACES.sub(" ", part).strip() for part in line.split("\n"))


def namumark_text(markup: str) -> str:
    """The shown prose of one article's markup, one paragraph or item per line."""
    text = _boxes(markup.replace("\r\n", "\n"))
    lines: list[str] = []
    for raw in text.split("\n"):
        if raw.lstrip().startswith(("##", "||")) or _RULE.match(raw) or _HEADING.match(raw):
            continue
        if raw.lstrip().lower().startswith("attachment:"):
            continue
        line = _QUOTE.sub("", _LIST.sub("", raw))
        lines.extend(part for part in _inline(line).split("\n") if part)
    return "\n".join(lines)
