"""Checking an exported model (a shared library written by
:func:`xrelay.runtime.library.export_shared_library`) before it is loaded.

An export carries, in its read-only section ``.rodata.xrelay``:

* ``xrelay_header``: the magic ``XRELAYSO``, the artifact format version, the sizes
  of the weights blob and of the metadata, the version of xrelay that wrote it, and
  the SHA-256 of **the whole file** with the digest's own 32 bytes read as zeros
  (the code, the weights, the metadata, the ELF headers: every byte that is mapped);
* ``xrelay_weights``: the weights blob; ``xrelay_metadata``: the interface as JSON;

and, in the model's object code, ``xrelay_interface``: the SHA-256 of the metadata
the code was compiled for (:func:`xrelay.lowering.spec.interface_global`). The file's digest catches any
change to any byte (corruption, a patched instruction); the interface digest ties the
metadata to the code (a metadata edit whose file digest was recomputed still
disagrees with the code). The digest is no signature: whoever can write the file can
recompute it, so a library is as trustworthy as the folder it is loaded from.

:func:`check_artifact` reads the file's bytes once and checks, without running any
of it: the ELF header (64-bit, little-endian, shared object), that every program
header's segment and every section lies inside the file (a truncated file is refused
instead of faulting when mapped), the dynamic symbols xrelay needs and where they
point (the entry point must be a function in an executable segment; data symbols in
non-executable ones), the header's version, sizes and digest, the metadata (format,
the weights' layout inside the blob) and the interface digest. The loader then maps a
private copy of exactly those bytes (:mod:`xrelay.runtime.library`).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass

from xrelay.lowering.spec import INTERFACE_SYMBOL, ModelSpec, interface_digest
from xrelay.version import xrelay_version

MAGIC = b"XRELAYSO"
VERSION = 2
"""The artifact format (2: the digest covers the whole file; the writer's version)."""
HEADER_SYMBOL = "xrelay_header"
WEIGHTS_SYMBOL = "xrelay_weights"
METADATA_SYMBOL = "xrelay_metadata"
_HEADER = struct.Struct("<8sIIQQ32s32s")
"""magic, format version, reserved, weights size, metadata size, the writer's xrelay
version (NUL-padded), sha256 of the file (this field read as zeros)."""
_DIGEST_AT = _HEADER.size - 32
"""Where the digest lies in the header."""

_PT_LOAD = 1
_PF_X = 1
_SHT_SYMTAB = 2
_SHT_NOBITS = 8
_SHT_DYNSYM = 11
_STT_FUNC = 2
_STT_OBJECT = 1


class ArtifactError(ValueError):
    """Why a file is not a loadable xrelay model (one line)."""


def _version_field(version: str) -> bytes:
    return version.encode()[:32]


def header_bytes(weights_size: int, metadata_size: int, version: str) -> bytes:
    """The ``xrelay_header`` of an export, its digest zero (:func:`seal` fills it)."""
    return _HEADER.pack(
        MAGIC,
        VERSION,
        0,
        weights_size,
        metadata_size,
        _version_field(version),
        bytes(32),
    )


def file_digest(data: bytes | bytearray, header_offset: int) -> bytes:
    """The SHA-256 of ``data`` with the header's digest field read as zeros."""
    at = header_offset + _DIGEST_AT
    h = hashlib.sha256()
    view = memoryview(data)
    h.update(view[:at])
    h.update(bytes(32))
    h.update(view[at + 32 :])
    return h.digest()


def seal(data: bytearray) -> None:
    """Write the digest of a freshly linked export (:func:`file_digest`) into its
    header, in place."""
    segments = _segments(data)
    header_sym = _dynamic_symbols(data).get(HEADER_SYMBOL)
    if header_sym is None:
        raise ArtifactError(f"the linked library lacks {HEADER_SYMBOL}")
    h_off, _ = _file_range(segments, header_sym.value, _HEADER.size, HEADER_SYMBOL)
    at = h_off + _DIGEST_AT
    data[at : at + 32] = file_digest(data, h_off)


@dataclass
class _Segment:
    vaddr: int
    offset: int
    filesz: int
    executable: bool


@dataclass
class _Symbol:
    value: int
    size: int
    kind: int
    section: int


@dataclass
class CheckedArtifact:
    """What :func:`check_artifact` found: the spec, the weights' layout, and the
    file offsets of the weights blob."""

    spec: ModelSpec
    layout: list[tuple[int, int]]
    weights_offset: int
    weights_size: int


def _u(fmt: str, data: bytes | bytearray, offset: int) -> tuple[int, ...]:
    return struct.unpack_from("<" + fmt, data, offset)


def _segments(data: bytes | bytearray) -> list[_Segment]:
    size = len(data)
    (phoff,) = _u("Q", data, 32)
    phentsize, phnum = _u("HH", data, 54)
    if phentsize < 56 or phnum == 0 or phoff + phnum * phentsize > size:
        raise ArtifactError("program headers lie outside the file (truncated?)")
    out: list[_Segment] = []
    for i in range(phnum):
        base = phoff + i * phentsize
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz = _u(
            "IIQQQQQ", data, base
        )
        if p_type != _PT_LOAD:
            continue
        if p_offset + p_filesz > size or p_filesz > p_memsz:
            raise ArtifactError(
                f"a loadable segment ends at byte {p_offset + p_filesz}, past the end "
                f"of the file ({size} bytes): truncated"
            )
        out.append(_Segment(p_vaddr, p_offset, p_filesz, bool(p_flags & _PF_X)))
    if not out:
        raise ArtifactError("no loadable segment")
    return out


def _sections(data: bytes | bytearray) -> list[tuple[int, int, int, int, int]]:
    """``(type, offset, size, link, entsize)`` of every section header."""
    size = len(data)
    (shoff,) = _u("Q", data, 40)
    shentsize, shnum = _u("HH", data, 58)
    if shentsize < 64 or shnum == 0 or shoff + shnum * shentsize > size:
        raise ArtifactError("section headers lie outside the file (truncated?)")
    sections: list[tuple[int, int, int, int, int]] = []
    for i in range(shnum):
        base = shoff + i * shentsize
        _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize = _u(
            "IIQQQQIIQQ", data, base
        )
        if sh_type != _SHT_NOBITS and sh_offset + sh_size > size:
            raise ArtifactError("a section lies past the end of the file: truncated")
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_entsize))
    return sections


