"""The compile cache loads only what its user wrote, and only what describes its
code (runtime/cache.py, runtime/trust.py): planted and edited entries, shared or
foreign folders, FIFOs and links in place of entries, the user's own files in the
folder. Builds that would load a bad entry run in a subprocess: the old failure was
a crash."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.runtime import cache, trust

X = np.linspace(-1, 1, 12, dtype="float32").reshape(1, 12)


def model(scale: float = 2.0, n: int = 12) -> relay.IRModule:
    """Two kernels with a buffer between them in the arena."""
    x = relay.var("x", shape=(1, n), dtype="float32")
    w = relay.const(np.eye(n, dtype="float32") * scale)
    y = relay.nn.relu(relay.nn.dense(x, w))
    eye = relay.const(np.eye(n, dtype="float32"))
    return relay.IRModule.from_expr(relay.nn.dense(y, eye))


def build(scale: float = 2.0, n: int = 12) -> Any:
    return xrelay.build(model(scale, n))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(trust.GROUP_ENV, raising=False)
    return tmp_path / "cache"


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*" + cache.SUFFIX))


# -- the entry format, as a forger would rewrite it -------------------------------


def _split(data: bytes) -> tuple[dict[str, Any], bytes]:
    m = len(cache.MAGIC)
    hlen = int.from_bytes(data[m : m + 8], "little")
    header = json.loads(data[m + 40 : m + 40 + hlen])
    return header, data[m + 40 + hlen :]


def _join(header: dict[str, Any], payload: bytes) -> bytes:
    header["sha256"] = hashlib.sha256(payload).hexdigest()
    raw = json.dumps(header).encode()
    return (
        cache.MAGIC
        + len(raw).to_bytes(8, "little")
        + hashlib.sha256(raw).digest()
        + raw
        + payload
    )


def forge(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit the header of an entry and recompute every digest (no secret is
    involved: this is what anyone who can write the file can do)."""
    header, payload = _split(path.read_bytes())
    edit(header)
    path.write_bytes(_join(header, payload))


def _run_build(folder: Path) -> subprocess.CompletedProcess[str]:
    """Build ``model()`` in a fresh process with the cache at ``folder``; prints
    whether the build came from the cache and the result's checksum."""
    code = (
        "import numpy as np, xrelay\n"
        "from tests.safety.test_trusted_cache import model, X\n"
        "lib = xrelay.build(model())\n"
        "print(lib.from_cache, float(lib(X).sum()))\n"
    )
    env = dict(os.environ, **{cache.ENV: str(folder)})
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )


EXPECTED = float(np.maximum(X * 2.0, 0).sum())


