#!/usr/bin/env python3
"""What a commit writes: the pages in a copy of a SQLite WAL file, by B-tree.

    python3 scripts/wal_pages.py COPY-OF-vouch.sqlite-wal vouch.sqlite

Reads the frames of the WAL's current generation (those whose salts match its header), groups
them into commits (a frame that records the database size ends one) and names each frame's page
by the table or index it belongs to now (SQLite's `dbstat`, on the database file, read only).
Pages appended after that file was last checkpointed have no name yet: they are counted as
"(new page)". Take the copy while the server is under load (`cp` is enough: only whole frames
of the current generation are read) and the database afterwards.

A sign-in whose rows append touches few pages a commit of its own; keys that land at random
within a range (a second's worth of sessions, say) show up here as many frames a commit for that
B-tree (docs/PERFORMANCE.md, "The durable write").
"""
import collections
import sqlite3
import struct
import sys


def commits_in(wal):
    if len(wal) < 32:
        return [], 0
    _, _, page_size, _, salt1, salt2, _, _ = struct.unpack(">IIIIIIII", wal[:32])
    commits, current, offset = [], [], 32
    while offset + 24 + page_size <= len(wal):
        page, size_after, frame_salt1, frame_salt2 = struct.unpack(">IIII", wal[offset:offset + 16])
        if (frame_salt1, frame_salt2) != (salt1, salt2):
            break
        current.append(page)
        if size_after:
            commits.append(current)
            current = []
        offset += 24 + page_size
    return commits, page_size


def frames_by_tree(commits, database_path):
    """How many of the commits' frames each B-tree has, by its name in the database now."""
    database = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True)
    try:
        names = dict((page, name) for name, page in database.execute("SELECT name, pageno FROM dbstat"))
    finally:
        database.close()
    return collections.Counter(names.get(page, "(new page)") for commit in commits for page in commit)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as handle:
        commits, page_size = commits_in(handle.read())
    if not commits:
        sys.exit("no committed frames in this WAL's current generation")
    by_tree = frames_by_tree(commits, sys.argv[2])
    frames = sum(len(commit) for commit in commits)
    print(f"{len(commits)} commits, {frames / len(commits):.1f} frames a commit ({page_size}-byte pages)")
    for name, count in by_tree.most_common():
        print(f"{count / len(commits):8.2f}  {name}")


if __name__ == "__main__":
    main()
