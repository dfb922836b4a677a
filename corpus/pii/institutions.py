"""A public institution's own address and phone number: detected, kept, counted apart.

A 구청's, a 세무서's or a university hospital's address and desk number name no one:
they are printed on every notice, so replacing them only makes a notice wrong. Each
rule here reads what stands before the detected value (`corpus.pii.kept.public_kind`
calls them for an ``address`` or a ``phone`` span only, so they cost nothing on text
without one):

* `institution_address`: the institution's name right before the address
  (``국회 주소 서울특별시 …``, ``○○세무서 납세자보호실 - 주소: ○○시 시청로 23``);
* `institution_phone`: the institution's name a little before the number, then the
  number's own label (``대표번호``, ``문의``, ``전화``, ``직통`` …) or the desk it rings
  (``문화체육과 02-…``): ``○○구청 민원여권과는 … 문의 02-2148-3120``.

Both are left alone when the value is someone's: a residence, a person or a private
business between the name and the value (``병원에 입원한 아버지 전화 02-…``, ``구청 앞
저희 가게 대표번호 …``, ``○○대학교 김민수 교수 연구실 02-…``: a professor's office
number is read as the professor's, and replaced).

The institution words are defined once, here (`INSTITUTION_WORD`): the address rule
and the phone rule read the same list, the phone rule a few more (a hospital, a bank's
customer centre: their numbers are public, but a hospital is also where a patient
stays, so its address is left to the address rules).
"""

from __future__ import annotations

import re

from corpus.pii.places import PROVINCES

#: A public institution's name, the last word before its address: a word ending in one of
#: these (시청, 구청 … 학교, 구민회관, 선거관리위원회), one of the nationwide agencies ending
#: in 청 (not 신청, 요청, 초청: an ordinary 청 word is no institution), a public corporation
#: or agency (…도시공사, …연금공단, …법률구조공단, 한국○○공사; not 공사 "construction"
#: alone), 국회, or a research university's or institute's Latin acronym written as a word
#: (KAIST, ETRI); a school's own notice names it 본교 ("this school"); a 과학관, a public
#: car park (공영주차장), a welfare or youth centre (복지관, 수련관), a gymnasium, a memorial
#: or exhibition hall, a culture or convention centre, a pool are public buildings too, and so
#: are a performance hall (…의전당, …극장, …아트홀), a stadium and 청와대, open to all since
#: 2022 (a listing writes "예술의전당 (06757) 서울 …": the name, then its address). A
#: company, a shop or a 고객센터 is none (`corpus.pii.public_notices` reads a business's own
#: notice).
#: The names an institution's word ends in, each maybe after other syllables ("서울특별시청").
_NAMES = (
    "시청|구청|군청|도청|교육청|교육지원청|검찰청|경찰청|지청|청사|법원|등기소|경찰서|세무서|세관"
    "|소방서|우체국|주민센터|행정복지센터|보건소|보건지소|도서관|박물관|미술관|과학관|대학교|대학"
    "|캠퍼스|학교|구민회관|시민회관|군민회관|문화회관|선거관리위원회|출입국관리사무소|고용센터"
    "|공영주차장|공용주차장|환승주차장|복지관|수련관|체육관|기념관|전시관|평생학습관|예술회관"
    "|체육센터|문화센터|아트센터|컨벤션센터|수영장|공항|여객터미널|버스터미널|전당|극장|공연장"
    "|아트홀|콘서트홀|경기장|야구장"
)
#: Words only read whole (not after other syllables), agencies' heads before 청, public
#: corporations' heads before 공사 and 공단, and institutes' Latin acronyms.
_WHOLE = "경복궁|창덕궁|창경궁|덕수궁|경희궁|운현궁|청와대"
_AGENCIES = (
    "국세|관세|조달|통계|병무|산림|특허|기상|문화재|국가유산|소방|농촌진흥|질병관리|방위사업"
    "|재외동포|우주항공"
)
_CORPORATIONS = "도시|교통|관광|개발|도로|철도|공항|항만|주택|전력|가스|수자원|시설"
_FUNDS = "보험|연금|복지|관리|진흥|안전|환경|구조|공원|인력"
_ACRONYMS = "KAIST|POSTECH|UNIST|DGIST|GIST|KENTECH|KIST|KISTI|ETRI|KDI"


