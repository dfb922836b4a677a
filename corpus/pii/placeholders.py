"""Issue #24, seventh blind set's negatives: values that name no one by what they are.

Three kinds of detected value are kept and counted (`corpus.pii.kept`), not replaced:

* an organisation's role mailbox (`role_mailbox`): ``support@github.com``,
  ``privacy@company.co.kr``, ``noreply@accounts.google.com``: the local part is a desk's
  name (`ROLE_LOCALS`), the domain the organisation's own. Not on a mail provider's domain
  (`corpus.pii.detectors.MAIL_DOMAINS`): ``help@naver.com`` could be anyone's;
* a placeholder (`placeholder`): a number written with zeros for every digit
  (``000000-0000000``, ``000-000000-00-000``: a form's mask, as ``***`` is), or an e-mail
  on a domain that stands for "some domain" (``test@test.com``, ``name@domain.com``,
  ``foo@bar.baz``) or on a disposable inbox service (``…@mailinator.com``);
* an address given as an example (`example_address_before`): right after a bracketed
  ``(예:``, ``(예시)`` or ``(e.g.``, as a form's help text writes it ("도로명 + 건물번호 (예:
  세종대로 110)").

Each reads only the value and a few characters before it, after a detector has found it.
"""

from __future__ import annotations

import re

from corpus.pii.detectors import MAIL_DOMAINS, email_parts, mail_domain

#: Local parts that name a desk or a function, not a person.
ROLE_LOCALS = frozenset(
    "support help helpdesk info information contact contactus cs customer service "
    "privacy webmaster postmaster hostmaster admin administrator recruit recruiting jobs "
    "careers hr noreply no-reply donotreply do-not-reply notice notification notifications "
    "sales tech billing press media pr marketing partner partners partnership ir "
    "security abuse report feedback office scholarship admission admissions registrar "
    "library international".split()
)
#: Domains (or their first label) that stand for "some domain" in examples and tests, and
#: disposable inbox services, whose addresses reach no one in particular.
_PLACEHOLDER_DOMAINS = frozenset(
    "test.com domain.com yourdomain.com mydomain.com sample.com email.test "
    "mailinator.com guerrillamail.com 10minutemail.com yopmail.com tempmail.com".split()
)
_PLACEHOLDER_LABELS = frozenset("foo bar baz example test sample dummy".split())
#: A form's example marker in brackets right before the value: "(예: ", "(예시) ", "(e.g. ".
#: Bracketed only: "A. 예시) 경기 고양시 … 처럼 적으시면 됩니다" answers with someone's
#: address as often as with a made-up one (a blind set labels such a value personal).
_EXAMPLE_BEFORE = re.compile(r"\(\s?(?:예시?|e\.g\.,?)\s?[:：)]?\s?$")


def role_mailbox(value: str) -> bool:
    """True when the e-mail `value` is an organisation's desk: a role local part
    (`ROLE_LOCALS`, before any "+tag") on a domain that is not a mail provider's."""
    local, _, domain = email_parts(value)
    local = local.lower().split("+", 1)[0]
    domain = mail_domain(domain).lower()
    return local in ROLE_LOCALS and domain not in MAIL_DOMAINS


def placeholder(kind: str, value: str) -> bool:
    """True when `value` is a mask of zeros or an e-mail on a placeholder domain."""
    if kind == "email":
        domain = mail_domain(email_parts(value)[2]).lower()
        first = domain.split(".", 1)[0]
        return domain in _PLACEHOLDER_DOMAINS or (
            first in _PLACEHOLDER_LABELS and email_parts(value)[0].lower() in _PLACEHOLDER_LABELS
        )
    digits = [c for c in value if c.isdigit()]
    return len(digits) >= 6 and all(c == "0" for c in digits)


def example_address_before(text: str, start: int) -> bool:
    """True when the address at `start` follows a form's example marker (`_EXAMPLE_BEFORE`)."""
    return _EXAMPLE_BEFORE.search(text, max(0, start - 8), start) is not None
