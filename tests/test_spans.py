"""Tests for transform/spans.py: a binary input's records that no aligned chunk holds go at the
fixed point of its chunks, whole runs of bytes at a time, and only binary input gets them."""

from __future__ import annotations

import random

from treereduce_py import events, reduce
from treereduce_py.edit.tasks import Drop
from treereduce_py.lang.bytetree import byte_table
from treereduce_py.lang.inputs import BYTES, GRAMMAR, TEXT
from treereduce_py.transform.spans import SPAN_LONGEST, SPANS_MAX, Shorten, SpanPlanner, shortenings
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
    tasks = [t for t in SpanPlanner(table).initial() if isinstance(t, Drop)]
    lengths = [len(t.nodes) for t in tasks]
    assert lengths == sorted(lengths, reverse=True)
    assert set(lengths) == set(range(2, SPAN_LONGEST + 1))
    assert len(tasks) == sum(40 - k + 1 for k in range(2, SPAN_LONGEST + 1))
    assert list(SpanPlanner(byte_table(bytes(SPANS_MAX + 1))).initial()) == []


def test_only_binary_input_gets_the_runs_of_bytes() -> None:
    stage = (SPANS_STAGE.table, SPANS_STAGE.planner_kind)
    assert BYTES.reads(*stage)
    assert not TEXT.reads(*stage) and not GRAMMAR.reads(*stage)


def overflows(candidate: bytes) -> bool:
    """The crash: a well-framed file with a NAME record of more than 16 bytes (a fixed buffer)."""
    recs = records(candidate)
    return recs is not None and any(t == b"NAME" and len(d) > 16 for t, d in recs)


def test_a_length_byte_is_lowered_with_as_many_bytes_of_its_record_cut() -> None:
    rng = random.Random(5)
    junk = [record(b"JUNK", rng.randbytes(rng.randint(0, 9))) for _ in range(6)]
    name = record(b"NAME", rng.randbytes(35))
    source = b"".join(junk[:3]) + name + b"".join(junk[3:])
    result = reduce(source, language="bytes", test=overflows, jobs=2)
    # Only the length and the data together can shrink: 4 + 1 + 17 bytes.
    assert len(result.reduced) == 22 and result.reduced[:5] == b"NAME\x11"
    assert overflows(result.reduced)


def test_each_byte_read_as_a_length_is_offered_halvings_of_its_record() -> None:
    table = byte_table(b"\x03abc\x01z")
    kids = list(table.children(0))
    got = {(s.length, s.value, s.cut) for s in shortenings(table)}
    assert got == {
        (kids[0], 0, tuple(kids[1:4])),
        (kids[0], 2, (kids[3],)),
        (kids[4], 0, (kids[5],)),
    }
    assert all(isinstance(s, Shorten) and s.gain(table) == len(s.cut) for s in shortenings(table))