def _symbols(
    data: bytes | bytearray, sections: list[tuple[int, int, int, int, int]], table: int
) -> dict[str, _Symbol]:
    """The symbols of the symbol tables of type ``table`` (dynamic or static)."""
    symbols: dict[str, _Symbol] = {}
    for sh_type, off, sz, link, entsize in sections:
        if sh_type != table:
            continue
        if entsize < 24 or link >= len(sections):
            raise ArtifactError("malformed symbol table")
        _, str_off, str_size, _, _ = sections[link]
        for k in range(sz // entsize):
            st_name, st_info, _, st_shndx, st_value, st_size = _u(
                "IBBHQQ", data, off + k * entsize
            )
            if st_name >= str_size:
                raise ArtifactError("a symbol name lies outside the string table")
            end = data.find(b"\0", str_off + st_name, str_off + str_size)
            if end < 0:
                raise ArtifactError("unterminated symbol name")
            name = data[str_off + st_name : end].decode("latin-1")
            symbols[name] = _Symbol(st_value, st_size, st_info & 0xF, st_shndx)
    return symbols


def _dynamic_symbols(data: bytes | bytearray) -> dict[str, _Symbol]:
    return _symbols(data, _sections(data), _SHT_DYNSYM)


def object_interface(obj: bytes) -> bytes | None:
    """The 32 bytes of ``xrelay_interface`` in a relocatable object file (one of a
    model's objects: the compile cache checks them against the spec before the code
    is loaded); ``None`` when the object does not define it. :class:`ArtifactError`
    when the object is malformed."""
    if len(obj) < 64 or obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise ArtifactError("not a 64-bit little-endian ELF object")
    sections = _sections(obj)
    sym = _symbols(obj, sections, _SHT_SYMTAB).get(INTERFACE_SYMBOL)
    if sym is None or sym.section == 0 or sym.section >= len(sections):
        return None
    sh_type, off, sz, _, _ = sections[sym.section]
    if sh_type == _SHT_NOBITS or sym.value + 32 > sz:
        raise ArtifactError(f"{INTERFACE_SYMBOL} lies outside its section")
    return obj[off + sym.value : off + sym.value + 32]


def _file_range(
    segments: list[_Segment], vaddr: int, size: int, what: str
) -> tuple[int, bool]:
    """The file offset of ``size`` bytes at ``vaddr``, and whether they are
    executable; an error unless they lie inside one segment's file bytes."""
    for seg in segments:
        if seg.vaddr <= vaddr and vaddr + size <= seg.vaddr + seg.filesz:
            return seg.offset + (vaddr - seg.vaddr), seg.executable
    raise ArtifactError(f"{what} points outside the file's loadable bytes")


def check_artifact(data: bytes | bytearray) -> CheckedArtifact:
    """Check the bytes of an exported model (see the module docstring);
    :class:`ArtifactError` says what is wrong."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise ArtifactError("not a shared library (no ELF header)")
    if data[4] != 2 or data[5] != 1:
        raise ArtifactError("not a 64-bit little-endian shared library")
    (e_type,) = _u("H", data, 16)
    if e_type != 3:
        raise ArtifactError("not a shared library (ELF type is not ET_DYN)")
    segments = _segments(data)
    symbols = _dynamic_symbols(data)
    header_sym = symbols.get(HEADER_SYMBOL)
    if header_sym is None:
        if METADATA_SYMBOL in symbols:
            raise ArtifactError(
                "an xrelay model of an older format (no checked header): export it again"
            )
        raise ArtifactError(f"not an xrelay model (no {HEADER_SYMBOL})")
    h_off, h_exec = _file_range(segments, header_sym.value, 16, HEADER_SYMBOL)
    magic = bytes(data[h_off : h_off + 8])
    (version,) = _u("I", data, h_off + 8)
    if magic != MAGIC or h_exec:
        raise ArtifactError(f"not an xrelay model (bad {HEADER_SYMBOL})")
    ours = xrelay_version()
    if version != VERSION:
        raise ArtifactError(
            f"written by another xrelay (artifact format {version}; this is xrelay "
            f"{ours}, which reads format {VERSION}): export it again"
        )
    _file_range(segments, header_sym.value, _HEADER.size, HEADER_SYMBOL)
    _, _, _, w_size, m_size, writer, digest = _HEADER.unpack_from(data, h_off)
    writer = writer.rstrip(b"\0").decode("utf-8", "replace")
    if writer.encode()[:32] != _version_field(ours):
        raise ArtifactError(
            f"written by xrelay {writer}, this is xrelay {ours}: export it again with "
            "this version"
        )
    if file_digest(data, h_off) != digest:
        raise ArtifactError(
            "checksum mismatch: the file was changed after it was written (its code, "
            "weights, metadata or headers)"
        )
    places: dict[str, int] = {}
    for name, size in ((WEIGHTS_SYMBOL, w_size), (METADATA_SYMBOL, m_size)):
        sym = symbols.get(name)
        if sym is None:
            raise ArtifactError(f"not an xrelay model (no {name})")
        off, executable = _file_range(segments, sym.value, size, name)
        if executable:
            raise ArtifactError(f"{name} lies in an executable segment")
        places[name] = off
    w_off, m_off = places[WEIGHTS_SYMBOL], places[METADATA_SYMBOL]
    meta = bytes(data[m_off : m_off + m_size])
    try:
        spec, layout = ModelSpec.from_json(meta.decode())
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise ArtifactError(f"bad metadata: {e}") from None
    for off, n in layout:
        if off < 0 or n < 0 or off + n > w_size:
            raise ArtifactError(
                f"metadata: a weight at offset {off} of {n} bytes lies outside the "
                f"{w_size}-byte weights blob"
            )
    iface = symbols.get(INTERFACE_SYMBOL)
    if iface is None:
        raise ArtifactError(f"not an xrelay model (no {INTERFACE_SYMBOL})")
    i_off, _ = _file_range(segments, iface.value, 32, INTERFACE_SYMBOL)
    if data[i_off : i_off + 32] != interface_digest(meta):
        raise ArtifactError(
            "the metadata does not describe the compiled code (edited interface)"
        )
    entry = symbols.get(spec.entry)
    if entry is None or entry.kind != _STT_FUNC or entry.size == 0:
        raise ArtifactError(f"the entry point {spec.entry!r} is not a function")
    _, executable = _file_range(segments, entry.value, entry.size, spec.entry)
    if not executable:
        raise ArtifactError(f"the entry point {spec.entry!r} is not executable code")
    return CheckedArtifact(spec, layout, w_off, w_size)
