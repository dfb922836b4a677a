"""Korean administrative names: what an address detector recognises and a generator draws from.

The detector does not need a complete gazetteer: it accepts any token with an
administrative suffix (시/군/구/읍/면) in front of a road or lot name, and uses
these tables only to trust a single short token (``서울``, ``강남구``) that a
generic rule would reject. The generator draws plausible addresses from them.
"""

from __future__ import annotations

#: (full name, short names) of the 17 top-level units (시·도).
PROVINCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("서울특별시", ("서울", "서울시")),
    ("부산광역시", ("부산", "부산시")),
    ("대구광역시", ("대구", "대구시")),
    ("인천광역시", ("인천", "인천시")),
    ("광주광역시", ("광주", "광주시")),
    ("대전광역시", ("대전", "대전시")),
    ("울산광역시", ("울산", "울산시")),
    ("세종특별자치시", ("세종", "세종시")),
    ("경기도", ("경기",)),
    ("강원특별자치도", ("강원", "강원도")),
    ("충청북도", ("충북",)),
    ("충청남도", ("충남",)),
    ("전북특별자치도", ("전북", "전라북도")),
    ("전라남도", ("전남",)),
    ("경상북도", ("경북",)),
    ("경상남도", ("경남",)),
    ("제주특별자치도", ("제주", "제주도")),
)

#: Second-level units per province (a representative subset, not a full gazetteer).
DISTRICTS: dict[str, tuple[str, ...]] = {
    "서울특별시": (
        "종로구",
        "중구",
        "용산구",
        "성동구",
        "광진구",
        "동대문구",
        "중랑구",
        "성북구",
        "강북구",
        "도봉구",
        "노원구",
        "은평구",
        "서대문구",
        "마포구",
        "양천구",
        "강서구",
        "구로구",
        "금천구",
        "영등포구",
        "동작구",
        "관악구",
        "서초구",
        "강남구",
        "송파구",
        "강동구",
    ),
    "부산광역시": (
        "해운대구",
        "수영구",
        "부산진구",
        "동래구",
        "남구",
        "사하구",
        "금정구",
        "연제구",
        "기장군",
    ),
    "대구광역시": ("수성구", "달서구", "북구", "동구", "달성군"),
    "인천광역시": ("연수구", "남동구", "부평구", "계양구", "미추홀구", "강화군"),
    "광주광역시": ("광산구", "서구", "북구", "남구"),
    "대전광역시": ("유성구", "서구", "대덕구", "중구"),
    "울산광역시": ("남구", "중구", "울주군", "북구"),
    "세종특별자치시": ("",),
    "경기도": (
        "수원시 영통구",
        "수원시 팔달구",
        "성남시 분당구",
        "고양시 일산동구",
        "용인시 수지구",
        "안양시 동안구",
        "부천시",
        "화성시",
        "평택시",
        "파주시",
        "김포시",
        "남양주시",
        "의정부시",
        "가평군",
        "양평군",
    ),
    "강원특별자치도": ("춘천시", "원주시", "강릉시", "속초시", "홍천군", "평창군"),
    "충청북도": ("청주시 흥덕구", "충주시", "제천시", "옥천군", "음성군"),
    "충청남도": ("천안시 서북구", "아산시", "공주시", "논산시", "홍성군", "예산군"),
    "전북특별자치도": ("전주시 완산구", "익산시", "군산시", "남원시", "완주군"),
    "전라남도": ("여수시", "순천시", "목포시", "나주시", "해남군", "담양군"),
    "경상북도": ("포항시 남구", "경주시", "구미시", "안동시", "경산시", "칠곡군"),
    "경상남도": ("창원시 성산구", "김해시", "진주시", "양산시", "거제시", "함안군"),
    "제주특별자치도": ("제주시", "서귀포시"),
}

#: Road names (도로명) used by the generator.
ROADS: tuple[str, ...] = (
    "테헤란로",
    "세종대로",
    "강남대로",
    "올림픽로",
    "한강대로",
    "중앙로",
    "시청로",
    "문화로",
    "번영로",
    "대학로",
    "월드컵로",
    "동일로",
    "판교역로",
    "경수대로",
    "해운대로",
    "신촌로",
    "백범로",
    "삼일대로",
    "충장로",
    "은행로",
    "도청로",
    "새말로",
    "봉화산로",
    "희망로",
    "양지길",
    "솔밭길",
    "가람길",
    "매화길",
)

#: Neighbourhood (법정동/리) names used by the generator for lot-number addresses.
LOTS: tuple[str, ...] = (
    "역삼동",
    "삼성동",
    "서교동",
    "합정동",
    "정자동",
    "상도동",
    "신림동",
    "연산동",
    "우동",
    "봉명동",
    "둔산동",
    "송도동",
    "효자동",
    "가좌동",
    "신촌동",
    "대흥동",
    "마전리",
    "송정리",
    "하리",
    "신흥리",
    "용두리",
)

#: Tokens accepted as an administrative unit without further evidence.
KNOWN_UNITS: frozenset[str] = frozenset(
    [full for full, _ in PROVINCES]
    + [short for _, shorts in PROVINCES for short in shorts]
    + [part for names in DISTRICTS.values() for name in names for part in name.split() if part]
)

#: Words that end like an administrative unit (시/도/군/구/면) but are ordinary words.
NOT_UNITS: frozenset[str] = frozenset(
    "당시 동시 임시 수시 역시 즉시 항시 다시 평시 전시 정도 제도 태도 각도 속도 온도 "
    "의도 지도 시도 용도 정도 연구 친구 입구 출구 도구 요구 가구 해군 공군 육군 아군 "
    "적군 대군 반면 측면 방면 전면 표면 화면 이면 국면 장면 단면 지면 가면".split()
)

#: Words that end like a neighbourhood (동/리) but are ordinary words.
NOT_LOTS: frozenset[str] = frozenset(
    "활동 운동 이동 행동 작동 공동 노동 변동 충동 감동 가동 진동 파동 출동 발동 연동 소동 "
    "거리 우리 자리 머리 처리 관리 수리 논리 요리 유리 정리 의리 소리 다리 무리 마리 "
    "사리 원리 진리 권리 승리 추리 분리 교리 불리 도리 고리".split()
)
