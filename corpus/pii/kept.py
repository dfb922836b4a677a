"""Which detected values are public, kept as written and counted apart (`kept_public`).

A detector finds a value by its shape; some values of a personal type's shape name no
one: a company's 1588-xxxx number, a site's host, a public institution's address, number
and pages, a reference or standards page, an example domain, a public body's official
account, an IP address that is not global. Issue #24 asks that such negatives stay as
they are. They are still detected (so no other detector reads their digits), then
`corpus.pii.generate.Pseudonymizer` keeps them and counts them under their `PUBLIC_KINDS`
name in `stats.json`. The rules live with their subjects (`corpus.pii.public_pages`,
`corpus.pii.institutions`, `corpus.pii.phones`, `corpus.pii.validators`); this module
holds the names and the one decision that calls them, `public_kind`.
"""

from __future__ import annotations

from corpus.pii.detectors import email_parts, mail_domain
from corpus.pii.institutions import institution_address, institution_phone
from corpus.pii.phones import foreign_number
from corpus.pii.placeholders import example_address_before, placeholder, role_mailbox
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
from corpus.pii.validators import global_ip

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
    "marker: (예: 세종대로 110)",
    "role_mailbox": "an organisation's desk, not a person: support@github.com, "
    "privacy@company.co.kr (not on a mail provider's domain)",
    "placeholder": "a mask of zeros (000000-0000000) or an e-mail on a placeholder or "
    "disposable domain: test@test.com, name@domain.com, …@mailinator.com",
    "official_account": "a platform account the text calls official or gives to an "
    "institution named before it: 기상청 공식 페이스북 facebook.com/…",
    "notice_address": "an address a business or a public site gives as its own: 당사 "
    "고객센터(…), a business footer's field, a clinic's move notice, a model house's site, "
    "an area (… 일원)",
    "business_phone": "a landline on a business's contact line after its nationwide number: "
    "TEL 1544-… / FAX 02-…",
}


def public_kind(kind: str, value: str, text: str = "", start: int = 0) -> str | None:
    """The `PUBLIC_KINDS` name of a detected value that is kept, or None (it is replaced).

    `text` and `start` place the value in its text: an address or a phone number is public
    by what stands before it (`corpus.pii.institutions`: an institution's name, and for a
    number its label or desk), a platform's account by the words before it
    (`corpus.pii.public_pages.official_account`).
    """
    if kind == "address" and text and example_address_before(text, start):
        return "example_address"
    if kind == "phone" and (value[0] == "1" or value.lstrip("(").startswith("080")):
        if not foreign_number(value):
            return "service_number"
    if kind == "url":
        return _public_url(value, text, start)
    if kind == "email" and example_domain(mail_domain(email_parts(value)[2])):
        return "example_address"
    if kind != "address" and placeholder(kind, value):
        return "placeholder"
    if kind == "email" and role_mailbox(value):
        return "role_mailbox"
    if kind == "ip" and not global_ip(value):
        return "non_global_ip"
    if kind == "address" and text:
        return _public_address(text, start, start + len(value))
    if kind == "phone" and text and not foreign_number(value):
        if institution_phone(text, start, start + len(value)):
            return "institution_phone"
        if business_phone(text, start, start + len(value)):
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


def _public_url(value: str, text: str, start: int) -> str | None:
    """The `PUBLIC_KINDS` name of a kept URL (`corpus.pii.public_pages`), or None."""
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
    if text and official_account(value, text, start):
        return "official_account"
    return None
