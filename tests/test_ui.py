"""Tests for the event consumers (treereduce_py/ui.py) and the documented JSON event schema."""

from __future__ import annotations

import io
import json
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, RenderableType

from treereduce_py.events import (
    SCHEMA_VERSION,
    Done,
    Event,
    Failure,
    Grouped,
    GroupUpdate,
    Improvement,
    InFile,
    Notice,
    PassChange,
    Progress,
    Start,
    Stats,
    to_dict,
    to_json,
)
from treereduce_py.front import ui

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCHEMA: dict[str, Any] = json.loads((DOCS / "events.schema.json").read_text())
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# ---------------------------------------------------------------------------------------------
# A tiny validator for the subset of JSON Schema that docs/events.schema.json uses

TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
KNOWN_KEYWORDS = {
    "$schema", "title", "description", "$defs", "$ref", "oneOf", "type", "const", "enum",
    "minimum", "properties", "required", "additionalProperties", "items",
}  # fmt: skip


def validate(value: Any, schema: dict[str, Any], root: dict[str, Any] = SCHEMA) -> list[str]:
    """Errors of `value` against `schema` (empty when valid)."""
    unknown = set(schema) - KNOWN_KEYWORDS
    assert not unknown, f"validator does not implement {unknown}"
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return validate(value, target, root)
    if "oneOf" in schema:
        matches = [not validate(value, option, root) for option in schema["oneOf"]]
        return [] if matches.count(True) == 1 else [f"{matches.count(True)} oneOf matches"]
    errors: list[str] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[name](value) for name in names):
            return [f"{value!r} is not of type {names}"]
    if "const" in schema and (value != schema["const"] or type(value) is not type(schema["const"])):
        errors.append(f"{value!r} != const {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, int | float) and value < schema["minimum"]:
        errors.append(f"{value!r} < {schema['minimum']}")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        errors += [f"missing {key}" for key in schema.get("required", []) if key not in value]
        if schema.get("additionalProperties") is False:
            errors += [f"unexpected {key}" for key in value if key not in properties]
        for key, sub in properties.items():
            if key in value:
                errors += [f"{key}: {e}" for e in validate(value[key], sub, root)]
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors += [f"[{index}]: {e}" for e in validate(item, schema["items"], root)]
    return errors


# ---------------------------------------------------------------------------------------------
# Events: strategies, examples and a decoder (the inverse of to_dict)

counts = st.integers(min_value=0, max_value=10**12)
seconds = st.floats(min_value=0, max_value=1e7, allow_nan=False, allow_infinity=False)
stats_values = st.builds(
    Stats,
    original_size=counts,
    size=counts,
    tests=counts,
    interesting=counts,
    cache_hits=counts,
    syntax_rejections=counts,
    commit_retries=counts,
    timeouts=counts,
    busy=counts,
    jobs=st.integers(min_value=1, max_value=512),
    pass_number=counts,
    phase=st.text(),
    elapsed=seconds,
    running=st.lists(seconds, max_size=4).map(tuple),
)
events: st.SearchStrategy[Event] = st.one_of(
    st.builds(
        Start,
        original_size=counts,
        language=st.text(),
        jobs=st.integers(min_value=1, max_value=512),
        strategy=st.text(),
        command=st.lists(st.text(), max_size=4).map(tuple),
        signature=st.none() | st.text(),
        elapsed=seconds,
        front_end=st.sampled_from(["grammar", "text", "bytes"]),
    ),
    st.builds(Progress, stats=stats_values, elapsed=seconds),
    st.builds(Improvement, size=counts, stats=stats_values, elapsed=seconds),
    st.builds(PassChange, pass_number=counts, phase=st.text(), size=counts, elapsed=seconds),
    st.builds(Notice, message=st.text(), elapsed=seconds),
    st.builds(
        Done,
        stats=stats_values,
        reason=st.sampled_from(["fixpoint", "max-time", "max-tests", "interrupted"]),
        elapsed=seconds,
    ),
    st.builds(
        Failure,
        message=st.text(),
        exit_code=st.integers(min_value=1, max_value=255),
        details=st.lists(st.text(), max_size=3).map(tuple),
        elapsed=seconds,
    ),
)
KINDS: dict[str, type[Any]] = {
    "start": Start,
    "progress": Progress,
    "improvement": Improvement,
    "pass": PassChange,
    "notice": Notice,
    "done": Done,
    "error": Failure,
    "group": GroupUpdate,
}


def decode(line: str) -> Event:
    """Rebuild an event from its JSON line."""
    body = json.loads(line)
    cls = KINDS[body.pop("event")]
    assert body.pop("schema") == SCHEMA_VERSION
    if "stats" in body:
        s = body["stats"]
        body["stats"] = Stats(
            **{**s, "running": tuple(s["running"]), "busy_quarters": tuple(s["busy_quarters"])}
        )
    for key in ("command", "details"):
        if key in body:
            body[key] = tuple(body[key])
    event: Event = cls(**body)
    return event


def stats(size: int, tests: int, elapsed: float, **more: Any) -> Stats:
    return Stats(original_size=1000, size=size, tests=tests, elapsed=elapsed, **more)


def one_of_each() -> list[Event]:
    s = stats(500, 10, 1.0, interesting=3, running=(0.5,))
    return [
        Start(original_size=1000, language="c", jobs=2, strategy="hybrid", command=("./t.sh",)),
        Progress(stats=s, elapsed=1.0),
        Improvement(size=500, stats=s, elapsed=1.0),
        PassChange(pass_number=2, phase="hoist", size=500, elapsed=1.5),
        Notice(message="slow test", elapsed=1.6),
        Done(
            stats=replace(
                s,
                running=(),
                busy_quarters=(1.0, 0.75, 0.5, 0.25),
                wasted={"stale": 2, "moot": 1, "merge": 0},
            ),
            reason="max-time",
            elapsed=2.0,
        ),
        Failure(message="interrupted", exit_code=130, details=("x",), elapsed=2.5),
        GroupUpdate("keyerror-1", "exit 1 and 'KeyError'", 3, "done", 300, 20, 12, elapsed=3.0),
    ]


# ---------------------------------------------------------------------------------------------
# Schema and docs


@settings(max_examples=150, deadline=None)
@given(events)
def test_every_event_round_trips_and_validates(event: Event) -> None:
    line = to_json(event)
    assert "\n" not in line
    assert validate(json.loads(line), SCHEMA) == []
    assert decode(line) == event


def test_schema_has_exactly_one_branch_per_event_kind() -> None:
    branches = [SCHEMA["$defs"][ref["$ref"].split("/")[-1]] for ref in SCHEMA["oneOf"]]
    kinds = {branch["properties"]["event"]["const"] for branch in branches}
    assert kinds == set(KINDS) == {event.kind for event in one_of_each()}
    for event in one_of_each():
        branch = SCHEMA["$defs"][event.kind]
        # `group` and `file` are optional on the events of a single reduction: batch mode adds
        # the one, a directory's reduction the other (with the tree's figures).
        optional = {"group", "file", "tree_size", "tree_tests"} if event.kind != "group" else set()
        assert set(branch["required"]) == set(branch["properties"]) - optional
        assert set(branch["required"]) == set(to_dict(event))
        grouped = to_dict(Grouped("g", event)) if event.kind != "group" else to_dict(event)
        assert validate(grouped, SCHEMA) == [], grouped
        if event.kind not in ("group", "error"):
            in_file = to_dict(InFile("pkg/mod.py", event, tree_size=900, tree_tests=12))
            assert (in_file["file"], in_file["tree_size"], in_file["tree_tests"]) == (
                "pkg/mod.py",
                900,
                12,
            )
            assert validate(in_file, SCHEMA) == [], in_file


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("elapsed"),
        lambda d: d.update(extra=1),
        lambda d: d.update(schema=1),
        lambda d: d.update(event="unknown"),
        lambda d: d.update(elapsed="1.0"),
        lambda d: d.update(elapsed=-1.0),
        lambda d: d["stats"].update(tests=1.5) if "stats" in d else d.update(schema=True),
        lambda d: d["stats"]["running"].append("x") if "stats" in d else d.pop("event"),
    ],
)
def test_schema_rejects_malformed_events(mutate: Any) -> None:
    for event in one_of_each():
        body = to_dict(event)
        assert validate(body, SCHEMA) == []
        mutate(body)
        assert validate(body, SCHEMA) != [], (event.kind, body)


