"""A zip archive as its members (lang/ziptree.py), and reduced member by member before its bytes
(run/archive.py)."""

from __future__ import annotations

import io
import threading
import zipfile
from pathlib import Path

from conftest import PYTHON
from hypothesis import given
from hypothesis import strategies as st

from treereduce_py import events
from treereduce_py.judge.oracle import CommandOracle, Oracle, Verdict, Wrapped
from treereduce_py.lang import ziptree
from treereduce_py.run import api


def archive(
    members: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED, comment: bytes = b""
) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.comment = comment
    return buf.getvalue()


def contents(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None
        return {i.filename: zf.read(i) for i in zf.infolist()}


MEMBERS = {
    "app/main.py": b"import util\nprint(util.f())\n" * 20,
    "README.txt": b"A small project.\n" * 50,
    "data.bin": bytes(range(256)) * 4,
    "caf\u00e9.txt": "\u00e9t\u00e9\n".encode(),
}


def test_an_archive_packs_back_to_its_members() -> None:
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        tree, layout = ziptree.read(archive(MEMBERS, method=method)) or (None, None)
        assert tree is not None and layout is not None
        assert {f.path: f.data for f in tree.files} == MEMBERS
        assert tree.get("app/main.py").kind == "python" and tree.get("data.bin").kind == "bytes"
        assert contents(ziptree.pack(tree, layout)) == MEMBERS
        some = tree.only(["README.txt", "caf\u00e9.txt"]).with_data("README.txt", b"x")
        assert contents(ziptree.pack(some, layout)) == {
            "README.txt": b"x",
            "caf\u00e9.txt": MEMBERS["caf\u00e9.txt"],
        }


def test_a_corrupted_member_is_kept_as_stored() -> None:
    members = {"good.txt": b"fine\n" * 30, "bad.txt": b"broken\n" * 30}
    data = bytearray(archive(members, method=zipfile.ZIP_STORED))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        bad = zf.getinfo("bad.txt")
    at = bad.header_offset + 30 + len("bad.txt") + 2
    data[at] ^= 0xFF  # a flipped byte of its data: its CRC no longer matches
    tree, layout = ziptree.read(bytes(data)) or (None, None)
    assert tree is not None and layout is not None
    assert layout.members["bad.txt"].raw and not layout.members["good.txt"].raw
    packed = ziptree.pack(tree, layout)
    with zipfile.ZipFile(io.BytesIO(packed)) as zf:
        assert zf.testzip() == "bad.txt"  # still corrupted, as the crash may need
        assert zf.read("good.txt") == b"fine\n" * 30


@given(st.binary(max_size=200))
def test_what_is_not_a_zip_is_not_read(data: bytes) -> None:
    assert ziptree.read(data) is None or data.startswith(b"PK\x03\x04")


CHECK = """import sys, zipfile
try:
    with zipfile.ZipFile(sys.argv[1]) as zf:
        sys.exit(0 if b"CRASH" in zf.read("deep/bug.txt") else 1)
except Exception:
    sys.exit(1)
"""


class _Counting(Wrapped):
    """`oracle`, counting the checks that reach it."""

    def __init__(self, oracle: Oracle) -> None:
        super().__init__(oracle)
        self.runs = 0
        self._lock = threading.Lock()

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        with self._lock:
            self.runs += 1
        return self.oracle.check(candidate, worker, timeout=timeout, capture=capture)


def test_a_zip_is_reduced_member_by_member(tmp_path: Path) -> None:
    check = tmp_path / "check.py"
    check.write_text(CHECK)
    members = {
        **MEMBERS,
        "deep/bug.txt": b"".join(b"line %d\n" % i for i in range(60)) + b"CRASH\n",
    }
    source = archive(members)
    seen: list[events.Event] = []
    with CommandOracle([PYTHON, "-S", str(check), "@@"], input_name="in.zip") as command:
        oracle = _Counting(command)
        result = api.reduce(source, language="bytes", test=oracle, jobs=2, progress=seen.append)
    # every run is counted, the member stage's too (it ran some, then the bytes stage)
    member_tests = max(e.tree_tests or 0 for e in seen if isinstance(e, events.InFile))
    assert result.stats.tests == oracle.runs > member_tests > 0
    left = contents(result.reduced)
    assert list(left) == ["deep/bug.txt"] and left["deep/bug.txt"].strip() == b"CRASH"
    assert len(result.reduced) < len(source) / 4
    notices = [e.message for e in seen if isinstance(e, events.Notice)]
    assert any("reducing its members first" in n for n in notices)


def test_an_archive_that_does_not_pack_back_is_reduced_as_bytes(tmp_path: Path) -> None:
    check = tmp_path / "check.py"
    check.write_text(
        "import sys\nsys.exit(0 if b'keep-me' in open(sys.argv[1], 'rb').read() else 1)\n"
    )
    source = archive(MEMBERS, comment=b"keep-me")  # the packed archive has no comment
    seen: list[events.Event] = []
    with CommandOracle([PYTHON, "-S", str(check), "@@"], input_name="in.zip") as oracle:
        result = api.reduce(source, language="bytes", test=oracle, jobs=2, progress=seen.append)
    assert result.reduced == b"keep-me"
    notices = [e.message for e in seen if isinstance(e, events.Notice)]
    assert any("not interesting" in n and "reducing bytes" in n for n in notices)
