"""Exported models are checked before they are loaded (runtime/artifact.py):
truncated files, edited metadata, a patched instruction, an export of another
xrelay version, and paths that are no regular file (a FIFO, a device) are refused
with a one-line LoadError, in a subprocess that must end cleanly (no signal, no
traceback, no hang); a model exported again to the same path runs its new code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime import artifact, load_module

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None, reason="exporting needs a C compiler driver (cc)"
)

X = np.arange(12, dtype="float32").reshape(1, 12) / 7


def _lib(scale: float) -> Any:
    x = relay.var("x", shape=(1, 12), dtype="float32")
    w = relay.const(np.full((12,), scale, "float32"))
    mod = relay.IRModule.from_expr(relay.nn.relu(relay.multiply(x, w)))
    with PassContext(opt_level=3):
        return xrelay.build(mod, cache=False)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("artifact") / "model.so"
    _lib(2.0).export_library(path)
    return path


LOADER = """
import sys
import numpy as np
from xrelay.runtime import load_module
from xrelay.runtime.library import LoadError
try:
    lib = load_module(sys.argv[1])
except LoadError as e:
    print("LoadError:", e)
    sys.exit(3)
print("ran", float(lib(np.ones((1, 12), "float32")).sum()))
"""


def _load_in_subprocess(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LOADER, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _assert_refused(path: Path, match: str) -> None:
    result = _load_in_subprocess(path)
    assert result.returncode == 3, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("LoadError:"), lines
    assert match in lines[0], lines[0]


def test_a_good_export_loads_and_runs(exported: Path):
    result = _load_in_subprocess(exported)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ran {2.0 * 12:.1f}"


@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.5, 0.75, 0.99])
def test_truncated_exports_are_refused(exported: Path, tmp_path: Path, fraction: float):
    data = exported.read_bytes()
    cut = tmp_path / "cut.so"
    cut.write_bytes(data[: int(len(data) * fraction)])
    _assert_refused(cut, str(cut))


def _meta_region(data: bytes) -> tuple[int, int, int]:
    """File offsets of the header and the metadata, and the metadata's size."""
    symbols = artifact._dynamic_symbols(data)  # pyright: ignore[reportPrivateUsage]
    segments = artifact._segments(data)  # pyright: ignore[reportPrivateUsage]

    def where(name: str, size: int) -> int:
        return artifact._file_range(segments, symbols[name].value, size, name)[0]  # pyright: ignore[reportPrivateUsage]

    h = where(artifact.HEADER_SYMBOL, struct_header().size)
    *_, m_size, _, _ = struct_header().unpack_from(data, h)
    return h, where(artifact.METADATA_SYMBOL, m_size), m_size


def struct_header() -> Any:
    return artifact._HEADER  # pyright: ignore[reportPrivateUsage]


def _edit_metadata(
    src: Path, dest: Path, edit: Callable[[dict[str, Any]], None], fix_checksum: bool
) -> None:
    """Rewrite the metadata JSON in place (compact, padded to its length); with
    ``fix_checksum`` the header's checksum is recomputed too, as a forger would."""
    data = bytearray(src.read_bytes())
    _, m, m_size = _meta_region(bytes(data))
    meta = json.loads(bytes(data[m : m + m_size]))
    edit(meta)
    text = json.dumps(meta, separators=(",", ":")).encode()
    assert len(text) <= m_size
    data[m : m + m_size] = text + b" " * (m_size - len(text))
    if fix_checksum:
        artifact.seal(data)
    dest.write_bytes(bytes(data))


def _shrink_arena(meta: dict[str, Any]) -> None:
    meta["arena_size"] = 0


def _entry_at_data(meta: dict[str, Any]) -> None:
    meta["entry"] = artifact.WEIGHTS_SYMBOL


def _weights_past_end(meta: dict[str, Any]) -> None:
    meta["weights"][0]["offset"] = 1 << 40


def _no_inputs(meta: dict[str, Any]) -> None:
    meta["inputs"] = []


EDITS = [_shrink_arena, _entry_at_data, _weights_past_end, _no_inputs]


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_edited_metadata_is_refused(exported: Path, tmp_path: Path, edit: Any):
    bad = tmp_path / "edited.so"
    _edit_metadata(exported, bad, edit, fix_checksum=False)
    _assert_refused(bad, "checksum mismatch")


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_edited_metadata_with_a_forged_checksum_is_refused(
    exported: Path, tmp_path: Path, edit: Any
):
    bad = tmp_path / "forged.so"
    _edit_metadata(exported, bad, edit, fix_checksum=True)
    expected = {
        _weights_past_end: "outside the",
    }.get(edit, "does not describe the compiled code")
    _assert_refused(bad, expected)


