"""Web addresses, e-mails and dotted numbers that are detected but name no one.

A detector finds a URL, an e-mail or an IP address by its shape; whether the value
names a person is a second question, answered here for `corpus.pii.kept.public_kind`
(issue #24's fourth blind set). A kept value is still detected, so no other detector
reads its digits, but it stays as written and is counted under its kind:

* ``public_host`` (`public_host`): a site's host with no path, a public institution's
  (``www.gov.kr``) or any site's (``www.youtube.com``) but a blog's personal subdomain or
  a handle-like name (``someone.tistory.com``, ``www.hong12.co.kr``);
* ``reference_page``: a page of a reference, standards or documentation site
  (`REFERENCE_HOSTS`: ``doi.org``, ``rfc-editor.org``, ``w3.org``, ``iso.org``,
  ``developer.mozilla.org`` …; a host starting ``docs.``/``download.``), whose path
  names no one (`PERSONAL_PATH`); on any other site that is not a person's (not a
  platform, a code host or a blog: `PERSONAL_HOSTS`), a documentation, registry or Q&A
  page by its first path segment (``kubernetes.io/docs/…``, ``nodejs.org/api/…``,
  ``crates.io/crates/…``, ``stackoverflow.com/questions/…``) or its release
  (``…/en/3.0.x/…``), a store's page of an app, a game or an official image
  (`STORE_PAGES`), or a link pattern with its value left out (``youtube.com/watch?v=``)
  (issue #24's fifth blind set);
* ``institution_page``: a page on a public institution's host (`INSTITUTION_DOMAINS`:
  ``….go.kr``, ``….ac.kr``, ``….or.kr``, ``….mil.kr``, ``….re.kr``, ``korea.kr``), a
  masked one too (``www.○○.go.kr/minwon``), whose path names no one: a professor's or a
  council member's own page (``~hong``, ``/people/…``, ``/faculty/…``, ``?memberId=…``)
  names its person and is replaced;
* ``example_address``: a host or a mail domain reserved for examples (RFC 2606, RFC
  6761): ``example.com``/``.net``/``.org`` and their subdomains, the top-level
  ``.example``, ``.test``, ``.invalid``, ``.localhost``: nobody can own one;
* ``non_global_ip`` (with `corpus.pii.validators.global_ip`): a URL whose host is an
  IP address that is not global (``http://127.0.0.1:8000``), like the bare address;
* ``official_account``: an account on a platform (`ACCOUNT_HOSTS`: blog.naver.com/…,
  instagram.com/…, youtube.com/@…, facebook.com/…) that the text calls official
  (``공식 블로그 …``) or gives to a public institution named right before it
  (``기상청 페이스북 …``, ``국립공원공단 인스타그램(…)``, ``서울시 블로그 …``). A region
  alone (``부산 블로그``), a person word (``제 공식 블로그``, ``비공식``) or a word between
  the name and the platform (``서울시 맛집 블로그``) is no such evidence.

`not_an_ip` is the IP detector's test for a dotted number with the shape of an IPv4
address that is none: a four-part version number (`version_number`: ``cuDNN 8.9.7.29``,
``펌웨어 5.12.0.204(C00E200R1P1)``), a section of a document (`section_number`: ``규격서
3.4.12.1절``), a number the text says only looks like one. `ssh_remote` is the e-mail
detector's test for a code host's SSH remote (``git@github.com:org/project.git``).
"""

from __future__ import annotations

import re

from corpus.pii.institutions import ACCOUNT_OWNER_WORD
from corpus.pii.places import KNOWN_UNITS, NOT_UNITS
from corpus.pii.validators import global_ip
from corpus.pii.written_shapes import LINK_HOSTS, SUBDOMAIN_HOSTS

# --- the parts of a URL ---------------------------------------------------------------


def split_url(value: str) -> tuple[str, str]:
    """(host as written, with any user information and port; the rest from its first
    ``/``, ``?`` or ``#``) of a detected URL, with or without a scheme."""
    rest = value.split("://", 1)[-1]
    cut = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=-1)
    return (rest[:cut], rest[cut:]) if cut >= 0 else (rest, "")


def _plain_host(host: str) -> str:
    """`host` in lower case without a leading ``www.`` (a host, not an address with a port)."""
    return host.lower().removeprefix("www.")


