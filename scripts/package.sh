#!/usr/bin/env bash
# Builds the release artifact: a stripped `emulator` with the Swift runtime linked in statically
# (it needs only glibc, libstdc++ and OpenSSL 3 at run time) and
#   dist/emulator-<version>-linux-<arch>.tar.gz         the binary, config/, README.md, LICENSE
#   dist/emulator-<version>-linux-<arch>.tar.gz.sha256  for `sha256sum -c`
# The version is what the built binary's `--version` prints (EmulatorVersion.current in
# Sources/Emulator/App/StatusRoutes.swift), so the name and the binary cannot disagree.
#
# Usage: scripts/package.sh            (build, or reuse an up-to-date build, and package)
# The build goes to .build-release/ (about 4-6 minutes from scratch on two cores; seconds when
# nothing changed). Prints the tarball's path as the last line.
set -euo pipefail
cd "$(dirname "$0")/.."

# The project's license (Apache License 2.0) travels in every tarball.
[ -f LICENSE ] || { echo "package: ERROR: no LICENSE file at the repository root" >&2; exit 1; }

scratch=.build-release
mkdir -p "$scratch"
echo "== swift build -c release --static-swift-stdlib (log: $scratch/package-build.log)" >&2
if ! swift build -c release --static-swift-stdlib --product emulator --scratch-path "$scratch" >"$scratch/package-build.log" 2>&1; then
  grep -m 30 -E 'error' "$scratch/package-build.log" >&2
  echo "package: release build failed (full log: $scratch/package-build.log)" >&2
  exit 1
fi
built="$scratch/release/emulator"

# The point of the artifact: no Swift runtime libraries needed on the target machine.
if ldd "$built" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|_FoundationICU' >&2; then
  echo "package: the binary still links a Swift runtime library dynamically (above)" >&2
  exit 1
fi

version=$("$built" --version | sed -n 's/^emulator //p')
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "package: '$built --version' printed no version (got '$version')" >&2
  exit 1
fi
case "$(uname -m)" in
  x86_64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) arch=$(uname -m) ;;
esac
name="emulator-$version-linux-$arch"

stage="dist/$name"
rm -rf "$stage" "dist/$name.tar.gz" "dist/$name.tar.gz.sha256"
mkdir -p "$stage/config"
strip --strip-all -o "$stage/emulator" "$built"
cp config/emulator.json config/firestore.rules "$stage/config/"
cp README.md "$stage/"
cp LICENSE "$stage/"

# Deterministic packaging (sorted names, fixed owner, the commit's time as every mtime, no gzip
# timestamp): the same binary always gives the same tarball.
mtime=$(git log -1 --format=%ct 2>/dev/null || echo 0)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -C dist -cf - "$name" | gzip -9n >"dist/$name.tar.gz"
(cd dist && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")

bin_bytes=$(stat -c %s "$stage/emulator")
tar_bytes=$(stat -c %s "dist/$name.tar.gz")
budget_mb=${EMULATOR_SIZE_BUDGET_MB:-40}
if [ "$bin_bytes" -gt $((budget_mb * 1048576)) ]; then
  echo "package: the stripped binary is $((bin_bytes / 1048576)) MiB, over the $budget_mb MiB budget. Did a product module" >&2
  echo "package: 'import Foundation' (CoreFoundation + ICU: about 40 MB)? See 'Foundation' in docs/architecture.md." >&2
  exit 1
fi
echo "== $name: binary $bin_bytes bytes ($((bin_bytes / 1048576)) MiB stripped, unstripped $(($(stat -c %s "$built") / 1048576)) MiB), tarball $tar_bytes bytes ($((tar_bytes / 1048576)) MiB)" >&2
echo "== needs: $(objdump -T "$stage/emulator" 2>/dev/null | grep -oE '(GLIBC|GLIBCXX|OPENSSL)_[0-9.]+' | sort -uV |
  awk -F_ '{max[$1]=$0} END {printf "%s, %s, %s", max["GLIBC"], max["GLIBCXX"], max["OPENSSL"]}') (highest symbol versions)" >&2
cat "dist/$name.tar.gz.sha256" >&2
echo "dist/$name.tar.gz"