def test_flipped_weight_byte_is_refused(exported: Path, tmp_path: Path):
    data = bytearray(exported.read_bytes())
    h, _, _ = _meta_region(bytes(data))
    w = artifact._file_range(  # pyright: ignore[reportPrivateUsage]
        artifact._segments(bytes(data)),  # pyright: ignore[reportPrivateUsage]
        artifact._dynamic_symbols(bytes(data))[artifact.WEIGHTS_SYMBOL].value,  # pyright: ignore[reportPrivateUsage]
        1,
        "w",
    )[0]
    del h
    data[w] ^= 0x40
    bad = tmp_path / "weights.so"
    bad.write_bytes(bytes(data))
    _assert_refused(bad, "checksum mismatch")


def test_re_export_to_the_same_path_runs_the_new_model(tmp_path: Path):
    path = tmp_path / "same.so"
    _lib(2.0).export_library(path)
    first = load_module(path)
    _lib(3.0).export_library(path)
    second = load_module(path)
    np.testing.assert_allclose(first(X), 2.0 * X, rtol=1e-6)
    np.testing.assert_allclose(second(X), 3.0 * X, rtol=1e-6)


def _symbol_offset(data: bytes | bytearray, name: str) -> int:
    symbols = artifact._dynamic_symbols(data)  # pyright: ignore[reportPrivateUsage]
    segments = artifact._segments(data)  # pyright: ignore[reportPrivateUsage]
    return artifact._file_range(segments, symbols[name].value, 1, name)[0]  # pyright: ignore[reportPrivateUsage]


def test_a_patched_instruction_is_refused(exported: Path, tmp_path: Path):
    """The entry point's first byte turned into ``ret`` (0xC3): the code is covered
    by the file's digest."""
    data = bytearray(exported.read_bytes())
    at = _symbol_offset(data, "xrelay_entry")
    assert data[at] != 0xC3
    data[at] = 0xC3
    bad = tmp_path / "patched.so"
    bad.write_bytes(bytes(data))
    _assert_refused(bad, "checksum mismatch")


def test_a_byte_outside_every_symbol_is_covered(exported: Path, tmp_path: Path):
    """The ELF header's padding (bytes 9-15 of e_ident) is covered too."""
    data = bytearray(exported.read_bytes())
    data[12] ^= 0x01
    bad = tmp_path / "ident.so"
    bad.write_bytes(bytes(data))
    _assert_refused(bad, "checksum mismatch")


def test_an_export_of_another_xrelay_version_is_refused(exported: Path, tmp_path: Path):
    """A resealed header that names another writer version: both versions are named."""
    data = bytearray(exported.read_bytes())
    h = _symbol_offset(data, artifact.HEADER_SYMBOL)
    fields = list(struct_header().unpack_from(data, h))
    fields[5] = b"9.9.9-other"
    data[h : h + struct_header().size] = struct_header().pack(*fields)
    artifact.seal(data)
    bad = tmp_path / "other.so"
    bad.write_bytes(bytes(data))
    from xrelay.version import xrelay_version

    _assert_refused(
        bad, f"written by xrelay 9.9.9-other, this is xrelay {xrelay_version()}"
    )


def test_an_older_artifact_format_is_refused(exported: Path, tmp_path: Path):
    data = bytearray(exported.read_bytes())
    h = _symbol_offset(data, artifact.HEADER_SYMBOL)
    data[h + 8 : h + 12] = (1).to_bytes(4, "little")
    bad = tmp_path / "v1.so"
    bad.write_bytes(bytes(data))
    _assert_refused(bad, "artifact format 1")


def test_a_fifo_is_refused_without_waiting(tmp_path: Path):
    fifo = tmp_path / "model.so"
    os.mkfifo(fifo)
    _assert_refused(fifo, "a FIFO, where a regular file is expected")


def test_a_link_to_a_device_is_refused(tmp_path: Path):
    link = tmp_path / "zero.so"
    link.symlink_to("/dev/zero")
    _assert_refused(link, "a character device, where a regular file is expected")


def test_an_export_appears_whole(tmp_path: Path):
    """Exporting writes a temporary file and renames it: no partial file at the
    path, no temporary left behind."""
    path = tmp_path / "whole.so"
    _lib(2.0).export_library(path)
    assert [p.name for p in tmp_path.iterdir()] == ["whole.so"]
    artifact.check_artifact(path.read_bytes())
