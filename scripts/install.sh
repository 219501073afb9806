#!/usr/bin/env bash
# Installs the `emulator` binary from a release tarball (scripts/package.sh builds one) into a
# folder on PATH, checking the tarball against its .sha256 file when one lies beside it.
#
# Usage: scripts/install.sh [TARBALL] [--prefix DIR]
#   TARBALL  emulator-<version>-linux-<arch>.tar.gz (default: the newest in dist/)
#   DIR      where the binary goes (default: ~/.local/bin; created if missing)
set -euo pipefail

prefix="$HOME/.local/bin"
tarball=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "install: unknown option '$1' (expected --prefix DIR)" >&2; exit 2 ;;
    *) [ -z "$tarball" ] || { echo "install: one tarball at a time" >&2; exit 2; }; tarball=$1; shift ;;
  esac
done
if [ -z "$tarball" ]; then
  tarball=$(ls -t "$(dirname "$0")"/../dist/emulator-*-linux-*.tar.gz 2>/dev/null | sed -n 1p || true)
  [ -n "$tarball" ] || { echo "install: no tarball given and none in dist/ (build one with scripts/package.sh)" >&2; exit 2; }
fi
[ -f "$tarball" ] || { echo "install: no such file: $tarball" >&2; exit 2; }

if [ -f "$tarball.sha256" ]; then
  (cd "$(dirname "$tarball")" && sha256sum -c --quiet "$(basename "$tarball").sha256") ||
    { echo "install: $tarball does not match $tarball.sha256; not installing" >&2; exit 1; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
bin=$(find "$tmp" -mindepth 2 -maxdepth 2 -type f -name emulator | sed -n 1p)
[ -n "$bin" ] || { echo "install: $tarball holds no emulator binary" >&2; exit 1; }
version=$("$bin" --version 2>/dev/null) || {
  echo "install: the binary does not run here; it needs glibc 2.35+, libstdc++ (GCC 11+) and OpenSSL 3 (Debian: libssl3)" >&2
  exit 1
}

mkdir -p "$prefix"
install -m 0755 "$bin" "$prefix/emulator"
echo "installed $version as $prefix/emulator"
case ":$PATH:" in
  *":$prefix:"*) run=emulator ;;
  *) run="$prefix/emulator"; echo "($prefix is not on PATH: add it, or use the full path)" ;;
esac
echo "Try it:"
echo "  $run start                                  # Firebase's default ports (hub 4400, auth 9099, firestore 8080); Ctrl-C stops it"
echo "  $run exec --port 0 -- <your test command>   # start, run the tests against it, stop, exit with their code"