def _under(host: str, domains: tuple[str, ...]) -> bool:
    """True when `host` is one of `domains` or a subdomain of one."""
    return any(host == d or host.endswith("." + d) for d in domains)


#: A path or query that names someone, on a reference site or an institution's host: a
#: ``~`` or ``@`` (``/~hong``, ``/@hong``), a user's or a member's page (``/users/``,
#: ``/profile``, ``/people/``, ``/faculty/``, ``/professor/``, ``/staff/``, ``/homepage``),
#: a user's wiki page (``User:``, ``사용자:`` percent-encoded), a query key that holds a
#: person (``id=``, ``user…=``, ``member…=``, ``name=``, ``mail=``, ``prof…=``, ``emp…=``).
PERSONAL_PATH = re.compile(
    r"[~@]|[?&;](?:id|uid|user\w*|nick\w*|e?mail|name|member\w*|mem_?id|mbr\w*|prof\w*|emp\w*"
    r"|staff\w*|person\w*)="
    r"|/(?:users?|profiles?|members?|u|people|person|faculty|professors?|prof|staff"
    r"|homepage|hompy|researchers?|students?|mypage)(?=[/?#.]|$)"
    r"|(?:User|%EC%82%AC%EC%9A%A9%EC%9E%90)(?:[_ ]talk|%ED%86%A0%EB%A1%A0)?:",
    re.IGNORECASE,
)


def personal_marks(rest: str) -> list[tuple[int, int]]:
    """The spans of `PERSONAL_PATH` in a URL's path and query.

    The URL generator keeps them on an institution's host (`institution_host`): the
    pseudonym of ``….ac.kr/people/hong`` is ``….ac.kr/people/…`` and stays replaced on a
    second pass, where a scrambled ``/qxbmwr/…`` would be kept as an institution's page.
    """
    return [m.span() for m in PERSONAL_PATH.finditer(rest)]


# --- reference and documentation pages ----------------------------------------------------

#: The host of a public institution's site with no path: "www.gov.kr", "law.go.kr",
#: "https://www1.president.go.kr/". A public page address names no one; it is detected
#: (so no other detector reads its digits) but kept and counted apart. With a path
#: ("….go.kr/…") it is `institution_page`'s to keep or replace.
_PUBLIC_HOST = re.compile(
    r"(?:(?:https?|ftp)://)?(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)*"
    r"(?:go|gov|mil|korea)\.kr/?",
    re.IGNORECASE,
)


#: Any site's host with no path: "www.youtube.com", "https://www.letskorail.com/". A
#: host with no path names a site, not a person (issue #24: the personal part of a bare
#: host is its path), so it is kept like a public institution's, but for two shapes.
_SITE_HOST = re.compile(
    r"(?:(?:https?|ftp)://)?((?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24})/?"
)
#: Blog hosts that give each person a subdomain: "someone.tistory.com" names its writer.
BLOG_HOSTS = (
    "tistory.com", "blogspot.com", "github.io", "wordpress.com", "egloos.com", "blog.me",
    "tumblr.com", "velog.io", "notion.site", "substack.com", *SUBDOMAIN_HOSTS,
)  # fmt: skip
#: A site's own name ending in digits after letters is a handle, as in an e-mail's local
#: part ("www.hong12.co.kr"); "www1." and "m." before it are servers, not names.
_HANDLE_LABEL = re.compile(r"[A-Za-z][A-Za-z\-]*[0-9]+")


def _personal_site(host: str) -> bool:
    """True when a host with no path still names someone: a blog subdomain or a handle."""
    host = host.lower()
    for blog in BLOG_HOSTS:
        if host.endswith("." + blog):
            return host[: -len(blog) - 1] not in ("www", "m")
    labels = host.split(".")
    suffix = 2 if len(labels) > 2 and labels[-2] in ("co", "or", "ac", "go", "ne", "pe") else 1
    return len(labels) > suffix and _HANDLE_LABEL.fullmatch(labels[-suffix - 1]) is not None


def public_host(value: str) -> bool:
    """True when the URL `value` is a host with no path that names no one: a public
    institution's (above), or any site's but a personal one (`_personal_site`)."""
    if _PUBLIC_HOST.fullmatch(value) is not None:
        return True
    site = _SITE_HOST.fullmatch(value)
    return site is not None and not _personal_site(site.group(1))