def _institution_word(run: str) -> str:
    """The institution words, each name that may follow other syllables led by `run`, the
    pattern of those syllables."""
    return (
        rf"(?:{run}(?:{_NAMES})|(?<![가-힣])본교|(?<![가-힣])(?:{_WHOLE})"
        rf"|{run}(?:{_AGENCIES})청|{run}(?:{_CORPORATIONS})공사|{run}(?:{_FUNDS})공단"
        rf"|국회(?:의사당)?|한국[가-힣○△□]{{1,10}}(?:공사|공단)|(?<![A-Za-z])(?:{_ACRONYMS}))"
    )


INSTITUTION_WORD = _institution_word(r"[가-힣]*")
#: Public places whose address, but not number, is read as public, named before it: a
#: station (…역 after two syllables or more; not …지역, …구역 but for …입구역, not 징역,
#: 무역, 번역, 영역 …), a traditional market (…시장), a domed stadium (…돔), a park or a
#: forest (…공원, …숲), a convention centre by its name (코엑스, 킨텍스 …): "서울역은 서울
#: 용산구 …", "고척스카이돔 (구로구 …)". Each needs a syllable before its word; "역 근처
#: …에 살아요" stays a home (`LIVES_AFTER`, and 근처 is no separator).
_STATION = r"(?<=[가-힣]{2})역(?<![영무권교번통징병복노배광]역)(?<!지역)(?<!(?<!입)구역)"
_PLACES = rf"(?<=[가-힣])(?:{_STATION}|시장|돔|공원|숲)"
_VENUES = "코엑스|킨텍스|벡스코|엑스코|세텍|aT센터|DDP"


def _address_word(run: str) -> str:
    """The institution words and public places read before an address, each name that may
    follow other syllables led by `run` (`_institution_word`)."""
    return rf"(?:{_institution_word(run)}|{run}{_PLACES}|(?<![가-힣A-Za-z])(?:{_VENUES}))"


#: The same words for a search that must end at the end of its string (`_INSTITUTION_BEFORE`):
#: a name that may follow other syllables is tried only where a run of syllables starts.
#: The leftmost match is the same as with ``[가-힣]*`` tried at every position (a name found
#: inside a run is found from the run's start, its syllables read by the run), and the
#: search no longer tries every syllable before an address as a start.
_ADDRESS_WORD_AT_RUN = _address_word(r"(?<![가-힣])[가-힣]*")
#: A piece of text that every institution word or public place holds: where none is, none
#: matches, and the searches for one are not made (nearly every address: about 30 µs each
#: before).
_INSTITUTION_PIECE = re.compile(
    rf"{_NAMES}|본교|{_WHOLE}|청|공사|공단|국회|{_ACRONYMS}|역|시장|돔|공원|숲|{_VENUES}"
)

#: The institutions whose number, but not address, is read as public: a hospital (a
#: patient's ward is an address of a person), a bank's customer centre (a company's), a
#: department's or a graduate school's office ("학과 사무실", "국문과 행정실": the office's
#: line, which its address is not needed to say).
PHONE_INSTITUTION_WORD = (
    r"(?:" + INSTITUTION_WORD + r"|[가-힣]*(?:병원|의료원)|[가-힣]*은행\s?(?:고객|콜)센터"
    r"|[가-힣]*(?:학과|학부|전공|대학원)\s?(?:사무실|사무국|행정실|조교실))"
)
#: The public bodies whose platform accounts are read as official when named right before
#: the account (`corpus.pii.public_pages.official_account`: ``기상청 페이스북 …``): the
#: institutions above, and the bodies that have no address rule here: a foundation, an
#: agency or institute (…재단, …진흥원, …연구원 …), a ministry (…부, …처), a government, a
#: masked ``○○시``. A word is read whole (``fullmatch``), so ``정부`` is not ``…정부지원``.
ACCOUNT_OWNER_WORD = (
    r"(?:" + INSTITUTION_WORD
    + r"|[가-힣○◯△]{2,}(?:공단|재단|진흥원|연구원|개발원|평가원|정보원|위원회|협회|과학관)"
    r"|[가-힣○◯△]*(?:방송|토지주택)공사"
    r"|[가-힣]*(?:해양경찰|질병관리)청"
    r"|(?:기획재정|교육|과학기술정보통신|외교|통일|법무|국방|행정안전|국가보훈|문화체육관광"
    r"|농림축산식품|산업통상자원|보건복지|환경|고용노동|여성가족|국토교통|해양수산|중소벤처기업)부"
    r"|(?:인사혁신|법제|식품의약품안전|국가보훈)처"
    r"|[가-힣]*정부|대통령실|[○◯△]+[시도군구]청?)"
)  # fmt: skip
#: A name masked in a notice: "○○", "△△", "□□시".
_MASK = r"[○△□◇◎●■*＊]{1,4}"
#: A province the detector's span leaves out: before a masked unit ("강원 ○○시 교육로 34":
#: the span starts after the mask) or after a table's comma ("…강당,경기 한빛시 …").
_PROVINCE = "|".join(sorted({n for full, shorts in PROVINCES for n in (full, *shorts)}, key=len,
                            reverse=True))  # fmt: skip