def test_schema_rejects_unknown_done_reason() -> None:
    body = to_dict(Done(stats=stats(1, 1, 1.0), reason="bored"))
    assert validate(body, SCHEMA) != []


def test_schema_is_valid_json_schema_for_jsonschema_if_installed() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for event in one_of_each():
        jsonschema.validate(to_dict(event), SCHEMA)


def test_doc_has_a_valid_example_of_each_kind_and_names_every_field() -> None:
    doc = (DOCS / "events.md").read_text()
    examples = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", doc, flags=re.DOTALL)]
    for example in examples:
        assert validate(example, SCHEMA) == [], example
    assert {example["event"] for example in examples} == set(KINDS)
    fields = {key for event in one_of_each() for key in to_dict(event)}
    fields |= set(SCHEMA["$defs"]["stats"]["properties"])
    missing = [name for name in fields if f"`{name}`" not in doc]
    assert missing == []
    assert f"currently **{SCHEMA_VERSION}**" in doc


# ---------------------------------------------------------------------------------------------
# JSON, plain and quiet reporters


class FlushCounter(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushed_at: list[int] = []

    def flush(self) -> None:
        self.flushed_at.append(len(self.getvalue()))


def test_json_reporter_writes_one_flushed_line_per_event_and_nothing_else() -> None:
    stream = FlushCounter()
    reporter = ui.make_reporter(mode="json", stream=stream)
    sent = one_of_each()
    for event in sent:
        reporter(event)
    reporter.close()
    text = stream.getvalue()
    lines = text.splitlines()
    assert [decode(line) for line in lines] == sent
    assert all(validate(json.loads(line), SCHEMA) == [] for line in lines)
    # Flushed right after each line: the flush positions are the line ends.
    ends = [i + 1 for i, char in enumerate(text) if char == "\n"]
    assert stream.flushed_at == ends


def scripted_run() -> list[Event]:
    return [
        Start(original_size=1000, language="python", jobs=2, strategy="hybrid"),
        PassChange(pass_number=1, phase="delete", size=1000, elapsed=0.0),
        Improvement(size=900, stats=stats(900, 5, 0.1, interesting=1), elapsed=0.1),
        Improvement(size=800, stats=stats(800, 9, 0.5, interesting=2), elapsed=0.5),
        Improvement(size=700, stats=stats(700, 12, 0.9, interesting=3), elapsed=0.9),
        Improvement(size=600, stats=stats(600, 20, 1.2, interesting=4), elapsed=1.2),
        Progress(stats=stats(600, 30, 1.4, interesting=4, cache_hits=2), elapsed=1.4),
        PassChange(pass_number=2, phase="hoist", size=600, elapsed=1.5),
        Notice(message="test timed out", elapsed=1.6),
        Improvement(size=550, stats=stats(550, 40, 1.7, interesting=5), elapsed=1.7),
        Improvement(size=512, stats=stats(512, 44, 1.9, interesting=6), elapsed=1.9),
        Done(
            stats=stats(512, 50, 2.3, interesting=6, cache_hits=7, syntax_rejections=8, timeouts=1),
            reason="fixpoint",
            elapsed=2.3,
        ),
    ]


def test_plain_reporter_rate_limits_improvements_and_ends_with_the_summary() -> None:
    stream = io.StringIO()
    reporter = ui.make_reporter(mode="plain", stream=stream)
    assert isinstance(reporter, ui.PlainReporter)
    for event in scripted_run():
        reporter(event)
    reporter.close()
    assert stream.getvalue().splitlines() == [
        "treereduce-py: reducing 1000 bytes of python with 2 jobs (strategy hybrid)",
        "treereduce-py: pass 1: delete (1000 bytes)",
        "treereduce-py: 900 bytes (10.0% reduced) after 5 tests, 0.1 s",
        # 800 and 700 fall within a second of the last line; 600 is due at 1.2 s.
        "treereduce-py: 600 bytes (40.0% reduced) after 20 tests, 1.2 s",
        "treereduce-py: pass 2: hoist (600 bytes)",
        "treereduce-py: warning: test timed out",
        # 550 is superseded before its turn; the last improvement is always shown before Done.
        "treereduce-py: 512 bytes (48.8% reduced) after 44 tests, 1.9 s",
        "treereduce-py: 1000 -> 512 bytes (48.8% reduced), 50 tests (6 interesting,"
        " 7 cache hits, 8 syntax rejections) in 2.3 s",
    ]


def test_plain_reporter_writes_a_held_back_improvement_when_it_is_due() -> None:
    stream = io.StringIO()
    reporter = ui.PlainReporter(stream, min_interval=1.0)
    reporter(Improvement(size=900, stats=stats(900, 1, 0.0), elapsed=0.0))
    reporter(Improvement(size=800, stats=stats(800, 2, 0.2), elapsed=0.2))
    assert "800 bytes" not in stream.getvalue()
    reporter(Progress(stats=stats(800, 3, 1.3), elapsed=1.3))
    assert "treereduce-py: 800 bytes (20.0% reduced) after 2 tests, 0.2 s" in stream.getvalue()


def test_plain_reporter_close_without_done_flushes_the_last_improvement() -> None:
    stream = io.StringIO()
    reporter = ui.PlainReporter(stream)
    reporter(Improvement(size=900, stats=stats(900, 1, 0.0), elapsed=0.0))
    reporter(Improvement(size=700, stats=stats(700, 2, 0.2), elapsed=0.2))
    reporter.close()
    assert stream.getvalue().splitlines()[-1].startswith("treereduce-py: 700 bytes")


def test_plain_verbose_prints_per_pass_statistics() -> None:
    stream = io.StringIO()
    reporter = ui.make_reporter(mode="plain", stream=stream, verbose=True)
    for event in scripted_run():
        reporter(event)
    lines = [line for line in stream.getvalue().splitlines() if line.startswith("treereduce-py:  ")]
    # Pass 1 counts from zero to the Progress at 1.4 s; pass 2 from there to Done.
    assert lines == [
        "treereduce-py:   pass 1 delete: 30 tests, 4 interesting, 2 cache hits,"
        " 0 syntax rejections, 0 commit retries, 1000 -> 600 bytes in 1.5 s",
        "treereduce-py:   pass 2 hoist: 20 tests, 2 interesting, 5 cache hits,"
        " 8 syntax rejections, 0 commit retries, 600 -> 512 bytes in 0.8 s",
    ]


def test_summary_line_numbers_and_stop_reason() -> None:
    s = Stats(
        original_size=102400,
        size=312,
        tests=1234,
        interesting=56,
        cache_hits=210,
        syntax_rejections=300,
        elapsed=12.3,
    )
    assert ui.summary_line(s, "fixpoint") == (
        "treereduce-py: 102400 -> 312 bytes (99.6% reduced), 1234 tests (56 interesting,"
        " 210 cache hits, 300 syntax rejections) in 12.3 s"
    )
    assert ui.summary_line(replace(s, elapsed=125.0), "max-time").endswith(
        "in 2m 05s, stopped: max-time"
    )
    # a directory's file whose round's slice is up is paused, not stopped
    assert ui.summary_line(s, "slice").endswith("in 12.3 s, paused: its time this round is up")
    # Rounded down: only an empty result is 100% reduced.
    assert ui.percent_reduced(replace(s, size=1)) == "99.9%"
    assert ui.percent_reduced(replace(s, size=0)) == "100.0%"
    assert ui.percent_reduced(Stats(original_size=0, size=0)) == "0.0%"


def test_quiet_reporter_prints_only_warnings() -> None:
    stream = io.StringIO()
    reporter = ui.make_reporter(mode="quiet", stream=stream)
    for event in [*scripted_run(), Notice(message="second one", elapsed=3.0)]:
        reporter(event)
    reporter.close()
    assert stream.getvalue().splitlines() == [
        "treereduce-py: warning: test timed out",
        "treereduce-py: warning: second one",
    ]


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_make_reporter_picks_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    assert isinstance(ui.make_reporter(mode="auto", stream=io.StringIO()), ui.PlainReporter)
    assert isinstance(ui.make_reporter(mode="auto", stream=FakeTty()), ui.LiveReporter)
    assert isinstance(ui.make_reporter(mode="live", stream=io.StringIO()), ui.LiveReporter)
    assert isinstance(ui.make_reporter(mode="json", stream=FakeTty()), ui.JsonReporter)
    assert isinstance(ui.make_reporter(mode="quiet", stream=FakeTty()), ui.QuietReporter)
    monkeypatch.setenv("TERM", "dumb")
    assert isinstance(ui.make_reporter(mode="auto", stream=FakeTty()), ui.PlainReporter)
    with pytest.raises(ValueError):
        ui.make_reporter(mode="fancy", stream=io.StringIO())  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Live panel


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def as_text(renderable: RenderableType, width: int = 110) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def live_reporter(clock: FakeClock, **options: Any) -> tuple[ui.LiveReporter, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=110, color_system="truecolor")
    return ui.LiveReporter(console, clock=clock, auto_refresh=False, **options), out


def test_the_panel_and_the_log_say_which_front_end_reads_the_input() -> None:
    clock = FakeClock()
    for front_end, shown in [("text", "text (no grammar)"), ("bytes", "binary (byte chunks)")]:
        start = Start(
            original_size=100, language=front_end, jobs=2, strategy="priority", front_end=front_end
        )
        reporter, _ = live_reporter(clock)
        reporter(start)
        assert f"{shown} · priority · 2 jobs" in as_text(reporter.render())
        stream = io.StringIO()
        ui.PlainReporter(stream)(start)
        assert f"reducing 100 bytes of {shown} with 2 jobs" in stream.getvalue()


def test_live_render_shows_the_numbers_and_follows_new_events() -> None:
    clock = FakeClock()
    reporter, _ = live_reporter(clock)
    reporter(Start(original_size=102400, language="c", jobs=2, strategy="hybrid"))
    s = Stats(
        original_size=102400,
        size=51200,
        tests=1234,
        interesting=56,
        cache_hits=210,
        syntax_rejections=300,
        commit_retries=7,
        busy=2,
        jobs=2,
        pass_number=1,
        phase="delete",
        elapsed=2.0,
    )
    reporter(Progress(stats=s, elapsed=2.0))
    text = as_text(reporter.render())
    for shown in ["102,400 → 51,200 bytes", "50.0% reduced", "1,234", "56 (4.5%)", "210", "300"]:
        assert shown in text
    assert "2/2" in text and "1 delete" in text and "c · hybrid · 2 jobs" in text
    assert re.search(r"tests\s+1,234 \(617\.0/s\)", text)
    reporter(
        Improvement(size=312, stats=replace(s, size=312, tests=1300, pass_number=3, phase="hoist"))
    )
    text = as_text(reporter.render())
    assert "102,400 → 312 bytes" in text and "99.6% reduced" in text and "1,300" in text
    assert "3 hoist" in text and "51,200" not in text
    reporter.close()


def test_live_elapsed_and_slow_tests_advance_without_events() -> None:
    clock = FakeClock()
    reporter, _ = live_reporter(clock)
    reporter(Progress(stats=stats(500, 10, 3.0, running=(2.5, 0.2)), elapsed=3.0))
    first = as_text(reporter.render())
    assert "3.0 s" in first and "slow tests running: 2.5 s" in first
    clock.now += 4.0
    second = as_text(reporter.render())
    assert "7.0 s" in second and "3.0 s" not in second
    assert "slow tests running: 6.5 s, 4.2 s" in second
    # Once done, the elapsed time is frozen and nothing is running.
    reporter(Done(stats=stats(400, 12, 7.5), reason="fixpoint", elapsed=7.5))
    clock.now += 60.0
    final = as_text(reporter.render())
    assert "7.5 s" in final and "slow tests" not in final
    reporter.close()


def test_live_stale_snapshots_from_other_threads_do_not_regress_the_view() -> None:
    view = ui.RunView()
    view = ui.fold(view, Progress(stats=stats(400, 20, 2.0), elapsed=2.0), now=1.0)
    view = ui.fold(view, Progress(stats=stats(450, 15, 1.9), elapsed=1.9), now=1.1)
    assert view.stats is not None and (view.stats.size, view.stats.tests) == (400, 20)
    assert view.elapsed(1.1) == pytest.approx(2.1)


def test_live_preview_of_the_best_is_short_lenient_and_fetched_only_on_change() -> None:
    clock = FakeClock()
    calls: list[int] = []
    best = b"".join(b"line %d \xff" % i + b"x" * 300 + b"\n" for i in range(40))

    def show_best() -> bytes:
        calls.append(1)
        return best

    reporter, _ = live_reporter(clock, show_best=show_best)
    reporter(Improvement(size=len(best), stats=stats(len(best), 1, 0.1)))
    text = as_text(reporter.render(), width=200)
    assert "line 0 \ufffd" in text and "line 14 " in text and "line 15 " not in text
    longest = max(len(line) for line in text.splitlines() if "line 3 " in line)
    assert longest < 130
    reporter.render()
    assert len(calls) == 1
    reporter(Improvement(size=100, stats=stats(100, 2, 0.2)))
    reporter.render()
    assert len(calls) == 2
    reporter.close()


def test_live_writes_the_panel_to_the_terminal_and_a_summary_table_at_close() -> None:
    clock = FakeClock()
    reporter, out = live_reporter(clock)
    assert out.getvalue() == ""  # nothing is drawn before the first event
    reporter(Start(original_size=1000, language="go", jobs=1, strategy="ddmin"))
    reporter(Progress(stats=stats(800, 17, 1.0)))
    reporter.refresh()
    drawn = ANSI.sub("", out.getvalue())
    assert "1,000 → 800 bytes" in drawn and "20.0% reduced" in drawn and "17" in drawn
    reporter(Notice(message="grammar has no queries"))
    reporter(Done(stats=stats(640, 99, 5.5, timeouts=3, commit_retries=4), reason="max-tests"))
    reporter.close()
    reporter.close()  # idempotent
    tail = ANSI.sub("", out.getvalue()).split("grammar has no queries")[-1]
    assert "treereduce-py summary" in tail
    for name, value in [
        ("original size", "1,000 bytes"),
        ("final size", "640 bytes"),
        ("reduced", "36.0%"),
        ("tests", "99"),
        ("timeouts", "3"),
        ("commit retries", "4"),
        ("wall time", "5.5 s"),
        ("stop reason", "max-tests"),
    ]:
        assert re.search(rf"{name}\s*│\s*{re.escape(value)}", tail), name
    assert tail.count("treereduce-py summary") == 1


def test_live_close_before_any_event_prints_nothing() -> None:
    reporter, out = live_reporter(FakeClock())
    reporter.close()
    assert out.getvalue() == ""


# ---------------------------------------------------------------------------------------------
# Thread safety


def hammer(reporter: ui.Reporter, threads: int = 4, per_thread: int = 300) -> None:
    def work(index: int) -> None:
        for i in range(per_thread):
            tests = i * threads + index
            s = stats(1000 - tests // 10, tests, tests / 1000, busy=index)
            reporter(Improvement(size=s.size, stats=s, elapsed=s.elapsed) if i % 3 == 0 else
                     Progress(stats=s, elapsed=s.elapsed))  # fmt: skip
            if i % 100 == 0:
                reporter(Notice(message=f"thread {index} at {i}", elapsed=s.elapsed))

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
        assert not worker.is_alive()


def test_live_reporter_is_thread_safe_while_refreshing() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=110)
    reporter = ui.LiveReporter(console, refresh_per_second=100, show_best=lambda: b"int x;\n" * 20)
    hammer(reporter)
    view = reporter.view
    assert view.improvements == 4 * 100 and view.notices == 4 * 3
    assert view.stats is not None and view.stats.tests == 4 * 300 - 1  # the newest snapshot
    reporter(Done(stats=stats(777, 4321, 9.0), reason="fixpoint"))
    reporter.close()
    tail = ANSI.sub("", out.getvalue()).split("treereduce-py summary")[-1]
    assert re.search(r"tests\s*│\s*4,321", tail) and re.search(r"final size\s*│\s*777", tail)


def test_plain_and_json_reporters_are_thread_safe() -> None:
    plain, lines = io.StringIO(), io.StringIO()
    plain_reporter = ui.PlainReporter(plain, min_interval=0.05)
    json_reporter = ui.JsonReporter(lines)
    hammer(plain_reporter)
    hammer(json_reporter)
    plain_reporter(Done(stats=stats(500, 1200, 2.0), reason="fixpoint"))
    written = plain.getvalue().splitlines()
    assert all(line.startswith("treereduce-py: ") for line in written)
    assert sum("warning: thread" in line for line in written) == 12
    assert written[-1] == ui.summary_line(stats(500, 1200, 2.0), "fixpoint")
    decoded = [decode(line) for line in lines.getvalue().splitlines()]
    assert len(decoded) == 4 * 300 + 12
    assert sum(isinstance(event, Improvement) for event in decoded) == 400