#: Reference, standards and documentation sites: a page there is a paper, a standard, a
#: package, a manual or an encyclopedia entry written for everyone, and its path names the
#: work, not a person (issue #24's third and fourth blind sets: ``https://doi.org/10.…``,
#: ``https://www.rfc-editor.org/rfc/rfc5737``, ``https://www.w3.org/TR/WCAG21/``,
#: ``developer.mozilla.org/ko/docs/…``, ``www.iso.org/standard/68531.html``). The host
#: itself or any subdomain (``dx.doi.org``, ``ko.wikipedia.org``, ``datatracker.ietf.org``).
#: Code hosting is not here: ``github.com/OWNER/REPO`` names an account.
REFERENCE_HOSTS = (
    "doi.org", "arxiv.org", "pypi.org", "wikipedia.org",
    "rfc-editor.org", "ietf.org", "w3.org", "whatwg.org", "iso.org", "iec.ch", "itu.int",
    "unicode.org", "ecma-international.org", "nist.gov",
    "developer.mozilla.org", "learn.microsoft.com", "developer.android.com",
    "developer.apple.com", "cppreference.com",
)  # fmt: skip
#: A host that starts with one of these serves a project's manuals or files
#: (``docs.python.org``, ``download.pytorch.org``); but for `SHARED_DOCS`.
REFERENCE_PREFIXES = ("docs.", "download.", "downloads.")
#: Document hosts whose pages are someone's own document ("docs.google.com/document/d/…").
SHARED_DOCS = frozenset(("docs.google.com",))
#: A shared document's link with its id left out, as a text explains it
#: ("docs.google.com/spreadsheets/d/ 뒤에 문서 ID가 붙는 구조"): it names no document.
_EMPTY_DOC = re.compile(r"/(?:document|spreadsheets|presentation|forms|drawings|file)/d/?")


def reference_page(value: str) -> bool:
    """True when the URL `value` is a page of a reference or documentation site
    (`REFERENCE_HOSTS`, `REFERENCE_PREFIXES`) whose path names no one, or, on any site
    that is not a person's, a documentation, registry, Q&A or app-store page or an empty
    link pattern (`site_reference_page`)."""
    host, path = split_url(value)
    host = host.lower()
    if "@" in host or ":" in host:
        return False  # user information or a port before the path: not a plain page
    if host in SHARED_DOCS:
        return _EMPTY_DOC.fullmatch(path) is not None
    if not (_under(host, REFERENCE_HOSTS) or _plain_host(host).startswith(REFERENCE_PREFIXES)):
        return site_reference_page(host, path)
    return PERSONAL_PATH.search(path) is None


