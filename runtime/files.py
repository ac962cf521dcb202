"""Reading files the runtime must not trust to be what their names say.

:func:`read_regular_file` opens without blocking (a FIFO in place of a file would
otherwise wait forever for a writer), refuses anything but a regular file (a FIFO,
a device such as ``/dev/zero``, a socket, a directory) and anything larger than a
bound, and reads exactly the size the file had when it was opened.
"""

from __future__ import annotations

import os
import stat

DEFAULT_LIMIT = 1 << 36
"""64 GiB: larger than any model the runtime can map, smaller than memory runs out."""


class FileKindError(OSError):
    """The path names something other than a regular file of a bounded size."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(
    path: str | os.PathLike[str], *, follow_symlinks: bool = True
) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file ``path`` and its ``fstat``;
    :class:`FileKindError` for anything else (the descriptor is then closed)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow_symlinks and os.path.islink(path):
            raise FileKindError(
                f"{path}: a symbolic link, where a regular file is expected"
            ) from None
        raise e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileKindError(
                f"{path}: {_kind(st.st_mode)}, where a regular file is expected"
            )
        # a regular file never blocks; clear O_NONBLOCK for plain reads
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular_file(
    path: str | os.PathLike[str],
    limit: int = DEFAULT_LIMIT,
    *,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of the regular file ``path`` (see the module docstring)."""
    fd, st = open_regular(path, follow_symlinks=follow_symlinks)
    with os.fdopen(fd, "rb") as f:
        if st.st_size > limit:
            raise FileKindError(
                f"{path}: {st.st_size} bytes, more than the {limit} this reads"
            )
        data = f.read(st.st_size)
    if len(data) != st.st_size:
        raise FileKindError(f"{path}: changed while it was read")
    return data