#: A hall, campus, branch or desk of the institution, between its name and its address
#: ("서울관", "관악캠퍼스", "안산지원", "○○지부", "○○지역본부", "납세자보호실", "신청사",
#: "체납추적팀"), or its gate or hall ("정문", "강당": "…과학관 정문(…)", "…중학교 강당,…"),
#: a government complex's numbered building and the ministry in it ("정부세종청사 6동
#: 국토교통부 (…) 세종특별자치시 도움6로 11").
_BRANCH = (
    r"\s(?:" + _MASK + r")?(?:[1-9]\d?동|[가-힣]{2,8}[부처](?![가-힣])|[가-힣A-Za-z0-9]{0,8}"
    r"(?:관|캠퍼스|청사|지원|지청|본원|분원|분관|지부|지사|본부|출장소|사무소|센터|터미널|실|과|팀|홀)"
    r"|(?:(?!앞|옆|뒤|근처|건너편|맞은편)[가-힣]{1,5}\s)?건물|정문|후문|강당|운동장)"
)
#: A notice of the institution's move or opening between its name and its address
#: ("도립도서관 이전 안내: 새 주소는 …", "구청 임시청사 이전 공지 - 주소 …", "보건소 신축 이전
#: 알림"): the notice is the institution's, and so is the address it gives.
_NOTICE = (
    r"(?:\s?(?:주소\s?)?(?:(?:청사\s?)?(?:이전|이사|신축|임시|개관|재개관|확장|변경|관람|이용|민원)\s?){1,2}"
    r"(?:안내|공지|알림|소식)"
    r"(?:문|드립니다|합니다)?)?"
)
#: The address said to be new, old, moved or changed: "새 주소는", "구 주소", "바뀐 주소:".
_NEW = r"(?:(?:새|신|구|바뀐|변경된|옮긴|이전한|이전된|이전할)\s?)?"
#: What may stand between the name and the address: up to two branches, a subject or topic
#: particle (an encyclopedia's "…구청은 서울 … 에 있다"), the institution's labelled number
#: (`_CONTACT`), then spaces, "(", ":", ",", a dash,
#: a slash and the words 주소/소재지/위치/찾아오시는 길, then masked units ("○○시 ", "강원 ○○시 "),
#: which a notice writes before the road and the detector leaves out of the span. A word
#: such as 근처, 옆, 앞, 건너편 is none: "시청 근처 서울 중구 …" is someone's address.
_SEP_WORD = (
    r"[\s(:：,\-–—―/|]|" + _NEW + r"(?:도로명\s?|지번\s?)?주소(?:는|지는?)?"
    r"|소재지(?:는)?|위치(?:는)?|(?:찾아\s?)?오시는\s?길"
)
#: The institution's own number, labelled, between its name and its address: "…공항 안내
#: 1577-… / 주소 …", "…병원 대표번호 1688-…, 서울 …", "…시청 대표전화는 062-…이며, 주소는 …".
_CONTACT = (
    r"(?:\s?(?:안내|대표\s?(?:번호|전화)?|전화(?:번호)?|문의(?:처|전화)?|Tel\.?|TEL|☎)(?:은|는)?"
    r"\s?[:：]?\s?(?:\(?\d{2,4}\)?[\-.\s]?)?\d{3,4}[\-.]\d{4}(?:이며|이고)?)"
)
_INSTITUTION_SEP = (
    r"(?:" + _BRANCH + r"){0,2}(?:은|는|이|가|의)?(?:" + _CONTACT + r")?" + _NOTICE
    + r"(?P<sep>(?:" + _SEP_WORD + r")*)"
    r"(?:(?:" + _PROVINCE + r")\s)?"
    r"(?:" + _MASK + r"(?:[가-힣]{0,3}(?:시|도|군|구|읍|면|동|리))?\s)*"
)  # fmt: skip
_INSTITUTION_BEFORE = re.compile(_ADDRESS_WORD_AT_RUN + _INSTITUTION_SEP + r"$")
#: A hospital's name before its own address ("세브란스병원 서울 서대문구 연세로 50-1 대표전화
#: …"): kept only with no ward, room or admission word near (`_WARD_NEAR`), which would
#: make it a patient's whereabouts; a named hospital only ("병원은 부전동 …에 있습니다", "우리
#: 병원", "동네병원" say where someone goes).
_HOSPITAL_BEFORE = re.compile(
    r"(?<![가-힣])(?!우리|저희|동네|근처)[가-힣A-Za-z]{2,12}(?:병원|의료원)"
    + _INSTITUTION_SEP
    + r"$"
)
_WARD_NEAR = re.compile(r"병동|병실|호실|입원|중환자실|응급실|면회")
#: A bare unit after the institution's bracketed address:
#: "…캠퍼스(서울 관악구 관악로 1) 301동 118호".
_INSTITUTION_UNIT_BEFORE = re.compile(
    _ADDRESS_WORD_AT_RUN + _INSTITUTION_SEP + r"\([^()]{2,40}\)\s?$"
)
#: A lecture room given by its campus building: a bare unit after a building word of a
#: campus (공학관, 인문관, 제2과학관) and before a teaching room's word (강의실, 실습실 …):
#: "공학관 301동 412호 강의실". A dormitory's room (생활관, 기숙사) is its student's
#: (`_RESIDENCE_NEAR`), and a 연구실 is a professor's office: neither is read so.
_CAMPUS_BUILDING_BEFORE = re.compile(r"(?<![가-힣])[가-힣0-9]{1,6}관\s?$")
_TEACHING_ROOM_AFTER = re.compile(r"\s?(?:대?강의실|실습실|실험실|세미나실|강당|열람실)")
#: The new address after the old one and an arrow: "본교 주소 변경 안내: 구 주소 가람동 1번지
#: → 신 주소 가람로 5": both are the institution's.
_MOVED_ARROW = r"(?:→|->|⇒|➡)"
_INSTITUTION_MOVED_BEFORE = re.compile(
    INSTITUTION_WORD + _INSTITUTION_SEP + r"[^\n→()]{3,40}?\s?" + _MOVED_ARROW + r"\s?" + _NEW
    + r"(?:주소\s?(?:는|:|：)?\s?)?$"
)  # fmt: skip
#: Where someone lives or stays: a dormitory room, an official residence, a staff flat. A
#: student's dormitory room names its student, so a 기숙사 address is replaced.
_RESIDENCE_NEAR = re.compile(r"기숙사|생활관|관사|사택|숙소|자택")
#: Residence words right after an address ("… 1에 살아요" is someone's home), or a word that
#: makes it a reference point ("학교가 … 근처다": the place near it may be someone's home).
LIVES_AFTER = re.compile(
    r"\s?(?:에\s?(?:살|거주|사는|사시|이사)|에서\s?(?:살|거주)|으?로\s?이사"
    r"|근처|옆|앞|부근|인근|건너편|맞은편|주변)"
)
#: A field label before the institution: "학교: 한빛초등학교 주소: …" is a person's record.
_LABEL_BEFORE = re.compile(r"[:：]\s?[가-힣A-Za-z0-9]*$")
_WINDOW = 48
#: A public place's word (`_PLACES`) as the whole name before an address, and a home's block
#: and unit in the address: a complex named after a forest or a station ("푸른숲 301동
#: 902호", "역앞 …") is no public place.
_PLACE_WORD = re.compile(rf"[가-힣]*{_PLACES}(?![가-힣])")
_HOME_UNIT = re.compile(r"\d{1,4}\s?동\s?\d{1,5}\s?호")