#: Sites whose every path is an account, a person's post or a person's repository (with
#: the platforms of `ACCOUNT_HOSTS`): a code host (``github.com/OWNER/REPO`` names an account, by
#: policy: docs/pii.md), a writers' platform whose posts are under ``@ID``, a link-in-bio
#: page. A documentation-like word in such a path ("github.com/hong/docs") is the
#: person's own folder.
PERSONAL_HOSTS = frozenset(
    (*LINK_HOSTS, "github.com", "gist.github.com", "gitlab.com", "bitbucket.org",
     "codeberg.org", "velog.io", "medium.com", "brunch.co.kr", "youtu.be", "naver.me")
)  # fmt: skip
#: The first path segment of a documentation, registry or Q&A page, after at most two
#: segments of a language (``/en/``, ``/ko-kr/``) or a version (``/3.0.x/``, ``/v2/``,
#: ``/stable/``): ``kubernetes.io/docs/…``, ``nodejs.org/api/fs.html``,
#: ``pytorch.org/get-started/locally``, ``flask.palletsprojects.com/en/3.0.x/quickstart/``,
#: ``crates.io/crates/serde``, ``www.npmjs.com/package/…``, ``stackoverflow.com/questions/…``.
#: A project's manual is written for everyone; a question page is about the question.
#: A manual's language segment: ``en``, ``ko-kr``, ``zh_CN``.
_LANGUAGE = r"(?:en|ko|ja|zh|de|fr|es|pt|ru|it)(?:[-_][A-Za-z]{2,4})?"
_DOC_PATH = re.compile(
    r"/(?:(?:" + _LANGUAGE + r"|v?\d+(?:\.(?:\d+|x))*"
    r"|latest|stable|current)/){0,2}"
    r"(?:docs?|documentation|api|apis|reference|references|manual|manuals|guides?|tutorials?"
    r"|get-?started|getting-started|quick-?start|install(?:ation)?|handbook|learn|crates"
    r"|packages?|questions|library)(?=[/?#.]|$)",
    re.IGNORECASE,
)
#: A site's own page for everyone by its first path segment, after a language maybe: a
#: notice or patch note (``forum.…/notice/3127``), a news article or press release
#: (``news.….co.kr/article/…``), a help-centre article (``support.…/hc/ko/articles/…``), a
#: privacy policy or terms (``…/privacy``), an event or a job opening. The site speaks
#: there, not a person. So does any page of a news or help host (`_SITE_PAGE_HOSTS`:
#: ``news.….co.kr/2025031200451``, ``support.…/…``).
_SITE_PAGE = re.compile(
    r"/(?:" + _LANGUAGE + r"/)?"
    r"(?:notices?|news|newsroom|articles?|press|announcements?|patch-?notes?|hc|help|faq"
    r"|support|privacy|terms|policy|policies|legal|events?|careers?|recruit)(?=[/?#.]|$)",
    re.IGNORECASE,
)
_SITE_PAGE_HOSTS = ("news.", "m.news.", "n.news.", "support.", "help.", "helpcenter.")
#: A writer's page on a news or help site: a reporter's list, an author's profile.
_BYLINE = re.compile(
    r"/(?:reporters?|journalists?|authors?|writers?|columnists?|byline)(?=[/?#.]|$)"
    r"|[?&](?:reporter|journalist|author|writer)\w*=",
    re.IGNORECASE,
)
#: A manual's versioned path: a language maybe, then a release (``/en/3.1.x/…``,
#: ``/ko/latest/…``, ``/stable/…``, ``/2.4/…``), as a project publishes each release's
#: manual; a person's page has no release in its path.
_VERSIONED_PATH = re.compile(
    r"/(?:" + _LANGUAGE + r"/)?"
    r"(?:v?\d+\.(?:\d+|x)(?:\.(?:\d+|x))*|latest|stable)/",
    re.IGNORECASE,
)
#: Stores and registries whose page of an app, a game or an official image is not under a
#: documentation-like word: the host, then the regex its path starts with. A developer's or
#: a user's page there (``…/store/apps/dev?id=…``, ``hub.docker.com/r/USER/…``,
#: ``steamcommunity.com/id/…``) is not listed, and stays replaced.
STORE_PAGES = {
    "play.google.com": re.compile(r"/store/apps/details(?=[/?#]|$)"),
    "apps.apple.com": re.compile(r"(?:/[a-z]{2})?/app/"),
    "store.steampowered.com": re.compile(r"/app/\d"),
    "hub.docker.com": re.compile(r"/_/"),  # the official images; /r/USER/ is an account's
    "chromewebstore.google.com": re.compile(r"/detail/"),
    "marketplace.visualstudio.com": re.compile(r"/items\?itemName="),
    "addons.mozilla.org": re.compile(r"(?:/[a-z]{2}(?:-[A-Z]{2})?)?/firefox/addon/"),
}
#: An app's package name in a store's query ("?id=com.example.app"): the app, not a user
#: (a query ``id=`` is otherwise read as a person's, `PERSONAL_PATH`).
_APP_ID = re.compile(r"(?<=[?&])id=[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+(?=[&#]|$)")
#: A link pattern with its value left out, as a text explains it ("www.youtube.com/watch?v=
#: 뒤에 붙는 11자리", "search.naver.com/search.naver?query="): an endpoint, then keys with
#: empty values. With the value it names a video or a search, and is the page's to judge.
_EMPTY_LINK = re.compile(
    r"/(?:watch|results|search|embed|view|read|redirect|share)(?:\.[a-z]{2,5})?"
    r"(?:[?&][A-Za-z_][A-Za-z0-9_]*=)+",
    re.IGNORECASE,
)


