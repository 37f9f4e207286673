"""Tests for engine.output: atomic writes that never leave a partial or temporary file, the
default output name, file modes, and BestSoFar's ordering of writes under threads.
"""

from __future__ import annotations

import itertools
import os
import stat
import threading
from pathlib import Path

import pytest

from treereduce_py.engine import output
from treereduce_py.engine.output import BestSoFar, OutputError, default_output_path, write_atomic


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# --- default_output_path -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("crash.c", "reduced/crash.c"),
        ("dir/sub/test.py", "dir/sub/reduced/test.py"),
        ("/abs/x.rs", "/abs/reduced/x.rs"),
        ("Makefile", "reduced/Makefile"),
        ("a.tar.gz", "reduced/a.tar.gz"),
        (".bashrc", "reduced/.bashrc"),
        ("reduced/Main.java", "reduced/reduced/Main.java"),
    ],
)
def test_default_output_path_keeps_the_file_name_in_a_reduced_directory(
    given: str, expected: str
) -> None:
    assert default_output_path(Path(given)) == Path(expected)


# --- write_atomic ------------------------------------------------------------------------------


def test_write_atomic_creates_and_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "out.c"
    write_atomic(target, b"first\x00\r\n")
    assert target.read_bytes() == b"first\x00\r\n"
    write_atomic(target, b"")
    assert target.read_bytes() == b""
    assert os.listdir(tmp_path) == ["out.c"]  # no temporary file left


def test_write_atomic_to_a_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic(Path("rel.txt"), b"x")
    assert (tmp_path / "rel.txt").read_bytes() == b"x"
    assert os.listdir(tmp_path) == ["rel.txt"]


def test_a_failed_rename_keeps_the_old_content_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.c"
    target.write_bytes(b"old content")
    seen: list[bytes] = []

    def failing_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        seen.append(Path(src).read_bytes())  # the new content was fully written first
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OutputError, match=r"out\.c"):
        write_atomic(target, b"new content")
    assert seen == [b"new content"]
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["out.c"]


