#!/bin/bash
# Obtains the pinned Debian source tarballs into DIR and checks them against SHA256SUMS.
# Order of sources: DIR itself (already fetched), the Debian mirror through a private deb-src
# apt configuration (no root, no change to the system's apt), then ../shared/deps of the checkout.
# Usage: fetch_sources.sh DIR [FALLBACK_DIR [SUMS_FILE PACKAGE=VERSION...]]
# (without SUMS_FILE: the engine's libraries pinned in SHA256SUMS; marian_deps.cmake passes
# SHA256SUMS.marian and its own packages)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
fallback=${2:-$here/../../../shared/deps}
sums=${3:-$here/SHA256SUMS}
mkdir -p "$dir"
cd "$dir"

# package=debian-version pairs whose orig tarballs are pinned in the sums file
packages="xnnpack=0.0~git20241108.4ea82e5-2 pthreadpool=0.0~git20240616.560c60d-1
fxdiv=0.0~git20200417.b408327-4 cpuinfo=0.0~git20250905.877328f-1 sentencepiece=0.1.97-3"
if [ $# -gt 3 ]; then
  packages="${*:4}"
fi

verified() { sha256sum --quiet -c "$sums" >/dev/null 2>&1; }

if ! verified; then
  missing=$(awk '{print $2}' "$sums" | while read -r f; do [ -f "$f" ] || echo "$f"; done)
  if [ -n "$missing" ] && command -v apt-get >/dev/null; then
    apt_dir=$dir/.apt
    mkdir -p "$apt_dir/lists/partial"
    cat > "$apt_dir/debian-src.sources" <<EOS
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
    opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir"
          -o "Dir::State::Lists=$apt_dir/lists" -o Acquire::Retries=2 -o Acquire::http::Timeout=20)
    echo "-- tformer deps: fetching Debian source tarballs from the mirror"
    if timeout 300 apt-get "${opts[@]}" update -qq >/dev/null 2>&1; then
      for pv in $packages; do
        # The .dsc/.debian.tar.xz beside an orig tarball may 404; only the orig is needed.
        timeout 300 apt-get "${opts[@]}" source --download-only -qq "$pv" >/dev/null 2>&1 || true
      done
      rm -f ./*.dsc ./*.debian.tar.* 2>/dev/null || true
    else
      echo "-- tformer deps: Debian mirror unreachable"
    fi
  fi
  # Anything still missing or not matching its hash comes from the pinned copies.
  while read -r sum file; do
    if ! echo "$sum  $file" | sha256sum --quiet -c >/dev/null 2>&1; then
      if [ -f "$fallback/$file" ]; then
        echo "-- tformer deps: using pinned copy $fallback/$file"
        cp "$fallback/$file" "$file"
      fi
    fi
  done < "$sums"
fi

if ! sha256sum --quiet -c "$sums"; then
  echo "tformer deps: source tarballs missing or corrupt in $dir (see above)" >&2
  exit 1
fi
echo "-- tformer deps: all source tarballs verified (SHA256)"