def site_reference_page(host: str, path: str) -> bool:
    """True when the page `path` of the lower-case `host` names no one on a site that is
    not a person's (`PERSONAL_HOSTS`, a blog's subdomain or a handle-like name): a
    documentation, registry or Q&A page (`_DOC_PATH`, `_VERSIONED_PATH`), a notice, news,
    help or policy page (`_SITE_PAGE`), a store's page
    of an app, a game or an official image (`STORE_PAGES`), or an empty link pattern
    (`_EMPTY_LINK`). A path that names someone (`PERSONAL_PATH`: ``/@ID``, ``/users/…``,
    ``?id=…``) is never one."""
    plain = _plain_host(host)
    if not path.strip("/?#") or _personal_site(plain) or example_domain(plain):
        return False  # an example domain's page is `example_url`'s, counted as one
    if _EMPTY_LINK.fullmatch(path):
        return True  # on a platform too: "www.youtube.com/watch?v=" names no video
    if plain in PERSONAL_HOSTS or plain in ACCOUNT_HOSTS:
        return False
    store = STORE_PAGES.get(plain)
    if store is not None and store.match(path):
        return PERSONAL_PATH.search(_APP_ID.sub("", path)) is None
    if (
        _DOC_PATH.match(path) is None
        and _VERSIONED_PATH.match(path) is None
        and (
            (_SITE_PAGE.match(path) is None and not plain.startswith(_SITE_PAGE_HOSTS))
            or institution_host(host)  # `institution_page`'s
            or _BYLINE.search(path) is not None
        )
    ):
        return False
    return PERSONAL_PATH.search(path) is None


# --- public institutions' pages ------------------------------------------------------------

#: Domains only public bodies are given: government (``go.kr``, ``korea.kr``, ``gov.kr``),
#: the military (``mil.kr``), universities and schools of higher education (``ac.kr``),
#: research institutes (``re.kr``) and non-profit organisations (``or.kr``).
INSTITUTION_DOMAINS = ("go.kr", "korea.kr", "gov.kr", "mil.kr", "ac.kr", "re.kr", "or.kr")


def institution_host(host: str) -> bool:
    """True when `host` (as written, maybe with a port) is under `INSTITUTION_DOMAINS`."""
    host = host.lower().rsplit(":", 1)[0] if host.count(":") == 1 else host.lower()
    return "@" not in host and _under(host, INSTITUTION_DOMAINS)


#: A board's post number on an institution's page ("…/news/view.do?id=5521"): an ``id=``
#: of digits only under a news, notice or board path is an article's, not a person's.
_BOARD_PATH = re.compile(r"/(?:news|notices?|board|bbs|press|articles?)(?=[/?#.]|$)", re.I)
_POST_NUMBER = re.compile(r"(?<=[?&;])id=\d+(?=[&#;]|$)")


def institution_page(value: str) -> bool:
    """True when the URL `value` is a page on a public institution's host whose path names
    no one (`PERSONAL_PATH`): ``likms.assembly.go.kr/bill``, ``www.○○.go.kr/minwon``.

    A masked label (○○) is still an institution's host: the domain says whose it is. A
    page of one person there (a professor's ``~hong`` or ``/people/hong``, a council
    member's ``?memberId=…``) names that person and is replaced.
    """
    host, path = split_url(value)
    if not institution_host(host):
        return False
    if _BOARD_PATH.search(path):
        path = _POST_NUMBER.sub("", path)  # a press release's number, not a member's id
    return PERSONAL_PATH.search(path) is None


# --- reserved example domains --------------------------------------------------------------

#: Second-level domains reserved for documentation (RFC 2606), with their subdomains.
EXAMPLE_DOMAINS = ("example.com", "example.net", "example.org")
#: Top-level domains reserved for examples, tests and local names (RFC 2606, RFC 6761).
RESERVED_TLDS = frozenset(("example", "test", "invalid", "localhost"))


def example_domain(host: str) -> bool:
    """True when `host` (a URL's host or an e-mail's domain) is reserved for examples:
    nobody can own it, so an address there reaches no one (``user@example.com``)."""
    host = host.lower().rstrip(".")
    if ":" in host and host.count(":") == 1:
        host = host.split(":")[0]  # a port
    return _under(host, EXAMPLE_DOMAINS) or host.rsplit(".", 1)[-1] in RESERVED_TLDS


def example_url(value: str) -> bool:
    """True when the URL `value` is on a reserved example host (`example_domain`)."""
    host = split_url(value)[0].rsplit("@", 1)[-1]
    return example_domain(host)


# --- a non-global IP address as a URL's host -----------------------------------------------

