#!/usr/bin/python3
"""Hostile catalogues for the cache's path checks: copies of make_catalog.py's catalogue in which
every fr->en 1.0 record has one field that reaches a cache path (architecture, version, name,
sourceLanguage, targetLanguage, attachment.location) set to a value that climbs out of the cache
('..', '/', '\\', an absolute path, NUL, percent-encoded dots), and a listing of a folder tree to
compare before and after a client read such a catalogue.

  write(catalog, out, victim) -> [{"case", "field", "value", "catalog"}]   one folder per case under
                                 out/, its attachments a link to the original's; `victim` is the
                                 absolute path the absolute-path values name
  listing(folder, skip=())    -> {relative path: (kind, size, mtime_ns, sha256 or link target)}
  decoy(folder)               -> the files a user has (a home with .ssh/authorized_keys, a victim
                                 folder with keep/ and other/), written under folder

Usage: tests/catalog/hostile.py CATALOG OUT BOX   (the cases under OUT, a decoy under BOX whose
       victim/ the absolute-path values name; prints the cases as JSON)
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

FIELDS = ["architecture", "version", "name", "sourceLanguage", "targetLanguage", "attachment.location"]


def values(victim: str) -> list[str]:
    return [
        "x/../../../../victim/keep",       # the probe's: the pair's siblings deleted, files written to victim/keep
        "x/../../../../../.ssh",           # the probe's: ~/.ssh under the default cache
        "x/../../../../../../.ssh",
        "..",
        victim,                            # an absolute path
        "..\\..\\..\\victim",
        "a\0/../../../victim",             # NUL
        "%2e%2e%2f%2e%2e%2f%2e%2e%2fvictim",
        "..%2f..%2f..%2fvictim",
    ]


def write(catalog: str, out: str, victim: str) -> list[dict]:
    with open(os.path.join(catalog, "records.json"), encoding="utf-8") as f:
        doc = json.load(f)
    cases = []
    for field in FIELDS:
        for i, value in enumerate(values(victim)):
            name = f"{field.replace('.', '-')}-{i}"
            d = os.path.join(out, name)
            os.makedirs(d, exist_ok=True)
            if not os.path.exists(os.path.join(d, "attachments")):
                os.symlink(os.path.join(os.path.abspath(catalog), "attachments"), os.path.join(d, "attachments"))
            hostile = json.loads(json.dumps(doc))
            for r in hostile["data"]:
                if r["sourceLanguage"] == "fr" and r["targetLanguage"] == "en" and r["version"] == "1.0":
                    if field == "attachment.location":
                        r["attachment"]["location"] = value
                    else:
                        r[field] = value
            with open(os.path.join(d, "records.json"), "w", encoding="utf-8") as f:
                json.dump(hostile, f)
            cases.append({"case": name, "field": field, "value": value, "catalog": d})
    return cases


def decoy(folder: str) -> None:
    files = {
        "home/.ssh/authorized_keys": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOwnEr user@laptop\n",
        "home/Documents/letter.txt": "Dear Alice,\n",
        "victim/keep/notes.txt": "keep me\n",
        "victim/other/photo.jpg": "\xff\xd8\xff\xe0 not really a photo\n",
    }
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def listing(folder: str, skip=()) -> dict:
    """Every entry under folder but those under `skip` (absolute paths), with what it is."""
    skip = [os.path.abspath(s) for s in skip]
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            if any(path == s or path.startswith(s + os.sep) for s in skip):
                continue
            st = os.lstat(path)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                out[rel] = ("link", 0, st.st_mtime_ns, os.readlink(path))
            elif os.path.isdir(path):
                out[rel] = ("dir", 0, st.st_mtime_ns, "")
            else:
                with open(path, "rb") as f:
                    out[rel] = ("file", st.st_size, st.st_mtime_ns, hashlib.sha256(f.read()).hexdigest())
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
    return out


if __name__ == "__main__":
    decoy(sys.argv[3])
    print(json.dumps(write(sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "victim")), indent=1))
