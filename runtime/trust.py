"""Whose files the compile cache may load code from.

Loading a cache entry maps its object code into the process, so an entry is code
the user runs. The cache therefore trusts only files that the user (or root) wrote,
the way ssh, ccache and pip treat their folders:

* the cache folder is created private (``0700``), entries are written ``0600``;
* the folder must be owned by the user (or root) and writable by nobody else, and so
  must every folder above it, except that a world-writable folder with the sticky
  bit (``/tmp``) is fine above it (nobody but the owner can rename what is in it);
* an entry must be a regular file owned by the user (or root) and writable by
  nobody else.

A team shares a cache through a group: with ``$XRELAY_CACHE_GROUP`` naming a group
(by name or number) the user belongs to, the folder (and folders above it) may be
writable by that group, entries may be owned by any member of it and be writable by
it, and entries are written ``0660``. Nothing world-writable is ever trusted.

:func:`folder_problem` and :func:`entry_problem` say why something is not trusted
(``None``: trusted); the cache then ignores it with a one-line warning and builds
privately instead.
"""

from __future__ import annotations

import grp
import os
import stat
from pathlib import Path

GROUP_ENV = "XRELAY_CACHE_GROUP"


class TrustError(ValueError):
    """``$XRELAY_CACHE_GROUP`` names no group the user belongs to."""


def shared_group() -> int | None:
    """The gid of ``$XRELAY_CACHE_GROUP`` (``None`` when unset); a
    :class:`TrustError` when it is not a group of the user's."""
    text = os.environ.get(GROUP_ENV, "").strip()
    if not text:
        return None
    try:
        gid = int(text) if text.isdigit() else grp.getgrnam(text).gr_gid
    except KeyError:
        raise TrustError(f"${GROUP_ENV}={text!r} is not a group") from None
    if gid != os.getegid() and gid not in os.getgroups():
        raise TrustError(f"${GROUP_ENV}={text!r}: the user is not in this group")
    return gid


def _members(gid: int) -> set[int]:
    """The uids of the members of ``gid`` (primary group or listed)."""
    import pwd

    try:
        names = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        names = set()
    return {u.pw_uid for u in pwd.getpwall() if u.pw_gid == gid or u.pw_name in names}


def _trusted_owner(uid: int, group: int | None) -> bool:
    if uid in (os.geteuid(), 0):
        return True
    return group is not None and uid in _members(group)


def _writable_by_others(st: os.stat_result, group: int | None) -> str | None:
    mode = st.st_mode
    if mode & stat.S_IWOTH:
        return "writable by every user"
    if mode & stat.S_IWGRP and st.st_gid != group:
        return "writable by its group"
    return None


def folder_problem(folder: Path, group: int | None) -> str | None:
    """Why code in ``folder`` (which exists) is not to be trusted; ``None``: it is."""
    folder = Path(os.path.abspath(folder))
    for at in (folder, *folder.parents):
        try:
            st = at.lstat()
        except OSError as e:
            return f"{at}: cannot check it: {e.strerror or e}"
        if stat.S_ISLNK(st.st_mode):
            # judged by where it leads, then by the link's own folder (the loop)
            target = Path(os.path.realpath(at))
            why = folder_problem(target, group)
            if why is not None:
                return why
            continue
        if not stat.S_ISDIR(st.st_mode):
            return f"{at} is not a folder"
        if not _trusted_owner(st.st_uid, group):
            return f"{at} is owned by another user (uid {st.st_uid})"
        why = _writable_by_others(st, group)
        if why is not None and not (at != folder and st.st_mode & stat.S_ISVTX):
            return f"{at} is {why}"
    return None


def entry_problem(st: os.stat_result, group: int | None) -> str | None:
    """Why a cache entry with this ``fstat`` is not to be trusted; ``None``: it is."""
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if not _trusted_owner(st.st_uid, group):
        return f"owned by another user (uid {st.st_uid})"
    return _writable_by_others(st, group)


def file_mode(group: int | None) -> int:
    """The mode entries are written with."""
    return 0o600 if group is None else 0o660


def folder_mode(group: int | None) -> int:
    """The mode the cache folder is created with (setgid in a shared group, so that
    entries take the folder's group)."""
    return 0o700 if group is None else 0o2770