#: A URL's host that is an IPv4 address, maybe with a port (a URL is read up to a "[", so
#: an IPv6 host in brackets is found by the IP detector alone).
_IP_HOST = re.compile(r"(?P<v4>\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?")


def non_global_ip_url(value: str) -> bool:
    """True when the URL `value`'s host is an IP address that is not global
    (``http://127.0.0.1:8000``, ``http://192.168.0.1/admin``) and its path names no one:
    the same on every machine, like the bare address."""
    host, path = split_url(value)
    m = _IP_HOST.fullmatch(host)
    if m is None:
        return False
    return not global_ip(m.group("v4")) and PERSONAL_PATH.search(path) is None


# --- official accounts of institutions on platforms ----------------------------------------

#: Platforms whose path is an account (or a post of one): the person, or the institution,
#: is in the path. Not ``github.com`` (a code host's account is replaced by policy: docs/
#: pii.md), nor the short links ``youtu.be``/``naver.me``, which name a video or a page.
ACCOUNT_HOSTS = frozenset(
    "blog.naver.com m.blog.naver.com post.naver.com m.post.naver.com cafe.naver.com "
    "m.cafe.naver.com cafe.daum.net m.cafe.daum.net blog.daum.net youtube.com m.youtube.com "
    "instagram.com facebook.com m.facebook.com twitter.com x.com tiktok.com threads.net "
    "band.us pf.kakao.com twitch.tv m.twitch.tv chzzk.naver.com bj.afreecatv.com".split()
)
#: The platform as the sentence names it, between the owner and the address.
_PLATFORM_WORD = (
    r"(?:블로그|포스트|카페|인스타그램|인스타|유튜브|페이스북|페북|트위터|엑스|틱톡|스레드|밴드"
    r"|카카오(?:톡)?\s?채널|카톡\s?채널|채널|계정|페이지|SNS|[Bb]log|[Ii]nstagram|[Yy]ou[Tt]ube"
    r"|[Ff]acebook|[Tt]witter)"
)
#: After the platform words: a bracket, a colon or an arrow, then the address.
_TO_ADDRESS = r"(?:" + _PLATFORM_WORD + r"\s?){0,2}(?:[(（「『\[<:：\-→—]\s?)?$"
#: "공식" (official) right before the platform words, not inside a word (비공식, 수학공식).
_OFFICIAL_BEFORE = re.compile(r"(?<![가-힣A-Za-z])(?:공식|[Oo]fficial)\s?" + _TO_ADDRESS)
#: A word that makes "공식" someone's own: "제 공식 블로그", "개인 공식 계정".
_PERSON_BEFORE = re.compile(r"(?:^|[\s(])(?:제|내|나의|저의|개인|본인|친구)\s?$")
#: The owner's name, then "의", maybe "공식", then the platform words.
_OWNER_BEFORE = re.compile(
    r"(?<![가-힣A-Za-z○◯△])(?P<owner>[가-힣○◯△]{2,20}?)(?:의)?\s(?:공식\s?)?" + _TO_ADDRESS
)
#: Public institutions and bodies by name, one list with the address and phone rules
#: (`corpus.pii.institutions.ACCOUNT_OWNER_WORD`).
_INSTITUTION_NAME = re.compile(ACCOUNT_OWNER_WORD)
#: A person's title ending like an institution: a researcher, not a research institute.
_PERSON_TITLES = re.compile(r".*(?:선임|책임|수석|전임|주임|객원|위촉|인턴|박사후)연구원")
#: The 시/도/구/군 governments by name (`corpus.pii.places`): "서울시 블로그" is the city's.
#: A region said without its unit ("부산 블로그") is no owner: it is what a blog is about.
_GOVERNMENT_UNITS = frozenset(
    u for u in KNOWN_UNITS if len(u) >= 2 and u[-1] in "시도군구" and u not in NOT_UNITS
)
#: Characters of the text read before an account's address for its owner.
_OWNER_WINDOW = 40


def _institution(owner: str) -> bool:
    """True when the word `owner` is a public institution's name (or a 시/도/구 government's)."""
    if owner in _GOVERNMENT_UNITS:
        return True
    return _INSTITUTION_NAME.fullmatch(owner) is not None and not _PERSON_TITLES.match(owner)