def test_an_interrupt_during_the_write_keeps_the_old_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.c"
    target.write_bytes(b"old content")

    def interrupted(path: str | os.PathLike[str], mode: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "chmod", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new content", mode=0o644)
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["out.c"]


def test_the_data_is_fsynced_before_the_rename_and_the_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.c"
    target.write_bytes(b"old content")
    calls: list[tuple[str, int | None]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            calls.append(("fsync dir", None))
        else:
            calls.append(("fsync file", os.fstat(fd).st_size))  # all of the data was written
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(("replace", None))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomic(target, b"new content")
    assert target.read_bytes() == b"new content"
    expected = [("fsync file", len(b"new content")), ("replace", None)]
    if os.name == "posix":
        expected.append(("fsync dir", None))
    assert calls == expected


def test_an_unwritable_place_raises_output_error_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "out.c"
    with pytest.raises(OutputError, match="no-such-dir"):
        write_atomic(missing, b"x")
    directory = tmp_path / "a-directory"
    directory.mkdir()
    with pytest.raises(OutputError, match="a-directory"):
        write_atomic(directory, b"x")  # renaming a file over a directory fails
    assert sorted(os.listdir(tmp_path)) == ["a-directory"]
    assert os.listdir(directory) == []


def test_write_atomic_modes(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.sh"
    write_atomic(fresh, b"new")
    assert mode_of(fresh) == 0o666 & ~current_umask()  # like any newly created file
    write_atomic(fresh, b"x", mode=0o751)
    assert mode_of(fresh) == 0o751
    write_atomic(fresh, b"y")  # replacing a file keeps its mode
    assert mode_of(fresh) == 0o751
    assert fresh.read_bytes() == b"y"


# --- BestSoFar ---------------------------------------------------------------------------------


def test_offers_are_written_through(tmp_path: Path) -> None:
    target = tmp_path / "best.c"
    best = BestSoFar(target, b"initial")
    assert not target.exists()  # nothing is written before there is something better
    best.offer(b"smaller")
    assert target.read_bytes() == b"smaller"
    assert best.data == b"smaller"
    best.offer(b"tiny")
    best.flush()
    best.emit()
    assert target.read_bytes() == b"tiny"
    assert os.listdir(tmp_path) == ["best.c"]


def test_flush_writes_the_initial_data_when_nothing_was_offered(tmp_path: Path) -> None:
    target = tmp_path / "best.sh"
    BestSoFar(target, b"initial", mode=0o700).flush()
    assert target.read_bytes() == b"initial"
    assert mode_of(target) == 0o700


def test_an_older_offer_never_overwrites_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "best.c"
    best = BestSoFar(target, b"initial")
    real_write = BestSoFar._write
    newer_written = threading.Event()

    def slow_write(self: BestSoFar, seq: int, data: bytes) -> None:
        if data == b"older":  # the older offer reaches the disk only after the newer one
            assert newer_written.wait(30)
        real_write(self, seq, data)

    monkeypatch.setattr(BestSoFar, "_write", slow_write)
    older = threading.Thread(target=best.offer, args=(b"older",))
    older.start()
    best.offer(b"newer")
    assert target.read_bytes() == b"newer"
    newer_written.set()
    older.join(30)
    assert not older.is_alive()
    assert target.read_bytes() == b"newer"
    assert best.data == b"newer"


def test_concurrent_offers_reach_the_disk_in_offer_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered: list[bytes] = []  # in the order offers took effect

    class Logged(BestSoFar):
        # `offer` sets `data` under its lock, together with the sequence number.
        @property
        def data(self) -> bytes:
            return self._data

        @data.setter
        def data(self, value: bytes) -> None:
            self._data = value
            offered.append(value)

    written: list[bytes] = []
    real = output.write_atomic

    def recording(path: Path, data: bytes, mode: int | None = None) -> None:
        written.append(data)
        real(path, data, mode)

    monkeypatch.setattr(output, "write_atomic", recording)
    target = tmp_path / "best.c"
    best = Logged(target, b"initial")
    barrier = threading.Barrier(4)

    def worker(me: int) -> None:
        barrier.wait()
        for k in range(50):
            best.offer(b"%d-%d" % (me, k))

    threads = [threading.Thread(target=worker, args=(me,)) for me in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    best.flush()
    assert target.read_bytes() == best.data
    assert len(written) == len(set(written))
    positions = [offered.index(w) for w in written]
    assert positions == sorted(positions)  # never an older best after a newer one
    assert os.listdir(tmp_path) == ["best.c"]


def test_stdout_mode_writes_nothing_until_emit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.chdir(tmp_path)

    def no_write(path: Path, data: bytes, mode: int | None = None) -> None:
        raise AssertionError("stdout mode wrote a file")

    monkeypatch.setattr(output, "write_atomic", no_write)
    best = BestSoFar(None, b"initial")
    best.offer(b"smaller")
    best.offer(b"tiny\x00")
    best.flush()
    assert capsysbinary.readouterr().out == b""
    best.emit()
    assert capsysbinary.readouterr().out == b"tiny\x00"
    assert os.listdir(tmp_path) == []


def test_best_so_far_keeps_its_history_and_steps_back(tmp_path: Path) -> None:
    target = tmp_path / "out"
    best = BestSoFar(target, b"initial data")
    bests = [b"x" * n for n in (9, 7, 5, 3)]
    for data in bests:
        best.offer(data)
    assert best.history() == [b"initial data", *bests]
    best.back_to(best.history()[2])
    assert best.data == b"x" * 7 and target.read_bytes() == b"x" * 7
    assert best.history() == [b"initial data", b"x" * 9, b"x" * 7]
    best.offer(b"y")
    assert best.history()[-1] == b"y"


def test_best_so_far_thins_a_long_history_keeping_first_and_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(output, "HISTORY_BYTES", 100)
    best = BestSoFar(None, b"i" * 10)  # may hold 100 + 2 * 10 bytes
    offered = [bytes([65 + k]) * 10 for k in range(40)]
    for data in offered:
        best.offer(data)
        history = best.history()
        assert sum(map(len, history)) <= 120
        assert history[0] == b"i" * 10 and history[-1] == data
        assert all(offered.index(a) < offered.index(b) for a, b in itertools.pairwise(history[1:]))
    assert len(best.history()) >= 6  # thinned, not emptied