def institution_address(text: str, start: int, end: int) -> bool:
    """True when the address text[start:end] is a public institution's, named right before it.

    The institution's name directly before the address (`INSTITUTION_WORD`, then at most
    two halls or branches and a separator: "서울특별시청(서울 중구 세종대로 110)", "국회
    주소 서울특별시 …", "서울중앙지방법원: 서울 서초구 …", "…공단 ○○지부: ○○시 …",
    "…공사 ○○지역본부 — 경남 …", a move notice: "도립도서관 이전 안내: 새 주소는 …", its
    own labelled number first: "…시청 대표전화는 062-…이며, 주소는 …")
    makes it a public building's address, which names no
    one: it is kept, with its building, floor and room tail (a bare unit right after the
    bracketed address too). Not when someone lives there: a dormitory or residence word
    near it, a residence or nearness word after it ("…에 살아요", "… 근처"), or a record
    whose 주소 field follows the institution as another field's value ("학교: …학교 주소: …").
    The new address after the old one and an arrow is the institution's too ("… 구 주소 …
    → 신 주소 …").
    """
    lo = max(0, start - _WINDOW)
    before = text[lo:start]
    named = _INSTITUTION_PIECE.search(before) is not None
    m = _INSTITUTION_BEFORE.search(before) if named else None
    if m is None and not _WARD_NEAR.search(text, lo, min(len(text), end + 24)):
        m = _HOSPITAL_BEFORE.search(before)
    if m is None and named and text[start].isdigit():  # only a bare unit starts with its number
        m = _INSTITUTION_UNIT_BEFORE.search(before)
    if m is None and text[start].isdigit() and _TEACHING_ROOM_AFTER.match(text, end):
        m = _CAMPUS_BUILDING_BEFORE.search(before)
    if m is None and re.search(_MOVED_ARROW, before):
        m = _INSTITUTION_MOVED_BEFORE.search(text, max(0, start - 2 * _WINDOW), start)
    if m is None:
        return False
    if _RESIDENCE_NEAR.search(text, lo, min(len(text), end + 12)) or LIVES_AFTER.match(text, end):
        return False
    if _HOME_UNIT.search(text, start, end) and _PLACE_WORD.match(before, m.start()):
        return False  # "푸른숲 301동 902호": no park has such a unit; a complex named so
    sep = m.groupdict().get("sep") or ""
    return not ("주소" in sep and ":" in sep and _LABEL_BEFORE.search(before, 0, m.start()))


