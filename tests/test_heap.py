"""Tests for engine.heap: priority order, blocking pops, and termination detection (every
idle worker gets None exactly when the heap is empty and no task is running), under threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.engine.heap import TaskHeap

T = TypeVar("T")
JOIN = 30.0  # seconds; only a hang gets anywhere near this


def start(target: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def join_all(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.join(JOIN)
    assert not any(t.is_alive() for t in threads), "a worker hung"


def wait_until_waiting(heap: TaskHeap[T], n: int) -> None:
    """Block until `n` threads sleep inside `pop` (reads the condition's waiter list)."""
    done = threading.Event()
    for _ in range(int(JOIN * 100)):
        with heap._cond:
            if len(heap._cond._waiters) >= n:  # type: ignore[attr-defined]
                done.set()
        if done.is_set():
            return
        done.wait(0.01)
    raise AssertionError(f"{n} threads never blocked in pop")


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 5), st.sampled_from("abc")), max_size=30),
    st.booleans(),
)
def test_pops_by_gain_then_anchor_then_task_then_insertion(
    items: list[tuple[int, int, str]], batched: bool
) -> None:
    heap: TaskHeap[tuple[str, int]] = TaskHeap()
    # Equal tasks with equal keys come out in insertion order (the number tells them apart).
    tasks = [(name, 0) for _, _, name in items]
    if batched:
        heap.push_all((t, g, a) for t, (g, a, _) in zip(tasks, items, strict=True))
    else:
        for t, (g, a, _) in zip(tasks, items, strict=True):
            heap.push(t, g, a)
    assert len(heap) == len(items)
    order = sorted(range(len(items)), key=lambda k: (-items[k][0], items[k][1], items[k][2], k))
    got = []
    for _ in items:
        task = heap.pop()
        assert task is not None
        got.append(task)
        heap.done()
    assert [t[0] for t in got] == [items[k][2] for k in order]
    assert heap.pop() is None  # empty and nothing running: the pass is over
    assert len(heap) == 0


def test_equal_gain_and_anchor_order_by_the_task_not_by_push_time() -> None:
    first: TaskHeap[str] = TaskHeap()
    second: TaskHeap[str] = TaskHeap()
    for name in ["b", "c", "a"]:
        first.push(name, 3, 1)
    for name in ["c", "a", "b"]:
        second.push(name, 3, 1)
    assert [first.pop() for _ in range(3)] == [second.pop() for _ in range(3)] == ["a", "b", "c"]


def test_take_and_top_key_follow_pop_order_without_blocking() -> None:
    heap: TaskHeap[str] = TaskHeap()
    assert heap.top_key() is None
    assert heap.take(5) == []
    heap.push_all([("small", 1, 0), ("big-late", 9, 5), ("big-early", 9, 2), ("mid", 4, 0)])
    assert heap.top_key() == (-9, 2, repr("big-early"))
    assert heap.take(2) == [
        ((-9, 2, repr("big-early")), "big-early"),
        ((-9, 5, repr("big-late")), "big-late"),
    ]
    assert len(heap) == 2
    assert [task for _, task in heap.take(10)] == ["mid", "small"]
    assert heap.top_key() is None
    assert heap.pop() is None  # take does not count as running tasks


def test_pop_blocks_while_a_task_runs_and_gets_its_follow_up() -> None:
    heap: TaskHeap[str] = TaskHeap()
    heap.push("first", 1, 0)
    assert heap.pop() == "first"  # now one task is active
    got: list[str | None] = []
    waiter = start(lambda: got.append(heap.pop()))
    wait_until_waiting(heap, 1)
    assert got == []  # still blocked: the running task may push more
    heap.push("follow-up", 1, 1)
    heap.done()
    join_all([waiter])
    assert got == ["follow-up"]
    heap.done()
    assert heap.pop() is None


def test_every_waiter_gets_none_when_the_last_task_ends_without_follow_ups() -> None:
    heap: TaskHeap[int] = TaskHeap()
    heap.push(1, 1, 1)
    assert heap.pop() == 1
    results: list[int | None] = []
    lock = threading.Lock()

    def idle() -> None:
        r = heap.pop()
        with lock:
            results.append(r)

    threads = [start(idle) for _ in range(4)]
    wait_until_waiting(heap, 4)
    assert results == []
    heap.done()
    join_all(threads)
    assert results == [None] * 4


def test_close_wakes_every_waiter_and_stops_future_pops() -> None:
    heap: TaskHeap[int] = TaskHeap()
    heap.push(1, 1, 1)
    assert heap.pop() == 1  # a task that never finishes
    results: list[int | None] = []
    threads = [start(lambda: results.append(heap.pop())) for _ in range(3)]
    wait_until_waiting(heap, 3)
    heap.close()
    join_all(threads)
    assert results == [None] * 3
    heap.push(3, 5, 0)
    assert heap.pop() is None  # closed: even a queued task is not handed out


