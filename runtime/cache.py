"""The compile cache: ``xrelay.build`` of a module built before loads the object
code, the weights and the interface from disk instead of compiling.

Where: ``$XRELAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/xrelay``, else
``~/.cache/xrelay``. ``build(..., cache=False)`` and ``xrelay-run --no-cache`` bypass
it; so does a build whose PassContext has instruments (they would see no pass run).

The key (:func:`build_key`) is a SHA-256 of everything the compiled code depends on:
the input IR (ops, attributes, types; constants and params by their raw bytes, never
printed), the entry, the opt level, the required and disabled passes and the pass
config, the host CPU name and features and the CPUs the process may use, the
tile-size override, the sharing and overlap settings, and the versions of
xrelay (with the path, size and modification time of each of its source files, the
test by which Python itself decides that a ``.pyc`` is stale), xDSL, llvmlite, LLVM
and Python.

One entry is one file ``<key>.xrc``: a magic string, the length of a JSON header,
the SHA-256 of the header, the header (format, key, the spec with the weights'
layout, the sizes of the parts and the SHA-256 of the payload), then the payload:
the object code (one object per part of a model compiled in parts,
:mod:`xrelay.runtime.jit`), weights blob, LLVM IR text and, when kept, the
memref-level IR. Every byte read back is covered by a digest. An entry is read whole
and checked before any of it is used: size, key, both digests, the weights' layout,
and the interface the object code was compiled for (its ``xrelay_interface``, read
from the object file before the code is loaded) against the header's spec, so an
entry whose spec (arena size, shapes, entry point) does not describe its code is
never run. A bad entry is deleted and the model rebuilt. Entries are written to a
temporary file in the cache folder and renamed into place, so concurrent builds of
the same module never see half an entry.

Trust (:mod:`xrelay.runtime.trust`): an entry is code the user runs, so only files
the user (or root) wrote are loaded. The folder is created ``0700`` and entries are
written ``0600``; a folder (or a folder above it) that another user owns or can
write is not used at all, and an entry owned or writable by another user is ignored;
both with a one-line warning, and the model is built privately. A team shares a
cache through a group (``$XRELAY_CACHE_GROUP``). Entries are opened without
following links and must be regular files (a FIFO is never waited on).

Size: the folder holds at most ``$XRELAY_CACHE_MAX_MB`` MiB of entries (default
2048). After each store the least recently used entries go (a hit marks its entry
used: its modification time), never the one just written; temporary files a killed
writer left behind go once they are an hour old. :func:`trim` does the same on
demand and :func:`clear` empties the folder of entries. The cache only ever removes
files named as it names its own: ``<64 hex digits>[-profile].xrc`` entries and
``.xrelay-tmp-*.part`` temporaries; anything else in the folder is left alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from xrelay.lowering.work import host_threads
from xrelay.runtime import trust
from xrelay.runtime.artifact import ArtifactError, interface_digest, object_interface
from xrelay.runtime.executor import aligned_empty
from xrelay.runtime.files import open_regular
from xrelay.runtime.spec import ModelSpec
from xrelay.target import current_target_text

ENV = "XRELAY_CACHE_DIR"
MAX_ENV = "XRELAY_CACHE_MAX_MB"
DEFAULT_MAX_MB = 2048
STALE_TMP_SECONDS = 3600.0
MAGIC = b"XRELAYC\x03"
FORMAT = "xrelay-cache-3"
"""Bumped whenever the layout changes (2: several objects; 3: the header's digest,
the interface check); other formats are stale."""
SUFFIX = ".xrc"
_HEADER_LIMIT = 1 << 26
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}(-profile)?\.xrc")
_TMP_PREFIX = ".xrelay-tmp-"
_TMP_NAME = re.compile(r"\.xrelay-tmp-[0-9a-f]{16}-[A-Za-z0-9_]+\.part")


class CacheWarning(UserWarning):
    """The compile cache is not used, or not for this entry (one line)."""


def _warn(message: str) -> None:
    warnings.warn(f"xrelay: {message}", CacheWarning, stacklevel=4)


class CacheEntryError(ValueError):
    """A cache entry that cannot be used (truncated, corrupt, stale)."""


class UntrustedEntry(CacheEntryError):
    """An entry another user owns or can write: ignored, never loaded."""


def cache_dir() -> Path:
    """The cache folder (see the module docstring); not created here."""
    env = os.environ.get(ENV, "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "xrelay"


def usable_folder(create: bool) -> Path | None:
    """The cache folder when it may be used (trusted, :mod:`xrelay.runtime.trust`),
    created private when ``create``; ``None`` (with a one-line warning) when it
    may not, or (silently) when it does not exist and ``create`` is false."""
    folder = cache_dir()
    try:
        group = trust.shared_group()
    except trust.TrustError as e:
        _warn(f"not using the compile cache: {e}")
        return None
    if not folder.exists():
        if not create:
            return None
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            try:
                folder.mkdir(mode=trust.folder_mode(group))
                os.chmod(folder, trust.folder_mode(group))  # whatever the umask
            except FileExistsError:
                pass  # made by a concurrent build meanwhile: checked below
        except OSError as e:
            _warn(f"cannot write the compile cache in {folder}: {e.strerror or e}")
            return None
    why = trust.folder_problem(folder, group)
    if why is not None:
        _warn(
            f"not using the compile cache {folder}: {why} (only a private folder, "
            f"or one shared through ${trust.GROUP_ENV}, is trusted)"
        )
        return None
    return folder


# -- the key ---------------------------------------------------------------------------


@cache
def _toolchain() -> str:
    """Versions of everything that generates code, and a digest of the path, size
    and modification time of xrelay's sources (a development checkout changes its
    code without changing its version; Python's own bytecode cache trusts the same
    two figures, and reading every source costs a warm build 20-100 ms)."""
    import llvmlite
    import llvmlite.binding as llvm
    import xdsl

    from xrelay.runtime.jit import host_target

    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    try:
        from importlib.metadata import version

        h.update(version("xrelay").encode())
    except Exception:  # not installed: the source digest alone
        pass
    pkg = Path(sys.modules["xrelay"].__file__ or root).resolve().parent
    for base in sorted({root, pkg.parent}):
        for sub in ("xrelay", "dialects", "pass_manager", "transforms", "lowering",
                    "runtime", "frontend"):  # fmt: skip
            folder = base / sub
            if not folder.is_dir():
                continue
            for f in sorted(folder.rglob("*.py")):
                st = f.stat()
                h.update(
                    f"{f.relative_to(base)} {st.st_size} {st.st_mtime_ns}\n".encode()
                )
    cpu, features = host_target()
    return "\n".join(
        [
            FORMAT,
            h.hexdigest(),
            f"xdsl {xdsl.__version__}",
            f"llvmlite {llvmlite.__version__}",
            f"llvm {'.'.join(map(str, llvm.llvm_version_info))}",
            f"python {sys.version_info[:3]}",
            f"cpu {cpu} {features}",
        ]
    )


class _KeyWriter:
    """The module's part of the key: small pieces gathered and hashed together,
    constants' raw bytes hashed as they are; each distinct attribute printed once
    (equal attributes print equal: one dictionary lookup instead of xDSL's printer
    for every repeated type and attribute)."""

    def __init__(self, h: Any) -> None:
        self.h = h
        self.pieces: list[bytes] = []
        self.printed: dict[Attribute, bytes] = {}
        self.ids: dict[SSAValue, int] = {}

    def flush(self) -> None:
        self.h.update(b"".join(self.pieces))
        self.pieces.clear()

    def attr(self, attr: Attribute) -> None:
        if isinstance(attr, DenseIntOrFPElementsAttr):
            raw = attr.data.data
            self.pieces += [
                b"dense ",
                self.text(attr.get_type()),
                struct.pack("<Q", len(raw)),
            ]
            self.flush()
            self.h.update(raw)
        else:
            self.pieces.append(self.text(attr))

    def text(self, attr: Attribute) -> bytes:
        try:
            return self.printed[attr]
        except KeyError:
            printed = self.printed[attr] = str(attr).encode()
            return printed
        except TypeError:  # not hashable
            return str(attr).encode()

    def op(self, op: Operation) -> None:
        ids, add = self.ids, self.pieces.append
        add(op.name.encode() + b"(")
        add(b"".join(b"%d," % ids.get(v, -1) for v in op.operands) + b")")
        for table in (op.properties, op.attributes):
            add(b"{")
            for name in sorted(table):
                add(name.encode() + b"=")
                self.attr(table[name])
                add(b";")
            add(b"}")
        for r in op.results:
            ids[r] = len(ids)
            add(self.text(r.type) + b",")
        for region in op.regions:
            add(b"[")
            for block in region.blocks:
                add(b"^")
                for a in block.args:
                    ids[a] = len(ids)
                    # argument names are the model's input names (the spec keeps them)
                    add(f"{a.name_hint}:".encode() + self.text(a.type) + b",")
                for inner in block.ops:
                    self.op(inner)
            add(b"]")


def build_key(
    module: ModuleOp,
    params: Mapping[str, Any] | None,
    entry: str,
    ctx: Any,
) -> str:
    """The cache key of building ``module`` with ``params`` in the PassContext ``ctx``."""
    h = hashlib.sha256()
    h.update(_toolchain().encode())
    h.update(f"\nentry {entry}\nopt {ctx.opt_level}\n".encode())
    h.update(f"required {sorted(ctx.required_pass)}\n".encode())
    h.update(f"disabled {sorted(ctx.disabled_pass)}\n".encode())
    for k in sorted(ctx.config):
        h.update(f"config {k}={ctx.config[k]!r}\n".encode())
    # the settings that shape the generated code (xrelay.settings)
    for var in ("XRELAY_TILE_ROWS", "XRELAY_SHARE_MIN_NS", "XRELAY_OVERLAP_MAX_NS"):
        h.update(f"{var} {os.environ.get(var, '').strip()}\n".encode())
    # the CPUs the process may use shape the overlap of independent calls
    h.update(f"cpus {host_threads()}\n".encode())
    # `with Target(...)` chooses AlterOpLayout's policy
    h.update(f"target {current_target_text('')}\n".encode())
    for name in sorted(params or {}):
        arr = np.ascontiguousarray(np.asarray((params or {})[name]))
        h.update(f"param {name} {arr.dtype.str} {arr.shape}\n".encode())
        h.update(arr.reshape(-1).view(np.uint8).data)
    writer = _KeyWriter(h)
    writer.op(module)
    writer.flush()
    return h.hexdigest()


# -- entries ----------------------------------------------------------------------------


@dataclass
class CachedBuild:
    """What a build produces, as stored in an entry."""

    spec: ModelSpec
    objects: list[bytes]
    """The object code, one object per part of ``llvm_ir``."""
    llvm_ir: str
    memref_ir: str | None = None


def _entry_path(folder: Path, key: str) -> Path:
    return folder / f"{key}{SUFFIX}"


def _weights_blob(spec: ModelSpec) -> tuple[list[tuple[int, int]], int]:
    layout = spec.weight_layout()
    end = max((off + n for off, n in layout), default=0)
    return layout, end


def store(key: str, built: CachedBuild) -> Path | None:
    """Write the entry of ``key`` (atomically); ``None`` (and a one-line warning)
    when the cache folder cannot be used or written: a build never fails because
    of its cache."""
    spec = built.spec
    layout, blob_size = _weights_blob(spec)
    llvm_ir = built.llvm_ir.encode()
    memref_ir = (built.memref_ir or "").encode()

    def payload() -> Iterator[bytes | memoryview]:
        """The payload in pieces (weights one by one, never copied into one blob)."""
        yield from built.objects
        at = 0
        for w, (off, n) in zip(spec.weights, layout, strict=True):
            yield bytes(off - at)
            yield np.ascontiguousarray(w).reshape(-1).view(np.uint8).data
            at = off + n
        yield llvm_ir
        yield memref_ir

    digest = hashlib.sha256()
    for piece in payload():
        digest.update(piece)
    header = json.dumps(
        {
            "format": FORMAT,
            "key": key,
            "spec": json.loads(spec.to_json()),
            "objects": [len(obj) for obj in built.objects],
            "sizes": [blob_size, len(llvm_ir), len(memref_ir)],
            "has_memref_ir": built.memref_ir is not None,
            "sha256": digest.hexdigest(),
        }
    ).encode()
    folder = usable_folder(create=True)
    if folder is None:
        return None
    try:
        group = trust.shared_group()
    except trust.TrustError:
        return None
    tmp_name: str | None = None
    try:
        # mkstemp creates the file 0600
        fd, tmp_name = tempfile.mkstemp(
            prefix=f"{_TMP_PREFIX}{key[:16]}-", suffix=".part", dir=folder
        )
        with os.fdopen(fd, "wb") as f:
            if group is not None:
                os.fchmod(f.fileno(), trust.file_mode(group))
            f.write(MAGIC + struct.pack("<Q", len(header)))
            f.write(hashlib.sha256(header).digest())
            f.write(header)
            for piece in payload():
                f.write(piece)
        path = _entry_path(folder, key)
        os.replace(tmp_name, path)
        tmp_name = None
        trim(keep=path)
        return path
    except OSError as e:
        _warn(f"cannot write the compile cache in {folder}: {e.strerror or e}")
        return None
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


def _check_interface(objects: list[bytes], spec_json: str) -> None:
    """The object code names the interface it was compiled for: it must be the
    header's spec (checked on the object files, before the code is loaded)."""
    found: list[bytes] = []
    try:
        for obj in objects:
            iface = object_interface(obj)
            if iface is not None:
                found.append(iface)
    except ArtifactError as e:
        raise CacheEntryError(f"bad object code: {e}") from None
    if len(found) != 1:
        raise CacheEntryError("the object code does not name its interface")
    if found[0] != interface_digest(spec_json):
        raise CacheEntryError("the spec does not describe the object code")