#: A number's own label right before it: "대표번호 ", "문의: ", "전화는 ", "전화 (대표) ",
#: "응급실 직통 ", "(대표 ", "국번 ", "해외에서는 " (a customer centre's line from abroad), or
#: the next number of a list ("문의 1588-… 또는 02-…", "대표 02-…, 031-…").
#: Not 연락처 or 번호: "아버지 연락처 02-…" is how a person's number is written.
_PHONE_LABEL = re.compile(
    r"(?:대표\s?(?:번호|전화)?|문의(?:처|전화)?|전화(?:번호)?|직통(?:번호|전화)?|국번"
    r"|팩스|FAX|Fax|안내|상담|접수|예약|해외에서는?|Tel\.?|TEL|☎|☏|✆)(?:은|는)?"
    r"(?:\s?\((?:대표|직통)\))?[\s:：(]*$"
    r"|(?<=\d)\s?(?:,|/|또는|혹은|및)\s?$"
)
#: The desk a number rings, right before it: "문화체육과 02-…", "학생지원센터 (063) …",
#: "지도홍보계 …", "안내데스크 …" (a 과, 계 or 부 of three syllables or more: "결과", "효과",
#: "관계", "일부" are words).
_DESK_BEFORE = re.compile(
    r"(?:[가-힣]{2,9}(?:과|계|부)|[가-힣]{1,9}(?:실|팀|센터|창구|데스크))[\s:：(]*$"
)
#: The label must end this close to the number, and the institution's name this close.
_LABEL_WINDOW = 16
_PHONE_WINDOW = 64
#: An institution's name as a word: not the head of a road, a station or a person named
#: after it ("시청로 12, 전화 …" is a home's road; "대학생 과외 문의 …" a student's number).
_NOT_A_NAME = r"(?![로길역생]|입구|사거리|원생)"
_PHONE_INSTITUTION = re.compile(PHONE_INSTITUTION_WORD + _NOT_A_NAME)
#: The institution's name itself right before the number: "○○구청(02-…)", "시립도서관 02-…".
_NAME_BEFORE = re.compile(PHONE_INSTITUTION_WORD + r"[\s:：(]*$")
#: The institution in brackets right after a labelled number: "문의 02-… (○○구청 민원과)".
_NAME_AFTER = re.compile(r"\s?\(([^()\n]{0,24})\)")
#: A person's title, a relative or a worker: "○○대학교 박지훈 교수 연구실 02-…" (a professor's
#: office number is read as the professor's), "… 김철수 주무관 전화 …", "아버지 전화 …"; a
#: doctor, not the assembly's 의사당 ("국회의사당", "의사당대로": a building and its road).
PERSON_WORD = (
    r"씨|님|교수|선생|강사|주무관|사무관|주사|과장|팀장|계장|국장|부장|실장|원장|소장|대리|주임"
    r"|간호사|의사(?!당)|박사|기자|변호사|세무사|법무사|회계사|노무사|변리사|행정사|담당|직원|사원"
    r"|아버|어머|엄마|아빠|부모|아들|딸|남편|아내|와이프|형님|누나|언니|오빠|동생|친구|이모"
    r"|삼촌|고모|할머니|할아버지|조카|가족|동기|선배|후배|동료|지인"
)
#: Between the institution and the number: the number is a person's or a private
#: business's. A person (`PERSON_WORD`: a tax accountant's office in a 세무서's building is
#: the accountant's), a private owner (저희, 우리, 제, 가게, 회사), a personal phone (휴대,
#: 자택, 집) or a room someone lives in (기숙사, 관사, 병실), someone staying or working
#: there (입원, 근무, 다니는), or the institution named as a landmark (앞, 옆, 근처: "구청
#: 앞에서 만나요").
_PERSONAL_BETWEEN = re.compile(
    PERSON_WORD + r"|(?<![가-힣])(?:제|내|저의|나의)\s|저희|우리(?!은행)|개인|휴대|핸드폰|자택"
    r"|(?<![가-힣])집|기숙사|생활관|관사|사택|숙소|병실"
    r"|가게|식당|매장|회사|업체|(?<!대)학원|카페|사업장"
    r"|입원|퇴원|근무|일하|다니|살고|살아|살던|(?<![가-힣])사는|거주|만나"
    r"|앞|옆|근처|건너편|맞은편|주변|부근|인근"
)
#: Just after the number: a person named with it ("02-… 김철수 주무관", "(담당: …)"); what
#: follows may be another entry of the notice ("/ 제 사무실 전화 …"), so only a person counts.
_PERSON_AFTER = re.compile(PERSON_WORD)
_AFTER_WINDOW = 12
#: Just before the institution's name: whose it is ("아버지 병원", "우리 학교 행정실").
_OWNER_WINDOW = 8


