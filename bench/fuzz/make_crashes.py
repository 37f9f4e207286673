"""A fuzzer's crash folder, made on this machine: a seeded mutation fuzzer against zipfile
(the standard library's harness) or `records` (records.c built with AddressSanitizer).

Real crash folders are what batch mode is for, so this one is made the way a fuzzing campaign
makes them: valid zip archives as seeds, havoc-style mutations (bit flips, interesting integers,
byte runs deleted, duplicated or overwritten), the harness `zipfile_target.py` run in-process on
each candidate, and every input that raises something other than BadZipFile/LargeZipFile kept,
named as AFL++ (`id:000016,sig:00,src:000003,time:...,execs:...,op:havoc,rep:4`) or libFuzzer
(`crash-<sha1>`) name them, extensionless, beside AFL++'s `README.txt` and a `.state/` folder.
The same crash comes with many messages (`negative seek value -11`, `-16`, ...), which is what
grouping by stack must see through. `--expect FILE` writes the ground truth: each file's crash
as the exception type and the innermost frame's function, from a real run of the harness.

With `--target records --binary PATH`, the seeds are small record files and each candidate
runs the ASan-built binary (a process per input, as a fuzzer without in-process mode does); the
kept crashes are ASan reports (a null read, a heap overflow, a stack overflow) and an abort.

    python bench/fuzz/make_crashes.py OUTDIR [--target zipfile|records] [--binary PATH]
        [--seed 1] [--per-crash 6] [--execs 200000] [--expect FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import signal
import struct
import subprocess
import sys
import traceback
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE / "zipfile_target.py"
INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]


def record_seeds() -> list[bytes]:
    """Valid record files: names, tables, nested records, scales and unknown types."""

    def rec(kind: bytes, payload: bytes) -> bytes:
        return kind + bytes([len(payload)]) + payload

    body = [
        rec(b"N", b"widget-name-" * 3),
        rec(b"T", bytes(range(32, 72))),
        rec(b"D", b"D\x00" * 2),
        rec(b"X", b"\x40\x02"),
        rec(b"C", b"comment " * 5),
    ]
    return [b"RECS" + b"".join(body[i:] + body[:i]) for i in range(len(body))]


def run_records(binary: Path, data: bytes) -> tuple[str, str] | None:
    """One run of the ASan-built binary: (ASan's bug kind or the signal, the top frame)."""
    done = subprocess.run(
        [str(binary)], input=data, capture_output=True, timeout=10,
        env={"ASAN_OPTIONS": "detect_leaks=0"},
    )  # fmt: skip
    if done.returncode == 0:
        return None
    err = done.stderr.decode(errors="replace")
    kind = next(
        (
            line.split("Sanitizer: ")[1].split()[0]
            for line in err.splitlines()
            if "Sanitizer: " in line
        ),
        f"signal {-done.returncode}",
    )
    frame = next((line.split(" in ")[1].split()[0] for line in err.splitlines()
                  if line.strip().startswith("#0 ")), "?")  # fmt: skip
    return kind, frame


def seeds() -> list[bytes]:
    """Small valid archives: stored and deflated members, a comment, a directory entry."""
    out = []
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as z:
            z.writestr("a.txt", b"hello zip " * 8)
            z.writestr("dir/", b"")
            z.writestr("b.bin", bytes(range(64)))
            z.comment = b"seed"
        out.append(buf.getvalue())
    return out


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 2, 4, 8))):
        op = rng.randrange(6)
        if not b:
            break
        i = rng.randrange(len(b))
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[i] = rng.randrange(256)
        elif op in (2, 3):
            width, fmt = (2, "<H") if op == 2 else (4, "<I")
            value = rng.choice(INTERESTING) & (0xFFFF if width == 2 else 0xFFFFFFFF)
            value = (value + rng.randrange(-16, 17)) % (1 << (8 * width))
            b[i : i + width] = struct.pack(fmt, value)[: len(b) - i]
        elif op == 4:
            del b[i : i + rng.randrange(1, 32)]
        else:
            j = rng.randrange(len(b))
            b[i:i] = b[j : j + rng.randrange(1, 32)]
    return bytes(b)


