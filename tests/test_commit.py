"""The commit service (engine/commit.py): the one way the best changes, and only with the judge's
yes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from treereduce_py import events, reduce
from treereduce_py.engine.commit import Committer
from treereduce_py.engine.output import BestSoFar
from treereduce_py.judge.check import SyntaxCheck
from treereduce_py.judge.judge import Interesting, Judge
from treereduce_py.judge.oracle import CallableOracle

ORIGINAL = b"a = 1\nb = 2\nkeep = 3\n"


class Service:
    """A committer over a judge whose test keeps b"keep", with an output file and its events."""

    def __init__(self, out: Path) -> None:
        self.judge = Judge(CallableOracle(lambda c: b"keep" in c), "python", syntax_strict=True)
        self.ask = self.judge.for_pass(check=SyntaxCheck("python"), max_errors=0)
        self.best = BestSoFar(out, ORIGINAL)
        self.events: list[events.Event] = []
        self.committer = Committer(self.judge, self.best, self.events.append, self.stats)

    def stats(self) -> events.Stats:
        return events.Stats(original_size=len(ORIGINAL), size=len(self.best.data))


def test_only_the_judge_says_a_candidate_is_interesting() -> None:
    with pytest.raises(TypeError, match="only the judge"):
        Interesting(b"anything", object())


def test_a_commit_writes_the_best_evicts_the_cache_and_emits_the_improvement(
    tmp_path: Path,
) -> None:
    service = Service(tmp_path / "out.py")
    assert service.ask(b"a = 1\nkeep = 3\n", 0) is not None  # 15 bytes, cached
    assert service.ask(b"x = 1\n", 0) is None  # 6 bytes, cached
    verdict = service.ask(b"keep = 3\n", 0)
    assert verdict is not None and len(service.judge.cache) == 3
    assert service.committer.commit(verdict)
    assert service.best.data == (tmp_path / "out.py").read_bytes() == b"keep = 3\n"
    # Only the longer one can never be asked again (one as long may be smaller: edit/order.py).
    assert len(service.judge.cache) == 2
    [improvement] = service.events
    assert isinstance(improvement, events.Improvement) and improvement.size == 9


def test_an_install_that_refuses_commits_nothing(tmp_path: Path) -> None:
    service = Service(tmp_path / "out.py")
    verdict = service.ask(b"keep = 3\n", 0)
    assert verdict is not None
    assert not service.committer.commit(verdict, install=lambda: False)
    assert service.best.data == ORIGINAL and not (tmp_path / "out.py").exists()
    assert service.events == [] and len(service.judge.cache) == 1


def test_commits_are_written_in_the_order_they_were_installed(tmp_path: Path) -> None:
    service = Service(tmp_path / "out.py")
    installed: list[bytes] = []
    lock = threading.Lock()

    def commit(candidate: bytes) -> None:
        verdict = service.ask(candidate, 0)
        assert verdict is not None

        def install() -> bool:
            with lock:
                installed.append(candidate)
            return True

        service.committer.commit(verdict, install)

    threads = [threading.Thread(target=commit, args=(b"keep = %d\n" % i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sizes = [e.size for e in service.events if isinstance(e, events.Improvement)]
    assert len(sizes) == 20
    assert service.best.data == (tmp_path / "out.py").read_bytes() == installed[-1]


def test_every_change_of_the_best_is_an_improvement_even_the_formatted_one(
    tmp_path: Path,
) -> None:
    # The formatter (a blank line after each line) grows the result; it is still interesting,
    # so it is committed like any other change: written, and announced.
    out = tmp_path / "out.py"
    seen: list[tuple[int, bytes]] = []

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.Improvement):
            seen.append((event.size, out.read_bytes()))

    result = reduce(
        ORIGINAL,
        language="python",
        test=lambda c: b"keep" in c,
        jobs=1,
        output=out,
        format_command=["sed", "G"],
        progress=on_event,
    )
    assert result.reduced == out.read_bytes() and result.reduced.endswith(b"\n\n")
    assert seen[-1] == (len(result.reduced), result.reduced)
