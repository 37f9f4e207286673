"""End-to-end tests for input without a grammar: the installed CLI on configuration files, a log
and binary files, each with a real test (Python's configparser, grep, Python's zipfile, a search
for a byte run), as a user would run them: no `-l`, the front end told from the file. Each result
is re-checked with the same test; a binary one must be the input's own bytes with some cut out
and some overwritten by zeros (edit/order.py), never re-encoded.

Timeouts here only detect hangs; nothing asserts how fast a reduction is.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path

import pytest
from conftest import PYTHON, RUN_PY, cut_or_lowered, run_cli, run_tool, succeeded, which

pytestmark = pytest.mark.e2e


def start_event(stderr: bytes) -> dict[str, object]:
    """The start event of a --json run."""
    for line in stderr.decode().splitlines():
        event = json.loads(line)
        if event["event"] == "start":
            return dict(event)
    raise AssertionError("no start event")


def config_file() -> bytes:
    """About 200 lines of INI with comments, interpolation, continued values and one bad key."""
    rng = random.Random(3)
    lines = ["# service configuration", "[DEFAULT]", "home = /srv/app", "log = %(home)s/log", ""]
    keys = ["host", "port", "user", "pool", "retries", "path", "level", "mode", "size", "limit"]
    values = ["localhost", "8080", "admin", "(a, b, [c, d])", "%(home)s/data", "true", "1024"]
    for section in [
        "server",
        "database",
        "cache",
        "queue",
        "worker",
        "mailer",
        "auth",
        "api",
        "ui",
    ]:
        lines.append(f"[{section}]")
        for k in range(rng.randint(14, 18)):
            lines.append(f"{rng.choice(keys)}_{k} = {rng.choice(values)}")
        lines.append("read_timeout = " + ("30s" if section == "worker" else "30"))
        lines += ["; how long a read may take", "description = a long value", "    over two lines"]
        lines.append("")
    return "\n".join(lines).encode() + b"\n"


# Reads every *timeout key as an integer: one of them is not.
CONFIG_CHECK = """\
import configparser, sys
config = configparser.ConfigParser()
config.read(sys.argv[1])
for section in config.sections():
    for key, value in config[section].items():
        if key.endswith("timeout"):
            int(value)
"""
CONFIG_ERROR = "invalid literal for int\\(\\) with base 10: '30s'"


def test_a_config_file_is_reduced_as_text_to_the_bad_key(tmp_path: Path) -> None:
    text = config_file()
    assert 190 <= text.count(b"\n") <= 220
    source = tmp_path / "app.conf"
    source.write_bytes(text)
    check = tmp_path / "check.py"
    check.write_text(CONFIG_CHECK)
    args = ["--exit-code", "1", "--stderr-regex", CONFIG_ERROR, "--", *RUN_PY, "./check.py", "@@"]

    proc = run_cli([source, "--json", "-j", "2", *args], tmp_path)

    succeeded(proc)
    assert start_event(proc.stderr)["front_end"] == "text"
    assert source.read_bytes() == text
    result = tmp_path / "reduced" / "app.conf"
    reduced = result.read_bytes()
    assert reduced.count(b"\n") <= 3, reduced
    assert reduced.startswith(b"[") and b"timeout = 30s" in reduced and len(reduced) <= 30
    again = run_tool([PYTHON, check, result], tmp_path)
    assert again.returncode == 1 and b"'30s'" in again.stderr


def test_a_log_is_reduced_as_text_with_grep(tmp_path: Path) -> None:
    grep = which("grep")
    rng = random.Random(5)
    lines = []
    for i in range(400):
        stamp = f"2026-11-25 08:{i // 60:02d}:{i % 60:02d}"
        lines.append(f"{stamp} [INFO] worker[{i % 4}] request id={rng.randint(1000, 9999)} ok")
        if i == 277:
            lines.append(f"{stamp} [ERROR] upstream (10.0.0.7:5432) failed: connection reset")
            lines.append("    at pool.acquire (pool.py:88)")
    text = "\n".join(lines).encode() + b"\n"
    source = tmp_path / "service.txt"
    source.write_bytes(text)

    proc = run_cli(
        [source, "-j", "2", "--", grep, "-qE", "ERROR.*connection reset", "@@"], tmp_path
    )

    err = succeeded(proc)
    assert "text (no grammar)" in err
    reduced = (tmp_path / "reduced" / "service.txt").read_bytes()
    assert len(reduced) <= len(b"ERROR connection reset\n"), reduced
    assert (
        run_tool(
            [grep, "-qE", "ERROR.*connection reset", tmp_path / "reduced" / "service.txt"], tmp_path
        ).returncode
        == 0
    )


ZIP_CHECK = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).testzip()"
ZIP_ERROR = "zlib.error: Error -3 while decompressing data"


def broken_zip() -> tuple[bytes, bytes]:
    """A small zip with its second member's deflate stream corrupted, inside random bytes (as a
    fuzzer leaves it): (the whole file, the zip alone)."""
    rng = random.Random(11)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in ("a", "b"):
            words = " ".join(rng.choice(["alpha", "beta", "gamma"]) for _ in range(12))
            z.writestr(name, words, compress_type=zipfile.ZIP_DEFLATED)
    archive = bytearray(buf.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(archive))).getinfo("b")
    data_at = info.header_offset + 30 + len(info.filename)
    for k in range(data_at, data_at + 5):  # the first block header: zlib raises
        archive[k] ^= 0x5A
    junk = bytes(rng.randrange(256) for _ in range(400)).replace(b"PK", b"pk")
    return junk + bytes(archive) + junk[:150], bytes(archive)


def test_a_broken_zip_is_reduced_as_bytes_byte_for_byte(tmp_path: Path) -> None:
    data, archive = broken_zip()
    source = tmp_path / "crash-0017"  # as a fuzzer names it: no extension
    source.write_bytes(data)
    test = [*RUN_PY, "-c", ZIP_CHECK]
    original = run_tool([*test, source], tmp_path)
    assert original.returncode == 1 and ZIP_ERROR.encode() in original.stderr

    args = ["--exit-code", "1", "--stderr-regex", ZIP_ERROR, "--", *test, "@@"]
    proc = run_cli([source, "--json", "-j", "2", "-o", tmp_path / "out", *args], tmp_path)

    succeeded(proc)
    assert start_event(proc.stderr)["front_end"] == "bytes"
    reduced = (tmp_path / "out").read_bytes()
    # The junk around the archive is gone; what stays are the input's bytes, in order, or lower.
    assert len(reduced) <= len(archive) < len(data)
    assert cut_or_lowered(reduced, data)
    again = run_tool([*test, tmp_path / "out"], tmp_path)
    assert again.returncode == 1 and ZIP_ERROR.encode() in again.stderr


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