def _assert_rebuilt(folder: Path) -> None:
    result = _run_build(folder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", f"{EXPECTED}"], result.stdout


# -- edited and planted entries ---------------------------------------------------


def _shrink_arena(header: dict[str, Any]) -> None:
    assert header["spec"]["arena_size"] > 0
    header["spec"]["arena_size"] = 0


def _other_shape(header: dict[str, Any]) -> None:
    header["spec"]["inputs"][0]["shape"] = [1, 1 << 20]


def _other_entry_point(header: dict[str, Any]) -> None:
    header["spec"]["entry"] = "xrelay_shutdown"


@pytest.mark.parametrize("edit", [_shrink_arena, _other_shape, _other_entry_point])
def test_an_edited_header_is_rebuilt_not_loaded(folder: Path, edit: Any):
    """Without recomputing the digest, the header's own digest fails; with it, the
    object code's interface no longer matches the spec."""
    build()
    (entry,) = entries(folder)
    data = bytearray(entry.read_bytes())
    header, payload = _split(bytes(data))
    edit(header)
    raw = json.dumps(header).encode()
    m = len(cache.MAGIC)
    entry.write_bytes(
        cache.MAGIC
        + len(raw).to_bytes(8, "little")
        + data[m + 8 : m + 40]
        + raw
        + payload
    )
    with pytest.raises(cache.CacheEntryError, match="header checksum"):
        cache.read_entry(entry, entry.stem)
    entry.write_bytes(bytes(data))
    forge(entry, edit)
    with pytest.raises(cache.CacheEntryError, match="does not describe the object"):
        cache.read_entry(entry, entry.stem)
    _assert_rebuilt(folder)
    cache.read_entry(entry, entry.stem)  # replaced by a good one


def test_a_planted_object_is_not_loaded(folder: Path):
    """Another model's object code under this model's key, digests recomputed."""
    build(3.0, n=16)
    (other,) = entries(folder)
    planted_header, planted_payload = _split(other.read_bytes())
    other.unlink()
    build()
    (entry,) = entries(folder)
    header, _ = _split(entry.read_bytes())
    planted_header["key"] = header["key"]
    planted_header["spec"] = header["spec"]
    entry.write_bytes(_join(planted_header, planted_payload))
    with pytest.raises(cache.CacheEntryError, match="does not describe the object"):
        cache.read_entry(entry, entry.stem)
    _assert_rebuilt(folder)


def _as_other_user(path: Path) -> None:
    try:
        os.chown(path, 54321, -1)
    except PermissionError:
        pytest.skip("giving a file to another user needs root")


def test_an_entry_of_another_user_is_ignored(folder: Path):
    build()
    (entry,) = entries(folder)
    _as_other_user(entry)
    with pytest.warns(cache.CacheWarning, match="owned by another user") as caught:
        lib = build()
    assert not lib.from_cache
    assert all("\n" not in str(w.message) for w in caught)
    assert entry.stat().st_uid == os.geteuid()  # rebuilt privately, in its place
    assert build().from_cache


@pytest.mark.parametrize("mode", [0o620, 0o602])
def test_an_entry_others_can_write_is_ignored(folder: Path, mode: int):
    build()
    (entry,) = entries(folder)
    entry.chmod(mode)
    with pytest.warns(cache.CacheWarning, match="writable by"):
        assert not build().from_cache
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert build().from_cache


# -- folders ----------------------------------------------------------------------


def test_the_folder_is_private_and_entries_too(folder: Path):
    build()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    (entry,) = entries(folder)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_folder_others_can_write_is_not_used(folder: Path, mode: int):
    folder.mkdir()
    folder.chmod(mode)
    with pytest.warns(cache.CacheWarning, match="not using the compile cache"):
        lib = build()
    np.testing.assert_allclose(lib(X), np.maximum(2 * X, 0), rtol=1e-6)
    assert entries(folder) == []
    with pytest.warns(cache.CacheWarning):
        assert not build().from_cache


def test_a_folder_of_another_user_is_not_used(folder: Path):
    folder.mkdir(mode=0o755)
    _as_other_user(folder)
    with pytest.warns(cache.CacheWarning, match="owned by another user"):
        assert not build().from_cache
    assert entries(folder) == []


def test_a_folder_under_a_shared_parent(tmp_path: Path, monkeypatch: Any):
    """A parent anyone can write (without the sticky bit) could swap the folder: not
    used. With the sticky bit (as /tmp) it is fine."""
    parent = tmp_path / "shared"
    parent.mkdir()
    parent.chmod(0o777)
    monkeypatch.setenv(cache.ENV, str(parent / "cache"))
    with pytest.warns(cache.CacheWarning, match="writable by every user"):
        assert not build().from_cache
    parent.chmod(0o1777)
    with warnings.catch_warnings():
        warnings.simplefilter("error", cache.CacheWarning)
        build()
        assert build().from_cache


def test_a_shared_group_folder(folder: Path, monkeypatch: pytest.MonkeyPatch):
    """``$XRELAY_CACHE_GROUP``: the folder and entries are shared with the group."""
    gid = os.getegid()
    monkeypatch.setenv(trust.GROUP_ENV, str(gid))
    build()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o2770
    (entry,) = entries(folder)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o660
    assert build().from_cache
    entry.chmod(0o662)  # world-writable: never trusted
    with pytest.warns(cache.CacheWarning, match="writable by every user"):
        assert not build().from_cache


def test_an_unknown_group_is_a_warning(folder: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(trust.GROUP_ENV, "no-such-group-xrelay")
    with pytest.warns(cache.CacheWarning, match="is not a group"):
        assert not build().from_cache


# -- what is in place of an entry; what else is in the folder ---------------------


def test_a_fifo_in_place_of_an_entry_is_not_waited_on(folder: Path):
    build()
    (entry,) = entries(folder)
    entry.unlink()
    os.mkfifo(entry)
    _assert_rebuilt(folder)  # the subprocess's timeout catches a hang
    assert stat.S_ISREG(entry.lstat().st_mode)


def test_a_link_in_place_of_an_entry_is_not_followed(folder: Path, tmp_path: Path):
    build()
    (entry,) = entries(folder)
    elsewhere = tmp_path / "elsewhere.xrc"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert not build().from_cache
    assert not entry.is_symlink()
    assert elsewhere.exists()


def test_the_users_files_in_the_folder_survive(folder: Path):
    """Only files named as the cache's own are ever removed, however old."""
    build()
    keep = [".bashrc", ".env", ".gitignore", "notes.xrc", ".xrelay-tmp-zz.part", "a"]
    for name in keep:
        (folder / name).write_text("mine")
        os.utime(folder / name, (1, 1))
    assert cache.clear() == 1
    build(3.0)
    assert sorted(
        p.name for p in folder.iterdir() if not p.name.endswith(".xrc")
    ) == sorted(n for n in keep if not n.endswith(".xrc"))
    assert (folder / "notes.xrc").read_text() == "mine"


def test_the_tools_warn_in_one_line(tmp_path: Path):
    """An unusable cache folder: one ``xrelay-run: warning:`` line, no Python
    warning text (file, line, source), and the run goes on."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    tool = Path(sys.executable).with_name("xrelay-run")
    env = dict(os.environ, **{cache.ENV: str(blocker / "sub")})
    result = subprocess.run(
        [str(tool), "--example"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr  # no Python warning text
    lines = [ln for ln in result.stderr.splitlines() if ": warning:" in ln]
    assert lines == [
        f"xrelay-run: warning: cannot write the compile cache in {blocker / 'sub'}: "
        "File exists"
    ], result.stderr
