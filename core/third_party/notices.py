#!/usr/bin/env python3
"""Writes THIRD_PARTY_NOTICES: the licences of the third-party code compiled into tformer's builds.

The wasm builds that the npm package ships (web/dist/tformer-*.wasm and their JavaScript glue)
carry XNNPACK, pthreadpool, FXdiv, SentencePiece (with the protobuf-lite, Abseil and Darts-clone
code it bundles), zlib with MiniZip, yaml-cpp, Zstandard, CLD2, nlohmann/json and Emscripten's runtime (its
JavaScript support code, embind, musl libc, libc++, libc++abi, compiler-rt, dlmalloc); the native
CLI also carries cpuinfo. Their licences require the notices in binary distributions.

Each notice is read from where the code comes from:
- the pinned source tarballs (core/third_party/SHA256SUMS, SHA256SUMS.marian and SHA256SUMS.cld2), each checked
  against its sha256 before it is read: their own LICENSE files;
- nlohmann/json and Emscripten, which the build takes from Debian packages (nlohmann-json3-dev,
  emscripten): the package's machine-readable copyright file, the paragraphs of the files that
  are compiled in; and musl's own COPYRIGHT file as Emscripten ships it.

  core/third_party/notices.py                    write THIRD_PARTY_NOTICES at the repository root
  core/third_party/notices.py --check            exit 1 if the committed file is not what this writes
  core/third_party/notices.py --sources DIR ...  where the tarballs are (default: the build folders'
                                                 _deps/downloads, then ../shared/deps)
"""
from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "THIRD_PARTY_NOTICES"
SUMS = [HERE / "SHA256SUMS", HERE / "SHA256SUMS.marian", HERE / "SHA256SUMS.cld2"]
DEFAULT_SOURCES = [ROOT / "build-wasm" / "_deps" / "downloads", ROOT / "build" / "_deps" / "downloads",
                   ROOT / "build-wasm-relaxed" / "_deps" / "downloads", ROOT.parent / "shared" / "deps"]

# (component, tarball name prefix, path of the notice inside the tarball below its top folder, what
# it is used for). A path "FILE#comment" takes the leading comment of a source file, up to the
# line that closes its licence (MiniZip keeps its notice there, not in a file of its own).
FROM_TARBALLS = [
    ("XNNPACK", "xnnpack_", "LICENSE", "matrix products (wasm and native)"),
    ("pthreadpool", "pthreadpool_", "LICENSE", "XNNPACK's thread pool (wasm and native)"),
    ("FXdiv", "fxdiv_", "LICENSE", "integer division in pthreadpool (header-only)"),
    ("cpuinfo", "cpuinfo_", "LICENSE", "CPU feature detection for XNNPACK (native; wasm uses its headers only)"),
    ("SentencePiece", "sentencepiece_", "LICENSE", "the tokenizer (wasm; the native build links Debian's libsentencepiece)"),
    ("protobuf-lite, as bundled in SentencePiece", "sentencepiece_", "third_party/protobuf-lite/LICENSE",
     "SentencePiece's model file reader (wasm)"),
    ("Abseil, the part bundled in SentencePiece", "sentencepiece_", "third_party/absl/LICENSE", "SentencePiece (wasm)"),
    ("Darts-clone, as bundled in SentencePiece", "sentencepiece_", "third_party/darts_clone/LICENSE",
     "SentencePiece's normalizer and vocabulary lookup (wasm)"),
    ("zlib", "zlib_", "LICENSE", "gzip and the .npz zip container in the Marian importer (wasm)"),
    ("MiniZip (zlib's contrib/minizip)", "zlib_", "contrib/minizip/unzip.h#comment", "the .npz zip container (wasm)"),
    ("yaml-cpp", "yaml-cpp_", "LICENSE", "Marian's YAML options and vocabularies (wasm)"),
    ("Zstandard (libzstd)", "libzstd_", "LICENSE",
     "unpacking the model catalogue's .zst files (wasm; the native build links Debian's libzstd)"),
    ("CLD2 (Compact Language Detector 2)", "cld2_", "LICENSE",
     "language detection (wasm; the native build links Debian's libcld2)"),
]

# Debian packages: (component, package, copyright file, the Files patterns compiled in, extra
# upstream files (path, how the notices name it), what it is used for).
FROM_DEBIAN = [
    ("JSON for Modern C++ (nlohmann/json)", "nlohmann-json3-dev", "/usr/share/doc/nlohmann-json3-dev/copyright",
     ["*", "include/nlohmann/detail/conversions/to_chars.hpp", "include/nlohmann/detail/output/serializer.hpp"], [],
     "the .tfm header's JSON (wasm and native; header-only)"),
    ("Emscripten's runtime: its JavaScript support code and embind, libc++, libc++abi, compiler-rt, dlmalloc, musl libc",
     "emscripten", "/usr/share/doc/emscripten/copyright",
     ["*", "system/lib/libcxx/*", "system/lib/libcxxabi/*", "system/lib/compiler-rt/*", "system/lib/dlmalloc.c"],
     [("/usr/share/emscripten/system/lib/libc/musl/COPYRIGHT", "musl's COPYRIGHT in Emscripten's system/lib/libc/musl")],
     "the wasm modules' JavaScript glue, C and C++ runtime (wasm)"),
]

RULE = "=" * 78


class NoticeError(Exception):
    pass


