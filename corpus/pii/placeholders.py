"""Issue #24, seventh and eighth blind sets' negatives: values that name no one by what they
are.

Two kinds of detected value are kept and counted (`corpus.pii.kept`), not replaced:

* an organisation's role mailbox (`role_mailbox`): ``support@github.com``,
  ``privacy@company.co.kr``, ``noreply@accounts.google.com``, ``contest2024@….or.kr``: the
  local part is a desk's name (`ROLE_LOCALS`, maybe with a number after it; not
  ``editor.kim``, an editor named Kim), the domain the organisation's own. Not on a mail
  provider's domain (`corpus.pii.detectors.MAIL_DOMAINS`): ``help@naver.com`` could be
  anyone's;
* a placeholder (`placeholder`): a number written with zeros for every digit
  (``000000-0000000``, ``000-000000-00-000``: a form's mask, as ``***`` is), an e-mail on a
  domain that stands for "some domain" (``test@test.com``, ``name@domain.com``,
  ``foo@bar.baz``) or on a disposable inbox service (``…@mailinator.com``), or a card
  processor's published test number (``4242 4242 4242 4242``: `TEST_CARD_NUMBERS`).

A value given as an example of a form's field or of a format is `corpus.pii.examples`'s.
Each rule here reads only the value, after a detector has found it.
"""

from __future__ import annotations

import re

from corpus.pii.detectors import MAIL_DOMAINS, email_parts, mail_domain
from corpus.pii.validators import digits_of

#: Local parts that name a desk or a function, not a person.
ROLE_LOCALS = frozenset(
    "support help helpdesk info information contact contactus cs customer service "
    "privacy webmaster postmaster hostmaster admin administrator recruit recruiting jobs "
    "careers hr noreply no-reply donotreply do-not-reply notice notification notifications "
    "sales tech billing press media pr marketing partner partners partnership ir "
    "security abuse report feedback office scholarship admission admissions registrar "
    "library international editor editors editorial journal submit submission submissions "
    "contest contests competition award awards event events festival news newsroom tip tips "
    "desk inquiry inquiries ask qna apply entry ticket tickets reservation booking "
    # the same desks romanised as Korean organisations name them: 제보 (a newsroom's tip
    # line), 문의, 공모, 채용, 홍보, 민원, 상담, 접수
    "jebo munui gongmo chaeyong hongbo minwon sangdam jeopsu".split()
)
#: A desk word with a number after it: a year or a desk's number ("contest2024", "info1").
#: Desk words joined ("help.desk") are left replaced: "first.last" is how a person's
#: address is written, so a dot says nothing of a desk.
_NUMBER_TAIL = re.compile(r"(?<=[a-z])\d{1,4}$")
#: Domains (or their first label) that stand for "some domain" in examples and tests, and
#: disposable inbox services, whose addresses reach no one in particular.
_PLACEHOLDER_DOMAINS = frozenset(
    "test.com domain.com yourdomain.com mydomain.com sample.com email.test "
    "mailinator.com guerrillamail.com 10minutemail.com yopmail.com tempmail.com".split()
)
_PLACEHOLDER_LABELS = frozenset("foo bar baz example test sample dummy".split())
#: Card numbers that card processors publish for testing a payment form: no bank issued
#: them and they charge no one. Stripe's "Testing" page (Visa 4242…4242, 4000 0566 5566
#: 5556; Mastercard 5555…4444, 5200 8282 8282 8210, 5105 1051 0510 5100; Amex 3782 822463
#: 10005, 3714 496353 98431; Discover 6011 1111 1111 1117, 6011 0009 9013 9424; Diners 3056
#: 9300 0902 0004, 3622 720627 1667; JCB 3566 0020 2036 0505; UnionPay 6200…0005) and
#: Braintree's and Adyen's lists (4111 1111 1111 1111, 4012 8888 8888 1881, 5500…0004,
#: 3787 344936 71000, 6011 0000 0000 0004, 3530 1113 3330 0000). Compared by digits; each
#: passes the Luhn test, so the card detector finds it.
TEST_CARD_NUMBERS = frozenset(
    "4242424242424242 4000056655665556 5555555555554444 5200828282828210 5105105105105100 "
    "378282246310005 371449635398431 6011111111111117 6011000990139424 3056930009020004 "
    "36227206271667 3566002020360505 6200000000000005 4111111111111111 4012888888881881 "
    "378734493671000 6011000000000004 3530111333300000 5500000000000004".split()
)


def role_mailbox(value: str) -> bool:
    """True when the e-mail `value` is an organisation's desk: a role local part (desk
    words, `_desk_local`, before any "+tag") on a domain that is not a mail provider's
    (``help@naver.com`` could be anyone's)."""
    local, _, domain = email_parts(value)
    local = local.lower().split("+", 1)[0]
    domain = mail_domain(domain).lower()
    return domain not in MAIL_DOMAINS and _desk_local(local)


def _desk_local(local: str) -> bool:
    """True when the lower-case `local` is a desk word (`ROLE_LOCALS`), maybe with a number
    after it: "editor", "contest2024"; not "hong.gildong", "kim123", "editor.kim" (an
    editor named Kim is a person)."""
    return local in ROLE_LOCALS or _NUMBER_TAIL.sub("", local) in ROLE_LOCALS


def placeholder(kind: str, value: str) -> bool:
    """True when `value` is a mask of zeros, an e-mail on a placeholder domain or a
    processor's test card number (`TEST_CARD_NUMBERS`)."""
    if kind == "card":
        return digits_of(value) in TEST_CARD_NUMBERS
    if kind == "email":
        domain = mail_domain(email_parts(value)[2]).lower()
        first = domain.split(".", 1)[0]
        return domain in _PLACEHOLDER_DOMAINS or (
            first in _PLACEHOLDER_LABELS and email_parts(value)[0].lower() in _PLACEHOLDER_LABELS
        )
    digits = [c for c in value if c.isdigit()]
    return len(digits) >= 6 and all(c == "0" for c in digits)
