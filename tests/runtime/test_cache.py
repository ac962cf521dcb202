"""The compile cache (xrelay.runtime.cache): hits, keys, bypass, bad entries,
concurrent writers. Every test uses a cache folder of its own (XRELAY_CACHE_DIR)."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext, PassTimingInstrument
from xrelay.runtime import cache

RNG = np.random.default_rng(7)
W = RNG.standard_normal((4, 3, 3, 3)).astype("float32")
X = RNG.standard_normal((1, 3, 6, 6)).astype("float32")


@pytest.fixture(autouse=True)
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV, str(folder))
    return folder


def model(w: Any = W) -> relay.IRModule:
    x = relay.var("x", shape=(1, 3, 6, 6), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, relay.const(w), padding=(1, 1)))
    return relay.IRModule.from_expr(y)


def reference(w: Any = W) -> Any:
    pad = np.pad(X, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, 4, 6, 6), "float32")
    for i in range(6):
        for j in range(6):
            out[0, :, i, j] = np.tensordot(w, pad[0, :, i : i + 3, j : j + 3], 3)
    return np.maximum(out, 0)


def build(mod: Any, opt_level: int = 3, **kwargs: Any) -> Any:
    with PassContext(opt_level=opt_level, disabled_pass=kwargs.pop("disabled", None)):
        return xrelay.build(mod, **kwargs)


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*" + cache.SUFFIX))


def test_second_build_loads_from_the_cache(cache_folder: Path):
    first = build(model())
    assert not first.from_cache
    assert len(entries(cache_folder)) == 1
    second = build(model())
    assert second.from_cache
    np.testing.assert_allclose(second(X), reference(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(second(X), first(X))
    assert second.get_source("ll") == first.get_source("ll")
    assert "define" in second.get_source("opt")


def test_cached_library_exports(cache_folder: Path, tmp_path: Path):
    build(model())
    lib = build(model())
    assert lib.from_cache
    lib.export_library(tmp_path / "m.so")
    loaded = xrelay.runtime.load_module(tmp_path / "m.so")
    np.testing.assert_allclose(loaded(X), reference(), rtol=1e-5, atol=1e-5)


def test_the_key_covers_weights_opt_level_passes_and_params(cache_folder: Path):
    build(model())
    other = W.copy()
    other[0, 0, 0, 0] += 1.0
    changed = build(model(other))
    assert not changed.from_cache
    np.testing.assert_allclose(changed(X), reference(other), rtol=1e-5, atol=1e-5)
    assert not build(model(), opt_level=2).from_cache
    assert not build(model(), disabled=["AlterOpLayout"]).from_cache
    assert len(entries(cache_folder)) == 4
    assert build(model(), opt_level=2).from_cache

    x = relay.var("x", shape=(2,), dtype="float32")
    p = relay.var("p", shape=(2,), dtype="float32")
    mod = relay.IRModule.from_expr(relay.Function([x, p], relay.add(x, p)))
    a = np.array([1.0, 2.0], "float32")
    b = np.array([5.0, 7.0], "float32")
    with PassContext(opt_level=3):
        assert not xrelay.build(mod, params={"p": a}).from_cache
        lib = xrelay.build(mod, params={"p": b})
        assert not lib.from_cache
        np.testing.assert_array_equal(lib(np.zeros(2, "float32")), b)
        assert xrelay.build(mod, params={"p": a}).from_cache


def test_the_key_covers_input_names(cache_folder: Path):
    def identity(name: str) -> relay.IRModule:
        x = relay.var(name, shape=(3,), dtype="float32")
        return relay.IRModule.from_expr(relay.Function([x], x))

    build(identity("x"))
    lib = build(identity("data_0"))
    assert not lib.from_cache
    m = lib.create()
    m.set_input("data_0", np.ones(3, "float32"))
    m.run()
    np.testing.assert_array_equal(m.get_output(0), np.ones(3, "float32"))


def test_the_key_covers_the_current_target(cache_folder: Path):
    from xrelay.target import Target

    build(model())
    with Target("llvm -mcpu=znver4"):
        assert not build(model()).from_cache
        assert build(model()).from_cache
    assert build(model()).from_cache


def test_cache_false_and_instruments_bypass_it(cache_folder: Path):
    lib = build(model(), cache=False)
    assert not lib.from_cache
    assert entries(cache_folder) == []
    build(model())
    assert not build(model(), cache=False).from_cache
    with PassContext(opt_level=3, instruments=[PassTimingInstrument()]):
        assert not xrelay.build(model()).from_cache


def _damage_payload(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(b"not an entry at all")


def _huge_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(cache.MAGIC) : len(cache.MAGIC) + 8] = (1 << 62).to_bytes(8, "little")
    path.write_bytes(bytes(data))


def _bad_json(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(cache.MAGIC) + 8] = ord("!")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage", [_damage_payload, _truncate, _garbage, _huge_header, _bad_json]
)
def test_bad_entries_are_rebuilt_never_loaded(cache_folder: Path, damage: Any):
    build(model())
    (entry,) = entries(cache_folder)
    damage(entry)
    with pytest.raises(cache.CacheEntryError):
        cache.read_entry(entry, entry.stem)
    lib = build(model())
    assert not lib.from_cache
    np.testing.assert_allclose(lib(X), reference(), rtol=1e-5, atol=1e-5)
    cache.read_entry(entry, entry.stem)  # rewritten whole
    assert build(model()).from_cache


def test_an_entry_of_another_key_is_stale(cache_folder: Path):
    build(model())
    other = W * 2
    build(model(other))
    a, b = entries(cache_folder)
    b.write_bytes(a.read_bytes())  # b's name, a's content
    with pytest.raises(cache.CacheEntryError, match="another key"):
        cache.read_entry(b, b.stem)


def test_concurrent_builds_of_one_module(cache_folder: Path):
    libs: list[Any] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            libs.append(build(model()))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    (entry,) = entries(cache_folder)
    assert sorted(p.name for p in cache_folder.iterdir()) == [entry.name]  # no temp
    cache.read_entry(entry, entry.stem)
    for lib in libs:
        np.testing.assert_allclose(lib(X), reference(), rtol=1e-5, atol=1e-5)


def test_an_unwritable_cache_warns_and_builds(tmp_path: Path, monkeypatch: Any):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV, str(blocker / "sub"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib = build(model())
    assert any("cannot write the compile cache" in str(w.message) for w in caught)
    np.testing.assert_allclose(lib(X), reference(), rtol=1e-5, atol=1e-5)


def test_default_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.delenv(cache.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "xrelay"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "xrelay"


def test_the_key_hashes_constants_by_their_bytes():
    a = model()
    b = model(W.copy())
    with PassContext(opt_level=3) as ctx:
        ka = cache.build_key(a.module, None, "main", ctx)
        assert ka == cache.build_key(b.module, None, "main", ctx)
        assert ka != cache.build_key(a.module, None, "other", ctx)
        c = W.copy()
        c.reshape(-1)[-1] = np.nextafter(c.reshape(-1)[-1], np.float32(np.inf))
        assert ka != cache.build_key(model(c).module, None, "main", ctx)


@pytest.mark.parametrize("var", ["XRELAY_TILE_ROWS", "XRELAY_SHARE_MIN_NS"])
def test_key_follows_the_settings_that_shape_the_code(
    var: str, monkeypatch: pytest.MonkeyPatch
):
    """A tile size or a sharing threshold set in the environment makes other code:
    another entry."""
    monkeypatch.delenv(var, raising=False)
    a = model()
    with PassContext(opt_level=3) as ctx:
        plain = cache.build_key(a.module, None, "main", ctx)
        monkeypatch.setenv(var, "2")
        assert cache.build_key(a.module, None, "main", ctx) != plain


def _age(path: Path, seconds_ago: float) -> None:
    import os
    import time

    t = time.time() - seconds_ago
    os.utime(path, (t, t))


def big_model(scale: float) -> relay.IRModule:
    """An entry of about 1.2 MiB (its weights)."""
    x = relay.var("x", shape=(1, 512), dtype="float32")
    w = np.full((600, 512), scale, dtype="float32")
    return relay.IRModule.from_expr(relay.nn.dense(x, relay.const(w)))


def test_the_size_limit_evicts_the_least_recently_used(
    cache_folder: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(cache.MAX_ENV, "3")  # MiB: room for two entries, not three
    build(big_model(1.0))
    (first,) = entries(cache_folder)
    _age(first, 300)
    build(big_model(2.0))
    (second,) = set(entries(cache_folder)) - {first}
    _age(second, 200)
    assert build(big_model(1.0)).from_cache  # a hit marks the first entry used
    size = max(p.stat().st_size for p in entries(cache_folder))
    assert 2 * size <= cache.max_bytes() < 3 * size
    build(big_model(3.0))
    left = entries(cache_folder)
    assert len(left) == 2
    assert first in left
    assert second not in left
    assert build(big_model(1.0)).from_cache
    assert not build(big_model(2.0)).from_cache


def test_a_limit_of_zero_keeps_only_the_entry_just_written(
    cache_folder: Path, monkeypatch: pytest.MonkeyPatch
):
    build(model(W))
    monkeypatch.setenv(cache.MAX_ENV, "0")
    build(model(W * 2.0))
    assert len(entries(cache_folder)) == 1
    assert build(model(W * 2.0)).from_cache
    assert cache.clear() == 1
    assert entries(cache_folder) == []


def test_stale_temporary_files_are_removed(cache_folder: Path):
    """Only the cache's own temporaries (``.xrelay-tmp-<16 hex>-*.part``) go, once
    an hour old; the user's dotfiles stay whatever their age."""
    build(model())
    fresh = cache_folder / ".xrelay-tmp-0123456789abcdef-fresh1.part"
    stale = cache_folder / ".xrelay-tmp-0123456789abcdef-stale1.part"
    users = [cache_folder / n for n in (".bashrc", ".env", ".abc-stale", ".gitignore")]
    for f in [fresh, stale, *users]:
        f.write_bytes(b"x")
        if f is not fresh:
            _age(f, 2 * cache.STALE_TMP_SECONDS)
    assert cache.trim() == 0
    assert cache.clear() == 1
    assert fresh.exists()
    assert not stale.exists()
    assert all(f.exists() for f in users)


