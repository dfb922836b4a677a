"""Which detected values are public, kept as written and counted apart (`kept_public`).

A detector finds a value by its shape; some values of a personal type's shape name no
one: a company's 1588-xxxx number, a site's host, a public institution's address, number
and pages, a reference or standards page, an example domain, a public body's official
account, an IP address that is not global. Issue #24 asks that such negatives stay as
they are. They are still detected (so no other detector reads their digits), then
`corpus.pii.generate.Pseudonymizer` keeps them and counts them under their `PUBLIC_KINDS`
name in `stats.json`. The rules live with their subjects (`corpus.pii.public_pages`,
`corpus.pii.institutions`, `corpus.pii.phones`, `corpus.pii.validators`,
`corpus.pii.placeholders`, `corpus.pii.examples`, `corpus.pii.public_notices`); this module
holds the names and the one decision that calls them, `public_kind`.
"""

from __future__ import annotations

from corpus.pii.detectors import email_parts, mail_domain
from corpus.pii.examples import example_before, format_example_after, placeholder_shown
from corpus.pii.institutions import institution_address, institution_phone
from corpus.pii.phones import foreign_number
from corpus.pii.placeholders import placeholder, role_mailbox
from corpus.pii.public_notices import business_phone, notice_address
from corpus.pii.public_pages import (
    example_domain,
    example_url,
    institution_page,
    non_global_ip_url,
    official_account,
    public_host,
    reference_page,
)
from corpus.pii.validators import corporate_brn, digits_of, global_ip, public_resolver

#: Detected values that are public and stay as they are, by the name they are counted under.
PUBLIC_KINDS = {
    "service_number": "a company's nationwide number, 15xx/16xx/18xx-xxxx, or a free-call "
    "080 number (수신자 부담: the called company pays)",
    "public_host": "a site's host with no path naming no one: www.gov.kr, www.youtube.com",
    "institution_address": "a public institution's address right after its name: 국회 주소 …",
    "institution_phone": "a public institution's own number after its name and a label or "
    "desk: ○○구청 민원과 문의 02-…",
    "reference_page": "a page of a reference or documentation site: https://doi.org/10.…, "
    "docs.python.org/3/…; a documentation, registry, Q&A or store page of any site not a "
    "person's: kubernetes.io/docs/…, crates.io/crates/…, play.google.com/store/apps/details?…",
    "non_global_ip": "an IP address that is not global: 127.0.0.1, 192.168.0.1, 2001:db8::1, "
    "also as a URL's host: http://127.0.0.1:8000",
    "institution_page": "a page on a public institution's host naming no one: "
    "likms.assembly.go.kr/bill, www.○○.go.kr/minwon",
    "example_address": "a URL or e-mail on a domain reserved for examples: "
    "https://example.com/path, user@example.com, *.test; an address after a form's example "
    "marker: (예: 세종대로 110), 주소 입력 예시: …",
    "example_value": "any other value a text shows as an example of a field or a format: "
    "작성 예시) … 연락처: 010-…, (예: 900101-1******), 입력 예: 123-456-…, '123가 4567'처럼 "
    "… 형식",
    "role_mailbox": "an organisation's desk, not a person: support@github.com, "
    "privacy@company.co.kr, contest2024@….or.kr (not on a mail provider's domain)",
    "placeholder": "a mask of zeros (000000-0000000), an e-mail on a placeholder or "
    "disposable domain: test@test.com, name@domain.com, …@mailinator.com; an e-mail a "
    "form shows as its placeholder or a made-up example: 입력창 placeholder에 'id@…', "
    "'id@…'이라고 회색 글씨로, 예시 주소 id@…; a card "
    "processor's test number: 4242 4242 4242 4242",
    "corporate_brn": "a business registration number whose middle code marks a corporation "
    "or the state (81-88): 124-81-…; a sole trader's (01-79, 90-99) is replaced",
    "public_resolver": "a public DNS resolver's address: 168.126.63.1, 208.67.222.222",
    "official_account": "a platform account the text calls official or gives to an "
    "institution named before it: 기상청 공식 페이스북 facebook.com/…",
    "notice_address": "an address a business or a public site gives as its own: 당사 "
    "고객센터(…), a business footer's field, a clinic's move notice, a model house's site, "
    "an area (… 일원), public land (… 일대 시유지)",
    "business_phone": "a landline on a business's contact line after its nationwide number: "
    "TEL 1544-… / FAX 02-…; a customer centre's, called official: 고객센터 070-… (공식 상담 "
    "번호)",
}


def public_kind(kind: str, value: str, text: str = "", start: int = 0) -> str | None:
    """The `PUBLIC_KINDS` name of a detected value that is kept, or None (it is replaced).

    The value alone may say so (`_public_value`: a service number, a placeholder, a role
    mailbox …); `text` and `start` place it in its text, where the words around it may
    (`_public_in_text`: an example's marker, an institution's name before an address or a
    number, an official account).
    """
    label = _public_value(kind, value)
    if label is not None or not text:
        return label
    return _public_in_text(kind, value, text, start)


def _public_value(kind: str, value: str) -> str | None:
    """The `PUBLIC_KINDS` name of a value that is public by what it is, or None."""
    if kind == "phone" and (value[0] == "1" or value.lstrip("(").startswith("080")):
        if not foreign_number(value):
            return "service_number"
    if kind == "url":
        return _public_url(value)
    if kind == "email" and example_domain(mail_domain(email_parts(value)[2])):
        return "example_address"
    if kind != "address" and placeholder(kind, value):
        return "placeholder"
    if kind == "email" and role_mailbox(value):
        return "role_mailbox"
    if kind == "ip":
        if not global_ip(value):
            return "non_global_ip"
        return "public_resolver" if public_resolver(value) else None
    if kind == "brn" and corporate_brn(digits_of(value)):
        return "corporate_brn"
    return None


def _public_in_text(kind: str, value: str, text: str, start: int) -> str | None:
    """The `PUBLIC_KINDS` name of a value that is public by the words around it, or None:
    an example (`corpus.pii.examples`), an official account, an institution's or a
    business's own address or number."""
    end = start + len(value)
    if example_before(text, start) or format_example_after(text, start, end):
        return "example_address" if kind == "address" else "example_value"
    if kind == "email" and placeholder_shown(text, start, end):
        return "placeholder"  # "입력창 placeholder에 'name@…'이라고 회색 글씨로 표시"
    if kind == "url" and official_account(value, text, start):
        return "official_account"
    if kind == "address":
        return _public_address(text, start, end)
    if kind == "phone" and not foreign_number(value):
        if institution_phone(text, start, end):
            return "institution_phone"
        if business_phone(text, start, end):
            return "business_phone"
    return None


def _public_address(text: str, start: int, end: int) -> str | None:
    """The `PUBLIC_KINDS` name of a kept address: an institution's, or one a business or a
    public site gives as its own (`corpus.pii.public_notices`), or None."""
    if institution_address(text, start, end):
        return "institution_address"
    if notice_address(text, start, end):
        return "notice_address"
    return None


def _public_url(value: str) -> str | None:
    """The `PUBLIC_KINDS` name of a URL kept by what it is (`corpus.pii.public_pages`), or
    None."""
    if public_host(value):
        return "public_host"
    if reference_page(value):
        return "reference_page"
    if example_url(value):
        return "example_address"
    if non_global_ip_url(value):
        return "non_global_ip"
    if institution_page(value):
        return "institution_page"
    return None
