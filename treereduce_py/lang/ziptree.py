"""A zip archive as a tree of its members, and the archive packed back from any subset of them.

A byte-level reducer cannot shrink a zip much: every member's offset is written in the central
directory, so deleting bytes breaks the container long before it reaches what the crash needs.
Read as its members instead, an archive (a zip, a jar, an .apk, a .docx) is a directory: whole
members can go, and each one left can be reduced through its own front end (by its name: its
grammar, text or bytes), the archive packed again around them for every test.

`read` takes an archive apart: each member's name, its content and how it was stored (method,
date, attributes). A member whose data does not inflate to its recorded CRC (a corrupted or
encrypted one, or one compressed with a method other than stored or deflate) is kept as it is
stored, its recorded CRC and size written back unchanged around whatever its bytes become: a
crash that needs a corrupted member keeps it corrupted. `pack` writes a plain archive (no data
descriptors, extra fields or comments; members in their original order), deflating what was
deflated. An archive that this cannot describe (zip64, a name twice, anything before the first
member) is not read (None); whether the packed original still shows the problem is for the
test to say, and the caller asks it first.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass

from treereduce_py.lang import languages
from treereduce_py.lang.filetree import FileTree, TreeFile

_LOCAL = struct.Struct("<IHHHHHIIIHH")  # signature ... name length, extra length
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_LOCAL_SIG, _CENTRAL_SIG, _END_SIG = 0x04034B50, 0x02014B50, 0x06054B50
_UTF8 = 0x800  # general purpose flag bit 11: the name is UTF-8
_KEPT_FLAGS = 0x0006  # the deflate level bits; encryption and data descriptors are not kept
_MAX16, _MAX32 = 0xFFFF, 0xFFFFFFFF
# A member inflating to more than this is kept as stored (a zip bomb stays a small input).
MAX_MEMBER = 64 * 1024 * 1024


@dataclass(frozen=True)
class Member:
    """How one member is stored: `raw` members keep their bytes as stored and their recorded
    CRC and size; the others are written back with `method` from their content."""

    method: int
    flags: int
    time: int
    date: int
    version: int
    made_by: int
    external: int
    raw: bool = False
    crc: int = 0
    size: int = 0


@dataclass(frozen=True)
class Layout:
    """The members' storage by name, and their order in the archive."""

    members: dict[str, Member]
    order: tuple[str, ...]


def read(data: bytes) -> tuple[FileTree, Layout] | None:
    """The archive's members as a tree and how to pack them again (in its order); None when
    `data` is not a zip archive this module can describe (see the module docstring). Never
    raises."""
    if not data.startswith(b"PK\x03\x04"):
        return None
    try:
        infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except Exception:  # a fuzzer's file breaks zipfile in many ways (a bad UTF-8 name ...)
        return None
    names = [i.filename for i in infos]
    if not infos or len(set(names)) < len(names) or len(infos) >= _MAX16:
        return None
    if any(max(i.file_size, i.compress_size, i.header_offset) >= _MAX32 for i in infos):
        return None  # zip64: `pack` writes 32-bit sizes and offsets
    files, members = [], {}
    for info in infos:
        stored = _stored_bytes(data, info)
        if stored is None:
            return None
        content = _inflated(stored, info)
        raw = content is None
        flags = info.flag_bits & _KEPT_FLAGS
        members[info.filename] = Member(
            method=info.compress_type,
            flags=flags,
            time=_dos_time(info),
            date=_dos_date(info),
            version=info.extract_version,
            made_by=(info.create_system << 8) | info.create_version,
            external=info.external_attr,
            raw=raw,
            crc=info.CRC,
            size=info.file_size,
        )
        body = stored if content is None else content
        kind = "bytes" if raw else languages.detect_kind(info.filename, body)
        files.append(TreeFile(info.filename, body, 0o644, kind))
    files.sort(key=lambda f: f.path)
    return FileTree(tuple(files)), Layout(members, tuple(names))


def pack(tree: FileTree, layout: Layout) -> bytes:
    """The archive of `tree`'s members (each stored as `layout` says), in the original order."""
    out = bytearray()
    central = []
    by_name = {f.path: f for f in tree.files}
    for name in layout.order:
        f = by_name.get(name)
        if f is None:
            continue
        m = layout.members[name]
        stored, crc, size = _store(f.data, m)
        encoded, utf8 = _encode_name(name)
        flags = m.flags | (_UTF8 if utf8 else 0)
        offset = len(out)
        sizes = (crc, len(stored), size, len(encoded))
        common = (m.version, flags, m.method, m.time, m.date, *sizes)
        out += _LOCAL.pack(_LOCAL_SIG, *common, 0) + encoded + stored
        entry = _CENTRAL.pack(_CENTRAL_SIG, m.made_by, *common, 0, 0, 0, 0, m.external, offset)
        central.append(entry + encoded)
    directory = b"".join(central)
    start = len(out)
    out += directory
    out += _END.pack(_END_SIG, 0, 0, len(central), len(central), len(directory), start, 0)
    return bytes(out)


def _stored_bytes(data: bytes, info: zipfile.ZipInfo) -> bytes | None:
    """A member's bytes as stored, found through its local header; None when the header is
    not there or the bytes run past the end."""
    at = info.header_offset
    if at + _LOCAL.size > len(data):
        return None
    fields = _LOCAL.unpack_from(data, at)
    if fields[0] != _LOCAL_SIG:
        return None
    start = at + _LOCAL.size + fields[9] + fields[10]
    end = start + info.compress_size
    return data[start:end] if end <= len(data) else None


def _inflated(stored: bytes, info: zipfile.ZipInfo) -> bytes | None:
    """The member's content when it is stored or deflated, not encrypted, and inflates to its
    recorded size and CRC; None otherwise (it is kept raw)."""
    if info.flag_bits & 1 or info.file_size > MAX_MEMBER:
        return None
    if info.compress_type == zipfile.ZIP_STORED:
        content = stored
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        inflater = zlib.decompressobj(-15)
        try:
            content = inflater.decompress(stored, info.file_size + 1)
        except zlib.error:
            return None
    else:
        return None
    ok = len(content) == info.file_size and zlib.crc32(content) == info.CRC
    return content if ok else None


def _store(data: bytes, m: Member) -> tuple[bytes, int, int]:
    """A member's bytes as stored, its CRC and its size."""
    if m.raw:
        return data, m.crc, m.size
    crc = zlib.crc32(data)
    if m.method == zipfile.ZIP_DEFLATED:
        deflater = zlib.compressobj(6, zlib.DEFLATED, -15)
        return deflater.compress(data) + deflater.flush(), crc, len(data)
    return data, crc, len(data)


def _encode_name(name: str) -> tuple[bytes, bool]:
    """A member's name as written, and whether it needs the UTF-8 flag."""
    try:
        return name.encode("ascii"), False
    except UnicodeEncodeError:
        return name.encode("utf-8"), True


def _dos_time(info: zipfile.ZipInfo) -> int:
    _, _, _, hour, minute, second = info.date_time
    return (hour << 11) | (minute << 5) | (second // 2)


def _dos_date(info: zipfile.ZipInfo) -> int:
    year, month, day, *_ = info.date_time
    return ((year - 1980) << 9) | (month << 5) | day