def official_account(value: str, text: str, start: int) -> bool:
    """True when the URL `value`, at `start` in `text`, is an account on a platform
    (`ACCOUNT_HOSTS`) that the text calls official (``공식 블로그 …``, not ``제 공식 …``) or
    gives to a public institution named right before it (``기상청 페이스북 …``). A code
    host's account is never one (by policy: docs/pii.md)."""
    host, path = split_url(value)
    if _plain_host(host) not in ACCOUNT_HOSTS or not path.strip("/"):
        return False
    before = text[max(0, start - _OWNER_WINDOW) : start]
    official = _OFFICIAL_BEFORE.search(before)
    if official is not None and not _PERSON_BEFORE.search(before, 0, official.start()):
        return True
    owner = _OWNER_BEFORE.search(before)
    return owner is not None and _institution(owner.group("owner"))


# --- four-part version numbers -------------------------------------------------------------

#: Words of a release before a version number ("버전 1.1.5.1", "펌웨어 5.12.0.204").
_VERSION_WORDS = (
    r"버전|[Vv]ersion|[Vv]er\.|릴리스|업데이트|패치|출시|펌웨어|[Ff]irmware|빌드|[Bb]uild"
    r"|드라이버|[Dd]river|SDK|커널|[Kk]ernel"
)
_VERSION_BEFORE = re.compile(_VERSION_WORDS)
#: A label that makes the number an address, right before it: "IP 주소는 …", "서버: …".
_IP_LABEL = re.compile(
    r"(?<![A-Za-z])(?:IP|[Ii]p|IPv4|아이피|주소|접속|서버|호스트|[Hh]ost|DNS|게이트웨이|[Gg]ateway|from|src|dst)"
    r"\s?(?:주소)?\s?(?:는|은|:|：|=)?\s?$"
)
#: A product right before the number: a word in camel case (``cuDNN``, ``iOS``, ``TensorRT``)
#: or a product that numbers its builds in four parts (browsers, systems, runtimes, drivers).
_PRODUCT_BEFORE = re.compile(
    r"(?<![A-Za-z])(?:[a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+[A-Z][A-Za-z]*"
    r"|(?i:chrome|chromium|firefox|safari|whale|windows|android|macos|java|jdk|jre|cuda"
    r"|nvidia)|크롬|엣지|웨일|윈도우|윈도|안드로이드|자바)\s?$"
)
#: Right after the number: a build code in brackets with letters and digits
#: ("(C00E200R1P1)"), a pre-release tag ("-beta"), or a release word ("… 버전", "(공식 빌드)").
_BUILD_AFTER = re.compile(
    r"\((?=[^()]*[A-Za-z])(?=[^()]*\d)[A-Za-z0-9._\-]{3,24}\)"
    r"|[-+_](?:alpha|beta|rc|dev|build|release)"
    r"|\s?\(?(?:공식\s?)?(?:" + _VERSION_WORDS + ")"
)


def version_number(text: str, start: int, end: int) -> bool:
    """True when the dotted number text[start:end] (an IPv4 shape) is a version number.

    A version word up to 15 characters before it (``버전``, ``펌웨어``, ``빌드``, ``드라이버``),
    a product right before it (``cuDNN 8.9.7.29``, ``Chrome 120.0.6099.130``), or a build
    code or release word right after it (``5.12.0.204(C00E200R1P1)``, ``… 버전``). An
    address label right before it wins over all of them: ``접속 IP 211.36.142.77 버전
    확인`` is an address.
    """
    if _IP_LABEL.search(text, max(0, start - 12), start):
        return False
    if _VERSION_BEFORE.search(text, max(0, start - 15), start):
        return True
    if _PRODUCT_BEFORE.search(text, max(0, start - 16), start):
        return True
    return _BUILD_AFTER.match(text, end) is not None


# --- section numbers and numbers said not to be addresses -----------------------------------