def crash_of(data: bytes) -> tuple[str, str] | None:
    """Run the harness in-process: the crash as (exception type, innermost function), or None."""
    signal.alarm(2)
    try:
        try:
            zipfile.ZipFile(io.BytesIO(data)).testzip()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, TimeoutError):
            return None
        except Exception as e:  # a crash: what the fuzzer keeps
            return type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].name
        finally:
            signal.alarm(0)
    except TimeoutError:  # the alarm came while the exception was being read
        return None
    return None


def _alarm(signum: int, frame: object) -> None:
    raise TimeoutError


def fuzz(
    outdir: Path, seed: int, per_crash: int, execs: int, binary: Path | None = None
) -> dict[str, list[str]]:
    """Fill outdir/crashes with at most `per_crash` files per distinct crash; the kinds found.
    With `binary`, the target is records.c's ASan build; else zipfile in-process."""
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(seed)
    corpus = seeds() if binary is None else record_seeds()
    crashes = outdir / "crashes"
    crashes.mkdir(parents=True)
    (crashes / ".state").mkdir()
    (crashes / ".state" / "auto_extras").write_bytes(b"")
    (crashes / "README.txt").write_text(
        "Command line used to find this crash:\n\n"
        + ("python3 zipfile_target.py @@\n" if binary is None else "./records @@\n")
    )
    kinds: dict[str, list[str]] = {}
    seen: set[bytes] = set()
    for n in range(execs):
        src = rng.randrange(len(corpus))
        data = mutate(corpus[src], rng)
        if data in seen:
            continue
        seen.add(data)
        kind = crash_of(data) if binary is None else run_records(binary, data)
        if kind is None:
            if len(corpus) < 64 and rng.random() < 0.01:
                corpus.append(data)  # a little coverage-blind diversity
            continue
        key = ":".join(kind)
        names = kinds.setdefault(key, [])
        if len(names) >= per_crash:
            continue
        count = sum(len(v) for v in kinds.values()) - 1
        if count % 3 == 2:
            name = "crash-" + hashlib.sha1(data).hexdigest()
        else:
            name = f"id:{count:06d},sig:00,src:{src:06d},time:{n},execs:{n},op:havoc,rep:4"
        (crashes / name).write_bytes(data)
        names.append(name)
    return kinds


def verify(crashes: Path, binary: Path | None = None) -> dict[str, str]:
    """Each kept file's crash from a real run of the harness (type and innermost function)."""
    truth = {}
    for path in sorted(p for p in crashes.iterdir() if p.is_file() and p.name != "README.txt"):
        if binary is not None:
            found = run_records(binary, path.read_bytes())
            truth[path.name] = ":".join(found) if found else "clean"
            continue
        done = subprocess.run(
            [sys.executable, str(TARGET), str(path)], capture_output=True, timeout=30
        )
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        frames = [line.strip() for line in lines if line.strip().startswith("File ")]
        func = frames[-1].rsplit(" in ", 1)[-1] if frames else "?"
        kind = lines[-1].split(":")[0] if lines else "clean"
        truth[path.name] = f"{kind}:{func}"
    return truth


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir", type=Path)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-crash", type=int, default=6)
    p.add_argument("--execs", type=int, default=200_000)
    p.add_argument("--expect", type=Path, help="write each file's crash (ground truth) here")
    p.add_argument("--target", choices=("zipfile", "records"), default="zipfile")
    p.add_argument("--binary", type=Path, help="records.c built with -fsanitize=address")
    args = p.parse_args()
    if (args.target == "records") != (args.binary is not None):
        p.error("--target records needs --binary (and only it)")
    binary = args.binary.resolve() if args.binary else None
    kinds = fuzz(args.outdir, args.seed, args.per_crash, args.execs, binary)
    truth = verify(args.outdir / "crashes", binary)
    for key, names in sorted(kinds.items()):
        print(f"{len(names):3d} files  {key}")
    if args.expect:
        args.expect.write_text(json.dumps(truth, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
