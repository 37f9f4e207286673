"""Inputs without a grammar (lang/frontends.py): the trees text and bytes are read as, checked as
node tables (pre-order, covering, linked), and real reductions of a configuration file, a log and
a binary file with real tests."""

from __future__ import annotations

import itertools
from pathlib import Path

from conftest import PYTHON, run_cli, run_tool
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.lang import frontends, languages
from treereduce_py.lang.syntax import NodeTable


def check_table(table: NodeTable) -> None:
    """The invariants the engine relies on: pre-order, nested spans, consistent links."""
    n = len(table)
    assert table.start[0] == 0 and table.end[0] == len(table.source)
    for i in range(1, n):
        p = table.parent[i]
        assert 0 <= p < i and table.depth[i] == table.depth[p] + 1
        assert table.start[p] <= table.start[i] <= table.end[i] <= table.end[p]
        assert table.contains(p, i) and i <= table.last[i] <= table.last[p]
    for i in range(n):
        kids = list(table.children(i))
        assert all(table.parent[k] == i for k in kids)
        assert all(table.end[a] <= table.start[b] for a, b in itertools.pairwise(kids))
        assert table.last[i] == (table.last[kids[-1]] if kids else i)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ()[]{}\"'\n\t#=,")), max_size=200))
def test_any_text_is_a_well_formed_table(text: str) -> None:
    check_table(frontends.table("text", text.encode()))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=5000))
def test_any_bytes_are_a_well_formed_table(data: bytes) -> None:
    table = frontends.table("bytes", data)
    check_table(table)
    leaves = [i for i in range(len(table)) if table.first_child[i] == -1 and i > 0]
    assert b"".join(table.text(i) for i in leaves) == data  # the chunks tile the input


def test_text_structure() -> None:
    source = b'[db]\nurl = "x(y"\nopts = f(g(1), [2])\n\nblock:\n  inner\n    deeper\nend\n'
    table = frontends.table("text", source)
    kinds = {table.text(i): table.kind_name(i) for i in range(len(table))}
    assert kinds[b"[db]"] == "group" and kinds[b"(g(1), [2])"] == "group"
    assert kinds[b"(1)"] == "group" and b"(y" not in b"".join(
        table.text(i) for i in range(len(table)) if table.kind_name(i) == "group"
    )  # a bracket inside a quoted string is not a group
    assert kinds[b"block:\n  inner\n    deeper\n"] == "block"
    assert kinds[b"  inner\n    deeper\n"] == "block"


def test_detection() -> None:
    assert languages.detect_kind(Path("app.conf"), b"key = value\n") == "text"
    assert languages.detect_kind(Path("crash-1234"), b"PK\x03\x04\x00\xff") == "bytes"
    assert languages.detect_kind(Path("x.py"), b"\xff") == "python"  # a grammar wins
    assert languages.canonical("TEXT") == "text" and languages.canonical("bytes") == "bytes"


def test_a_configuration_file_is_reduced_as_text(tmp_path: Path) -> None:
    sections = []
    for s in range(12):
        keys = "".join(f"option_{k} = value {s}-{k}\n" for k in range(8))
        sections.append(f"[section{s}]\n# comment {s}\n{keys}")
    sections.insert(7, "[broken]\nport = eighty\n")
    (tmp_path / "app.conf").write_text("\n".join(sections))
    check = tmp_path / "check.py"  # interesting while configparser reads a non-numeric port
    check.write_text(
        "import configparser, sys\n"
        "c = configparser.ConfigParser()\n"
        "c.read(sys.argv[1])\n"
        "try:\n"
        "    c.getint('broken', 'port')\n"
        "except ValueError:\n"
        "    sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    proc = run_cli(["app.conf", "-o", "out.conf", "--", PYTHON, check, "@@"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"reduced as text" in proc.stderr
    out = (tmp_path / "out.conf").read_bytes()
    assert len(out) < 40 and b"port" in out, out
    assert run_tool([PYTHON, check, tmp_path / "out.conf"], tmp_path).returncode == 0


def test_a_binary_file_is_reduced_byte_exact(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 8
    data = blob[:1000] + b"\x00MAGIC\xff\xfe" + blob[1000:]
    (tmp_path / "crash-feed").write_bytes(data)
    check = tmp_path / "check.py"  # interesting while the bytes hold the magic run
    check.write_text(
        "import sys\nsys.exit(0 if b'\\x00MAGIC\\xff' in open(sys.argv[1], 'rb').read() else 1)\n"
    )
    proc = run_cli(["crash-feed", "-o", "out.bin", "--", PYTHON, check, "@@"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"reduced as bytes" in proc.stderr
    assert (tmp_path / "out.bin").read_bytes() == b"\x00MAGIC\xff"