def test_many_workers_with_follow_ups_run_every_task_and_terminate() -> None:
    # Task (depth, id) pushes two follow-ups of depth - 1: each root spawns 2**(depth+1) - 1 tasks.
    heap: TaskHeap[tuple[int, int]] = TaskHeap()
    roots, depth, workers = 6, 8, 6
    ids = iter(range(10**9))
    heap.push_all(((depth, next(ids)), depth, 0) for _ in range(roots))
    ran: list[tuple[int, int]] = []
    finished: list[int] = []
    lock = threading.Lock()

    def worker(me: int) -> None:
        while (task := heap.pop()) is not None:
            d, _ = task
            if d > 0:
                with lock:
                    kids = [(d - 1, next(ids)) for _ in range(2)]
                if d % 2:
                    for kid in kids:
                        heap.push(kid, kid[0], kid[1])
                else:
                    heap.push_all((kid, kid[0], kid[1]) for kid in kids)
            with lock:
                ran.append(task)
            heap.done()
        with lock:
            finished.append(me)

    threads = [start(lambda me=me: worker(me)) for me in range(workers)]  # type: ignore[misc]
    join_all(threads)
    assert sorted(finished) == list(range(workers))
    assert len(ran) == roots * (2 ** (depth + 1) - 1)
    assert len(set(ran)) == len(ran)  # no task handed out twice
    assert len(heap) == 0


def test_pop_takes_the_best_task_that_fits_and_keeps_the_rest_in_order() -> None:
    heap: TaskHeap[str] = TaskHeap()
    heap.push_all([("a", 9, 0), ("b", 8, 1), ("c", 7, 2), ("d", 6, 3)])
    asked: list[tuple[str, bool]] = []

    def fits(task: str, taken: bool) -> bool:
        asked.append((task, taken))
        return task in "cd"

    assert heap.pop(fits) == "c"
    assert asked == [("a", False), ("b", False), ("c", False)]
    heap.done()
    assert [heap.pop(), heap.pop(), heap.pop()] == ["a", "b", "d"]


def test_pop_falls_back_to_the_best_task_and_says_so() -> None:
    heap: TaskHeap[str] = TaskHeap()
    heap.push_all([("a", 9, 0), ("b", 8, 1)])
    asked: list[tuple[str, bool]] = []

    def fits(task: str, taken: bool) -> bool:
        asked.append((task, taken))
        return taken

    assert heap.pop(fits) == "a"  # nothing fits: the best anyway, told it is taken
    assert asked == [("a", False), ("b", False), ("a", True)]
    heap.done()
    assert heap.pop() == "b"


def test_pop_takes_the_best_anyway_rather_than_a_fitting_task_worth_less_than_the_floor() -> None:
    heap: TaskHeap[str] = TaskHeap()
    heap.push_all([("big", 1000, 0), ("near", 800, 1), ("small", 100, 2)])
    asked: list[tuple[str, bool]] = []

    def fits(task: str, taken: bool) -> bool:
        asked.append((task, taken))
        return task == "small"

    # "small" fits but is worth less than half of "big": never asked, "big" is taken anyway.
    assert heap.pop(fits, floor=0.5) == "big"
    assert asked == [("big", False), ("near", False), ("big", True)]
    heap.done()
    asked.clear()
    # Without a floor the same heap gives the fitting task.
    heap.push("big", 1000, 0)
    assert heap.pop(fits) == "small"
    assert asked == [("big", False), ("near", False), ("small", False)]


def test_a_declined_best_waits_for_a_running_task_to_end() -> None:
    heap: TaskHeap[str] = TaskHeap()
    heap.push_all([("running", 10, 0)])
    assert heap.pop() == "running"
    heap.push_all([("inside", 5, 1)])
    blocked = threading.Event()
    asked: list[tuple[str, bool]] = []
    got: list[str | None] = []

    def fits(task: str, taken: bool) -> bool:
        asked.append((task, taken))
        return taken and blocked.is_set()  # declined while "running" runs

    worker = start(lambda: got.append(heap.pop(fits)))
    wait_until_waiting(heap, 1)
    assert got == [] and asked == [("inside", False), ("inside", True)]
    blocked.set()
    heap.done()  # "running" ended: the worker looks again and takes it
    join_all([worker])
    assert got == ["inside"]


def test_a_declined_best_is_taken_when_no_task_runs() -> None:
    heap: TaskHeap[str] = TaskHeap()
    heap.push_all([("only", 5, 0)])
    # Nothing runs, so nothing could change what the heap holds: declining would hang.
    assert heap.pop(lambda task, taken: False) == "only"