def _label_start(text: str, start: int) -> int | None:
    """Where the label or desk right before text[start] begins, or None without one."""
    lo = max(0, start - _LABEL_WINDOW)
    m = _PHONE_LABEL.search(text, lo, start) or _DESK_BEFORE.search(text, lo, start)
    return None if m is None else m.start()


def _named_after(text: str, label: int, start: int, end: int) -> bool:
    """True when a labelled number has its institution in brackets right after it, and
    neither the brackets nor the words before the label say whose it is otherwise."""
    m = _NAME_AFTER.match(text, end)
    if m is None or not _PHONE_INSTITUTION.search(m.group(1)):
        return False
    if _PERSONAL_BETWEEN.search(m.group(1)):
        return False  # "(구청 옆)": a landmark
    return _PERSONAL_BETWEEN.search(text, max(0, label - _LABEL_WINDOW), start) is None


def institution_phone(text: str, start: int, end: int) -> bool:
    """True when the phone number text[start:end] is a public institution's own number.

    It needs its label or its desk right before it (`_PHONE_LABEL`, `_DESK_BEFORE`) and,
    on the same line and at most `_PHONE_WINDOW` characters before, an institution's name
    (`PHONE_INSTITUTION_WORD`): "시립중앙도서관(대전 서구 둔산로 100, 대표번호 042-…)",
    "지방법원 본원 민사신청과: 제2별관 3층 301호, 전화 (대표) 053-…"; or the name itself
    right before it ("○○구청(02-…)"), or in brackets right after it ("문의 02-… (○○구청
    민원과)"). Not when a person, a private owner, a residence or a landmark word stands
    between the last such name (or just before it: "아버지 병원 02-…") and the number
    (`_PERSONAL_BETWEEN`), or a person just after it (`_PERSON_AFTER`).
    """
    label = _label_start(text, start)
    if label is None:
        named = _NAME_BEFORE.search(text, max(0, start - _LABEL_WINDOW), start)
        if named is None:
            return False
        label = named.end()
    elif _named_after(text, label, start, end):
        return True
    lo = max(0, start - _PHONE_WINDOW)
    lo = max(lo, text.rfind("\n", lo, label) + 1)
    names = list(_PHONE_INSTITUTION.finditer(text, lo, label))
    if not names:
        return False
    if _PERSONAL_BETWEEN.search(text, max(0, names[-1].start() - _OWNER_WINDOW), start):
        return False
    return _PERSON_AFTER.search(text, end, min(len(text), end + _AFTER_WINDOW)) is None