def read_entry(path: Path, key: str) -> CachedBuild:
    """Read and check one entry; :class:`CacheEntryError` says what is wrong
    (:class:`UntrustedEntry`: another user's, or writable by others)."""
    fd, st = open_regular(path, follow_symlinks=False)
    with os.fdopen(fd, "rb") as f:
        why = trust.entry_problem(st, trust.shared_group())
        if why is not None:
            raise UntrustedEntry(why)
        size = st.st_size
        prefix = len(MAGIC) + 8 + 32
        head = f.read(prefix)
        if len(head) != prefix or head[: len(MAGIC)] != MAGIC:
            raise CacheEntryError("not an xrelay cache entry of this format (magic)")
        (hlen,) = struct.unpack("<Q", head[len(MAGIC) : len(MAGIC) + 8])
        if hlen > min(_HEADER_LIMIT, size):
            raise CacheEntryError("header length past the end of the file")
        raw_header = f.read(hlen)
        if hashlib.sha256(raw_header).digest() != head[len(MAGIC) + 8 :]:
            raise CacheEntryError("header checksum mismatch: corrupt or edited entry")
        try:
            header = json.loads(raw_header)
            if header.get("format") != FORMAT:
                raise CacheEntryError(f"stale entry format {header.get('format')!r}")
            if header.get("key") != key:
                raise CacheEntryError("entry of another key")
            sizes = [int(n) for n in header["sizes"]]
            obj_sizes = [int(n) for n in header["objects"]]
            spec_json = json.dumps(header["spec"])
            spec, layout = ModelSpec.from_json(spec_json)
            digest_expected = str(header["sha256"])
            has_memref = bool(header["has_memref_ir"])
        except CacheEntryError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise CacheEntryError(f"bad header: {e}") from None
        if len(sizes) != 3 or not obj_sizes or min(sizes + obj_sizes) < 0:
            raise CacheEntryError("bad part sizes")
        expected = prefix + hlen + sum(sizes) + sum(obj_sizes)
        if expected != size:
            raise CacheEntryError(
                f"size {size} does not match its header ({expected}): truncated or "
                "extended"
            )
        blob_n, ll_n, mem_n = sizes
        for off, n in layout:
            if off < 0 or n < 0 or off + n > blob_n:
                raise CacheEntryError("a weight lies outside the weights blob")
        digest = hashlib.sha256()
        objects = [f.read(n) for n in obj_sizes]
        for obj in objects:
            digest.update(obj)
        blob = aligned_empty((blob_n,), np.dtype(np.uint8))
        if f.readinto(blob.data) != blob_n:
            raise CacheEntryError("truncated weights")
        digest.update(blob.data)
        ll = f.read(ll_n)
        digest.update(ll)
        mem = f.read(mem_n)
        digest.update(mem)
        if digest.hexdigest() != digest_expected:
            raise CacheEntryError("checksum mismatch: corrupt entry")
    # the weights as byte views of one aligned blob: the same layout (offsets and
    # sizes) as the built model's, which is all the executor and export need
    spec.weights = [blob[off : off + n] for off, n in layout]
    # the spec must be the one the code was compiled for, arena size included
    _check_interface(objects, spec.to_json())
    return CachedBuild(spec, objects, ll.decode(), mem.decode() if has_memref else None)