def pinned_tarballs(sources: list[Path]) -> dict[str, tuple[Path, str]]:
    """name -> (path, sha256) of every pinned tarball, found in `sources` and verified."""
    found = {}
    for sums in SUMS:
        for line in sums.read_text().splitlines():
            if not line.strip():
                continue
            digest, name = line.split()
            candidates = [d / name for d in sources if (d / name).is_file()]
            if not candidates:
                raise NoticeError(f"{name} (pinned in {sums.name}) is in none of: " + ", ".join(map(str, sources)) +
                                  " (a configure of build-wasm fetches it)")
            for path in candidates:
                if hashlib.sha256(path.read_bytes()).hexdigest() == digest:
                    found[name] = (path, digest)
                    break
            else:
                raise NoticeError(f"{candidates[0]} does not match its sha256 in {sums.name}")
    return found


def leading_comment(text: str) -> str:
    """The first /* ... */ comment of a C file, up to its licence's closing rule of dashes."""
    start, end = text.index("/*"), text.index("*/")
    lines = text[start + 2:end].splitlines()
    rules = [i for i, l in enumerate(lines) if re.fullmatch(r"\s*-{20,}\s*", l)]
    if len(rules) >= 2:
        lines = lines[:rules[1]]
    return "\n".join(l.rstrip() for l in lines).strip("\n")


def read_from_tarball(path: Path, inner: str) -> str:
    member, _, part = inner.partition("#")
    with tarfile.open(path) as tar:
        names = [m for m in tar.getmembers() if m.isfile() and (m.name == member or m.name.endswith("/" + member))
                 and m.name.count("/") <= member.count("/") + 1]
        if len(names) != 1:
            raise NoticeError(f"{path.name} has {len(names)} files named {member}")
        text = tar.extractfile(names[0]).read().decode("utf-8")
    if part == "comment":
        text = leading_comment(text)
    return text.strip("\n") + "\n"


def dep5_paragraphs(text: str) -> list[str]:
    return [p.strip("\n") for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def dep5_field(paragraph: str, name: str) -> str | None:
    m = re.search(rf"^{name}:(.*(?:\n[ \t].*)*)", paragraph, re.M)
    return m.group(1) if m else None


def from_debian_copyright(path: str, patterns: list[str]) -> str:
    """The Files paragraphs of `patterns` and the stand-alone License paragraphs they name."""
    try:
        paragraphs = dep5_paragraphs(Path(path).read_text())
    except FileNotFoundError:
        raise NoticeError(f"{path} is missing (its Debian package is not installed)")
    chosen, licences = [], []
    for pattern in patterns:
        match = [p for p in paragraphs if p.startswith("Files:") and pattern in dep5_field(p, "Files").split()]
        if len(match) != 1:
            raise NoticeError(f"{path}: {len(match)} paragraphs for Files {pattern}")
        chosen.append(match[0])
        licence = dep5_field(match[0], "License").splitlines()[0].strip()
        for name in re.split(r"\s+(?:or|and)\s+", licence):
            if name not in licences:
                licences.append(name)
    for name in licences:
        standalone = [p for p in paragraphs if p.startswith("License:") and dep5_field(p, "License").splitlines()[0].strip() == name]
        chosen.extend(standalone[:1])  # a licence stated in full inside its Files paragraph has none
    return "\n\n".join(chosen) + "\n"


def debian_version(package: str) -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout:
        raise NoticeError(f"the Debian package {package} is not installed")
    return out.stdout


def render(sources: list[Path]) -> str:
    tarballs = pinned_tarballs(sources)
    sections = []
    for component, prefix, inner, use in FROM_TARBALLS:
        (name, (path, digest)), = [(n, v) for n, v in tarballs.items() if n.startswith(prefix)]
        sections.append((component, use, f"{name} (sha256 {digest}), {inner.partition('#')[0]}",
                         read_from_tarball(path, inner)))
    for component, package, copyright_file, patterns, extra, use in FROM_DEBIAN:
        text = from_debian_copyright(copyright_file, patterns)
        origin = f"the copyright file of the Debian package {package} {debian_version(package)}"
        for f, label in extra:
            try:
                text += f"\n{Path(f).read_text().strip(chr(10))}\n"
            except FileNotFoundError:
                raise NoticeError(f"{f} is missing (its Debian package is not installed)")
            origin += f", and {label}"
        sections.append((component, use, origin, text))

    out = ["THIRD-PARTY SOFTWARE NOTICES", "",
           "tformer-wasm's WebAssembly builds (dist/tformer-*.wasm and their JavaScript glue in the npm",
           "package) and its native command-line tool contain the third-party software listed below,",
           "under the licences reproduced here. tformer-wasm's own licence is in LICENSE.",
           "",
           "This file is written by core/third_party/notices.py from the pinned sources' own licence",
           "files and, for code the build takes from Debian packages, from their copyright files.",
           ""]
    for i, (component, use, _, _) in enumerate(sections, 1):
        out.append(f"{i:2}. {component}: {use}")
    for i, (component, use, origin, text) in enumerate(sections, 1):
        out += ["", RULE, f"{i}. {component}", f"   from {origin}", RULE, "", text.rstrip("\n")]
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", nargs="+", type=Path, default=DEFAULT_SOURCES,
                        help="folders holding the pinned source tarballs")
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    try:
        text = render(args.sources)
    except NoticeError as e:
        print(f"notices.py: {e}", file=sys.stderr)
        return 2
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is not what core/third_party/notices.py writes: run it and commit the result", file=sys.stderr)
            return 1
        print(f"{args.out}: up to date")
        return 0
    args.out.write_text(text)
    print(f"wrote {args.out} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
