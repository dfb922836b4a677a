"""MRC (extractive reading comprehension): ``klue-mrc-v1.1_{train,dev}.json``, SQuAD style.

``{version?, data: [{title, news_category, source, paragraphs: [{context,
qas: [{question, guid, question_type, is_impossible, answers: [{text,
answer_start}], plausible_answers?}]}]}]}``. Question types: 1 paraphrase,
2 multi-sentence reasoning, 3 unanswerable (``is_impossible`` true, ``answers``
empty, sometimes ``plausible_answers``). Dev questions may carry several
gold answers. One `MrcExample` per question; the context is shared by the
questions of a paragraph (`paragraph_index` identifies it).

The whole file is one JSON object, so it is parsed at once (the official dev
file is ~19 MB); errors name the file and the JSON path of the bad item.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corpus.klue.files import FieldReader, SplitFile
from corpus.textio import InputError, OnError, Quarantine, handle


@dataclass(frozen=True)
class Answer:
    text: str
    answer_start: int

    @property
    def answer_end(self) -> int:
        """Exclusive end offset in the context."""
        return self.answer_start + len(self.text)


@dataclass(frozen=True)
class MrcExample:
    guid: str
    question: str
    context: str
    question_type: int
    is_impossible: bool
    answers: tuple[Answer, ...]
    plausible_answers: tuple[Answer, ...] = ()
    title: str = ""
    news_category: str | None = None
    source: str = ""
    paragraph_index: int = 0

    def misaligned_answers(self) -> list[Answer]:
        """Gold answers whose text is not at `answer_start` in the context.

        The reader does not reject them (the release is taken as it is); feature
        builders that need exact spans check this list.
        """
        return [a for a in self.answers if self.context[a.answer_start : a.answer_end] != a.text]


def _answers(f: FieldReader, key: str, optional: bool) -> tuple[Answer, ...]:
    items = f.list(key, optional=optional) or []
    out = []
    for i, item in enumerate(items):
        a = FieldReader(item, f.name, f.line, f"{f.where}.{key}[{i}]")
        out.append(Answer(a.str("text"), a.int("answer_start")))
    return tuple(out)


def _question(q: FieldReader, context: str, meta: dict, paragraph_index: int) -> MrcExample:
    qtype = q.int("question_type")
    if qtype not in (1, 2, 3):
        raise q.error(f"bad value: {q.where}.question_type {qtype}")
    impossible = q.get("is_impossible", bool)
    answers = _answers(q, "answers", optional=False)
    if impossible and answers:
        raise q.error(f"bad value: {q.where} is_impossible but has answers")
    if not impossible and not answers:
        raise q.error(f"bad value: {q.where} is answerable but has no answers")
    return MrcExample(
        guid=q.str("guid"),
        question=q.str("question"),
        context=context,
        question_type=qtype,
        is_impossible=impossible,
        answers=answers,
        plausible_answers=_answers(q, "plausible_answers", optional=True),
        paragraph_index=paragraph_index,
        **meta,
    )


def read(
    source: SplitFile, *, on_error: OnError = "raise", quarantine: Quarantine | None = None
) -> Iterator[MrcExample]:
    """Yields one example per question; in ``skip`` mode a bad question is quarantined."""
    top = FieldReader(source.json(), source.name, None)
    paragraph_index = 0
    for d, doc in enumerate(top.list("data")):
        try:
            f = FieldReader(doc, source.name, None, f"data[{d}]")
            meta = {
                "title": f.str("title", optional=True) or "",
                "news_category": f.str("news_category", optional=True),
                "source": f.str("source", optional=True) or "",
            }
            paragraphs = f.list("paragraphs")
        except InputError as e:
            handle(e, on_error, quarantine)
            continue
        for p, para in enumerate(paragraphs):
            try:
                pf = FieldReader(para, source.name, None, f"data[{d}].paragraphs[{p}]")
                context = pf.str("context")
                qas = pf.list("qas")
            except InputError as e:
                handle(e, on_error, quarantine)
                continue
            for k, qa in enumerate(qas):
                try:
                    q = FieldReader(qa, source.name, None, f"{pf.where}.qas[{k}]")
                    yield _question(q, context, meta, paragraph_index)
                except InputError as e:
                    handle(e, on_error, quarantine)
            paragraph_index += 1
