"""Tests for transform/spans.py: a binary input's records that no aligned chunk holds go at the
fixed point of its chunks, whole runs of bytes at a time, and only binary input gets them."""

from __future__ import annotations

import random

from treereduce_py import events, reduce
from treereduce_py.edit.tasks import Drop
from treereduce_py.lang.bytetree import byte_table
from treereduce_py.lang.inputs import BYTES, GRAMMAR, TEXT
from treereduce_py.transform.spans import SPAN_LONGEST, SPANS_MAX, SpanPlanner
from treereduce_py.transform.strategies import SPANS_STAGE


def records(data: bytes) -> list[tuple[bytes, bytes]] | None:
    """TAG(4) LEN(1) DATA(LEN) records, as a fuzz target reads them; None where the framing
    breaks (a record that runs past the end, or bytes left over)."""
    out, i = [], 0
    while i < len(data):
        if i + 5 > len(data) or i + 5 + data[i + 4] > len(data):
            return None
        n = data[i + 4]
        out.append((data[i : i + 4], data[i + 5 : i + 5 + n]))
        i += 5 + n
    return out


def crashes(candidate: bytes) -> bool:
    """The crash: a well-framed file with a DIVI record whose data starts with `x`."""
    recs = records(candidate)
    return recs is not None and any(t == b"DIVI" and d[:1] == b"x" for t, d in recs)


def record(tag: bytes, data: bytes) -> bytes:
    return tag + bytes([len(data)]) + data


def test_records_astride_the_chunks_go_and_leave_the_crashing_one_byte_for_byte() -> None:
    rng = random.Random(3)
    junk = [
        record(rng.choice([b"JUNK", b"ABCD", b"\0\0\0\0"]), rng.randbytes(rng.randint(0, 11)))
        for _ in range(12)
    ]
    source = b"".join(junk[:7]) + record(b"DIVI", b"x") + b"".join(junk[7:])
    seen: list[events.Event] = []
    result = reduce(source, language="bytes", test=crashes, jobs=2, progress=seen.append)
    assert result.reduced == b"DIVI\x01x"
    assert crashes(result.reduced)
    assert "spans" in {e.phase for e in seen if isinstance(e, events.PassChange)}


def test_runs_are_offered_longest_first_on_small_results_only() -> None:
    table = byte_table(bytes(range(40)))
    assert [table.text(k) for k in table.children(0)] == [bytes([b]) for b in range(40)]
    tasks = list(SpanPlanner(table).initial())
    assert all(isinstance(t, Drop) for t in tasks)
    lengths = [len(t.nodes) for t in tasks if isinstance(t, Drop)]
    assert lengths == sorted(lengths, reverse=True)
    assert set(lengths) == set(range(2, SPAN_LONGEST + 1))
    assert len(tasks) == sum(40 - k + 1 for k in range(2, SPAN_LONGEST + 1))
    assert list(SpanPlanner(byte_table(bytes(SPANS_MAX + 1))).initial()) == []


def test_only_binary_input_gets_the_runs_of_bytes() -> None:
    stage = (SPANS_STAGE.table, SPANS_STAGE.planner_kind)
    assert BYTES.reads(*stage)
    assert not TEXT.reads(*stage) and not GRAMMAR.reads(*stage)