#: Right after a dotted number: the unit of a document it numbers ("3.4.12.1절", "…항",
#: "…조", "…장", "…단락", "…항목"), maybe with a particle ("…절을", "…단락의"), not the
#: rest of a word ("…장비", "…조회", "…절대").
_SECTION_AFTER = re.compile(
    r"\s?(?:절|항목?|조|장|단락|번\s?항목)(?:은|는|이|가|의|에|에서|을|를|으로|로|과|와)?(?![가-힣])"
)
#: A document a few words before the number: a specification, a standard, a clause
#: ("규격서 3.4.12.1", "KS 표준 2.1.3.4", "조항 4.2.1.7", "§ 5.1.2.3", "Section 7.2.1.4").
_SECTION_BEFORE = re.compile(
    r"(?:규격서?|표준(?:서|안)?|조항|명세서|사양서|설명서|매뉴얼|지침서?|규정|목차|[Ss]ection|§)"
    r"[^\n.]{0,4}$"
)
#: After the number, the text says it only looks like an address: "… 는 IP처럼 보이지만",
#: "…은 IP 주소가 아니라", "…도 아이피 같지만".
_NOT_AN_IP_AFTER = re.compile(
    r"\s?(?:은|는|이|가|도)?\s?(?:IP|아이피)\s?(?:주소)?\s?"
    r"(?:처럼|같(?:지만|아\s?보이|이\s?보이)|(?:가|이|는)\s?아니|로\s?보이지만|인\s?줄)"
)


def section_number(text: str, start: int, end: int) -> bool:
    """True when the dotted number text[start:end] (an IPv4 shape) numbers a section of a
    document: a section unit right after it (``규격서 3.4.12.1절``) or a document word just
    before it (``표준 2.1.3.4``). An address label right before it wins: ``접속 IP
    3.4.12.1`` is an address."""
    if _IP_LABEL.search(text, max(0, start - 12), start):
        return False
    if _SECTION_AFTER.match(text, end):
        return True
    return _SECTION_BEFORE.search(text, max(0, start - 12), start) is not None


def not_an_ip(text: str, start: int, end: int) -> bool:
    """True when the IPv4-shaped number text[start:end] is no address: a four-part version
    (`version_number`), a section number (`section_number`), or a number the text itself
    says only looks like one (``3.14.15.92 는 IP처럼 보이지만 원주율 …``)."""
    if version_number(text, start, end) or section_number(text, start, end):
        return True
    if text.find("IP", end, end + 6) < 0 and text.find("아이피", end, end + 8) < 0:
        return False  # the common case: no address word right after the number
    return _NOT_AN_IP_AFTER.match(text, end) is not None


# --- a code host's SSH remote -----------------------------------------------------------------

#: The shared account of a code host's SSH remote: "git@github.com:org/project.git",
#: "git@gitlab.com:team/app.git", "hg@bitbucket.org:…". Everyone's clone uses it: the
#: local part is the service's, not a person's, so it is no e-mail address.
SSH_SERVICE_USERS = frozenset(("git", "hg", "gitea", "forgejo"))


def ssh_remote(local: str, text: str, end: int) -> bool:
    """True when the e-mail-shaped text ending at `end` with local part `local` is an SSH
    remote of a code host: a service account (`SSH_SERVICE_USERS`), the host, then ``:``
    and a path (``git@github.com:org/project.git``); a person's login stays an address."""
    return (
        local.lower() in SSH_SERVICE_USERS
        and text[end : end + 1] == ":"
        and text[end + 1 : end + 2] not in ("", " ", "\n")
    )


# --- a file name or a service unit with an "@" ------------------------------------------------

#: The last label of a name that has the shape of an e-mail but is a file or a system unit:
#: a systemd unit instantiated with ``@`` (``getty@tty1.service``, ``openvpn-client@x.socket``),
#: a file with ``@`` in its name (``report_v2@final.docx``). None of these is a top-level
#: domain, so no mailbox can end with one.
FILE_OR_UNIT_SUFFIXES = frozenset(
    "service socket timer mount automount slice scope swap path target device "
    "doc docx xls xlsx xlsm ppt pptx hwp hwpx pdf txt csv tsv json yaml yml xml log bak tmp "
    "jpg jpeg png gif bmp webp heic tif tiff mp3 wav mp4 avi mkv psd exe dll "
    "gz tgz tar rar 7z apk dmg msi deb rpm whl jar conf cfg ini sql".split()
)


def file_or_unit(domain: str) -> bool:
    """True when the domain part of an e-mail-shaped name ends in a file extension or a
    system unit's type (`FILE_OR_UNIT_SUFFIXES`): ``getty@tty1.service`` and
    ``report_v2@final.docx`` are no mailboxes; a real domain ends in a top-level domain."""
    return domain.rsplit(".", 1)[-1].lower() in FILE_OR_UNIT_SUFFIXES