def load(key: str, need_memref_ir: bool = False) -> CachedBuild | None:
    """The entry of ``key``, checked; ``None`` when there is none, or when it is
    bad (then it is deleted, so that the rebuild replaces it), or not to be trusted
    (then a one-line warning; the rebuild's entry replaces it)."""
    folder = usable_folder(create=False)
    if folder is None:
        return None
    path = _entry_path(folder, key)
    try:
        built = read_entry(path, key)
    except FileNotFoundError:
        return None
    except UntrustedEntry as e:
        _warn(f"ignoring the compile cache entry {path}: {e}")
        return None
    except (OSError, CacheEntryError, UnicodeDecodeError):
        try:
            path.unlink()
        except OSError:
            pass
        return None
    if need_memref_ir and built.memref_ir is None:
        return None
    try:  # used now: the last entry the size limit evicts
        os.utime(path)
    except OSError:
        pass
    return built


# -- size ------------------------------------------------------------------------------


def max_bytes() -> int:
    """The folder's size limit: ``$XRELAY_CACHE_MAX_MB`` MiB (a non-negative integer;
    anything else warns and the default holds)."""
    text = os.environ.get(MAX_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_MB << 20
    try:
        mb = int(text)
        if mb < 0:
            raise ValueError
    except ValueError:
        warnings.warn(
            f"xrelay: {MAX_ENV}={text!r} is not a size in MiB (a non-negative "
            f"integer); using {DEFAULT_MAX_MB}",
            stacklevel=3,
        )
        return DEFAULT_MAX_MB << 20
    return mb << 20


def _entries(folder: Path) -> list[tuple[float, int, Path]]:
    """(last use, size, path) of the entries in ``folder``; the temporary files of
    writers dead for an hour are removed on the way. Only files named as the cache
    names its own are ever looked at."""
    found: list[tuple[float, int, Path]] = []
    try:
        names = list(os.scandir(folder))
    except OSError:
        return found
    now = time.time()
    uid = os.geteuid()
    for item in names:
        entry = _ENTRY_NAME.fullmatch(item.name) is not None
        temporary = _TMP_NAME.fullmatch(item.name) is not None
        if not (entry or temporary):
            continue
        try:
            st = item.stat(follow_symlinks=False)
        except OSError:  # removed by another process meanwhile
            continue
        if not item.is_file(follow_symlinks=False):
            continue
        if entry:
            found.append((st.st_mtime, st.st_size, Path(item.path)))
        elif st.st_uid == uid and now - st.st_mtime > STALE_TMP_SECONDS:
            try:
                os.unlink(item.path)
            except OSError:
                pass
    return found


def trim(limit: int | None = None, keep: Path | None = None) -> int:
    """Remove the least recently used entries until the folder holds at most
    ``limit`` bytes of them (default :func:`max_bytes`), never ``keep``; the number
    of entries removed."""
    limit = max_bytes() if limit is None else limit
    folder = usable_folder(create=False)
    if folder is None:
        return 0
    entries = _entries(folder)
    total = sum(size for _, size, _ in entries)
    removed = 0
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        if keep is not None and path == keep:
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def clear() -> int:
    """Remove every entry of the cache folder; the number removed."""
    return trim(limit=0)