@pytest.mark.parametrize("value", ["lots", "-1", "1.5"])
def test_a_bad_size_limit_warns_and_keeps_the_default(
    value: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(cache.MAX_ENV, value)
    with pytest.warns(UserWarning, match=cache.MAX_ENV):
        assert cache.max_bytes() == cache.DEFAULT_MAX_MB << 20


def test_the_key_tells_apart_modules_sharing_attributes():
    """Each distinct attribute is printed once per key: repeated types and
    attributes must still be hashed where they occur."""

    def chain(shape: tuple[int, ...], ops: list[str]) -> relay.IRModule:
        y = relay.var("x", shape=shape, dtype="float32")
        for name in ops:
            y = getattr(relay, name)(y)
        return relay.IRModule.from_expr(y)

    with PassContext(opt_level=3) as ctx:

        def key(mod: relay.IRModule) -> str:
            return cache.build_key(mod.module, None, "main", ctx)

        base = key(chain((2, 3), ["negative", "abs", "negative"]))
        assert base == key(chain((2, 3), ["negative", "abs", "negative"]))
        assert base != key(chain((3, 2), ["negative", "abs", "negative"]))
        assert base != key(chain((2, 3), ["negative", "negative", "abs"]))
        assert base != key(chain((2, 3), ["negative", "abs"]))
