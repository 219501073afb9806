#!/usr/bin/env bash
# The release check: proves the packaged emulator runs on a machine without Swift. Makes (once;
# cached in .build-chroot/) a minimal Debian root with debootstrap (variant minbase: what a bare
# system has, plus libssl3), unpacks the tarball into it and, under chroot:
#   --version (must match the tarball's name), ldd (nothing missing),
#   start --port 0 with the shipped config, answering /emulator/v1/status, one Auth sign-up, one
#   document write over REST and the same document read back over gRPC (HTTP/2 from outside the
#   chroot, against the chrooted emulator's port), then a graceful SIGTERM,
#   exec -- true, and exec -- sh -c (the emulator's environment reaches the command), and a start
#   with a service account key whose custom token is exchanged for an ID token.
# /proc is mounted in the root while the check runs, as on any system. Prints the root's glibc and OpenSSL versions and the highest symbol versions the binary needs.
#
# Usage (as root: debootstrap and chroot need it):
#   scripts/check-package.sh [dist/emulator-<version>-linux-<arch>.tar.gz]
# Without an argument it runs scripts/package.sh first.
# CHROOT_SUITE (default bookworm) and DEBIAN_MIRROR (default http://deb.debian.org/debian) pick
# the root. Installs debootstrap, curl and openssl with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
fail() { echo "check-package: FAILED: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
  echo "check-package: needs root (debootstrap and chroot); run it with sudo" >&2
  exit 1
fi

tarball=${1:-}
if [ -z "$tarball" ]; then
  tarball=$(scripts/package.sh | tail -1)
fi
[ -f "$tarball" ] || { echo "check-package: no tarball at '$tarball'" >&2; exit 1; }
name=$(basename "$tarball" .tar.gz)
version=${name#emulator-}
version=${version%-linux-*}
if [ -f "$tarball.sha256" ]; then
  (cd "$(dirname "$tarball")" && sha256sum -c --quiet "$name.tar.gz.sha256") || { echo "check-package: checksum mismatch" >&2; exit 1; }
fi
# Each listing is read whole before it is searched: under pipefail, `tar | grep -q` fails when grep
# exits at its match while tar is still writing (SIGPIPE), and CI once failed that way.
listing=$(tar -tzf "$tarball") || fail "tar cannot list $tarball"
grep -qx "$name/LICENSE" <<<"$listing" || fail "the tarball carries no LICENSE"
license=$(tar -xzOf "$tarball" "$name/LICENSE") || fail "tar cannot read $name/LICENSE"
grep -q "Apache License" <<<"$license" || fail "the tarball's LICENSE is not the Apache License"

missing=()
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

suite=${CHROOT_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root="$PWD/.build-chroot/$suite"
if [ ! -f "$root/.complete" ]; then
  echo "== debootstrap --variant=minbase --include=libssl3 $suite (cached in .build-chroot/$suite; log .build-chroot/$suite.log)"
  rm -rf "$root"
  mkdir -p "$root"
  if ! debootstrap --variant=minbase --include=libssl3 "$suite" "$root" "$mirror" >"$root.log" 2>&1; then
    tail -20 "$root.log" >&2
    echo "check-package: debootstrap failed (log: $root.log)" >&2
    exit 1
  fi
  touch "$root/.complete"
fi

if [ -e "$root/usr/lib/swift" ] || chroot "$root" sh -c 'command -v swift swiftc' >/dev/null 2>&1; then
  fail "the root has a Swift installation; the proof needs one without"
fi

# Every Linux system has /proc (the Swift runtime reads the command line from /proc/self/cmdline).
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if mountpoint -q "$root/proc"; then umount "$root/proc" || umount -l "$root/proc" || true; fi
}
trap cleanup EXIT
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc" ||
  fail "cannot mount /proc in the root (a container without CAP_SYS_ADMIN?); run the check where root may mount"

rm -rf "$root/opt/emulator"
mkdir -p "$root/opt/emulator"
tar -xzf "$tarball" -C "$root/opt/emulator" --strip-components=1
bin=/opt/emulator/emulator
echo "== in a $suite minbase root ($(chroot "$root" dpkg-query -W | wc -l) packages), no Swift: $(ls "$root/opt/emulator" | tr '\n' ' ')"

got=$(chroot "$root" "$bin" --version 2>&1) || fail "--version did not run: $got"
[ "$got" = "emulator $version" ] || fail "--version printed '$got', expected 'emulator $version'"
echo "ok   --version: $got"

libs=$(chroot "$root" ldd "$bin")
if grep -q 'not found' <<<"$libs"; then
  echo "$libs" >&2
  fail "a shared library is missing"
fi
echo "ok   ldd: $(awk '!/vdso/ {print $1}' <<<"$libs" | tr '\n' ' ')"

# Starts the chrooted emulator with `start ARGS...`, its output in LOG; sets pid and addr (the
# hub's host:port) once it is ready.
start_chrooted() {
  log=$1
  shift
  chroot "$root" "$bin" start "$@" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    grep -q '^emulator ready:' "$log" && break
    kill -0 $pid 2>/dev/null || { cat "$log" >&2; fail "the emulator exited during start-up (start $*)"; }
    sleep 0.05
  done
  addr=$(sed -n 's/^emulator ready:.* hub=\([^ ]*\).*/\1/p' "$log")
  [ -n "$addr" ] || { cat "$log" >&2; fail "no 'emulator ready:' line within 10 s (start $*)"; }
}

# SIGTERM to the emulator start_chrooted started: it must exit 0.
stop_chrooted() {
  kill -TERM $pid
  code=0
  wait $pid || code=$?
  pid=""
  [ "$code" = 0 ] || { cat "$log" >&2; fail "start exited with $code after SIGTERM"; }
}

start_chrooted "$PWD/.build-chroot/emulator.log" --config /opt/emulator/config/emulator.json --port 0 --project demo-chroot
url="http://$addr"

status=$(curl -sS --max-time 5 "$url/emulator/v1/status")
grep -q '"version" *: *"'"$version"'"' <<<"$status" || fail "status answered '$status'"
echo "ok   start --port 0: $addr, /emulator/v1/status: $status"

signup=$(curl -sS --max-time 5 -H 'Content-Type: application/json' \
  -d '{"email": "chroot@example.com", "password": "secret-123", "returnSecureToken": true}' \
  "$url/identitytoolkit.googleapis.com/v1/accounts:signUp?key=check")
token=$(sed -n 's/.*"idToken" *: *"\([^"]*\)".*/\1/p' <<<"$signup")
uid=$(sed -n 's/.*"localId" *: *"\([^"]*\)".*/\1/p' <<<"$signup")
[ -n "$token" ] && [ -n "$uid" ] || fail "sign-up answered '$signup'"
echo "ok   Auth sign-up: uid $uid"

docs="projects/demo-chroot/databases/(default)/documents"
written=$(curl -sS --max-time 5 -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
  -d '{"fields": {"owner": {"stringValue": "'"$uid"'"}}}' "$url/v1/$docs/checks?documentId=chroot")
grep -q '"name" *: *"'"$docs"'/checks/chroot"' <<<"$written" || fail "document write answered '$written'"
echo "ok   Firestore REST write: $docs/checks/chroot"

# gRPC GetDocument, built by hand so no client library is needed: a GetDocumentRequest is field
# 1 (name, length-delimited); the gRPC frame is a 0 flag byte and a 4-byte big-endian length.
docname="$docs/checks/chroot"
grpc_dir=$(mktemp -d)
python3 - "$docname" "$grpc_dir/req" <<'EOF'
import struct, sys
name = sys.argv[1].encode()
n, varint = len(name), b""
while True:
    varint += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
    n >>= 7
    if not n:
        break
msg = b"\x0a" + varint + name
open(sys.argv[2], "wb").write(b"\x00" + struct.pack(">I", len(msg)) + msg)
EOF
curl -sS --max-time 5 --http2-prior-knowledge -X POST -H 'Content-Type: application/grpc' -H 'TE: trailers' \
  -H "Authorization: Bearer $token" --data-binary @"$grpc_dir/req" -D "$grpc_dir/headers" -o "$grpc_dir/body" \
  "$url/google.firestore.v1.Firestore/GetDocument"
grep -qi '^grpc-status: *0' "$grpc_dir/headers" || { cat "$grpc_dir/headers" >&2; fail "gRPC GetDocument did not end with grpc-status 0"; }
grep -q "$uid" "$grpc_dir/body" || fail "gRPC GetDocument's answer lacks the written field"
echo "ok   Firestore gRPC GetDocument (HTTP/2, from outside the chroot): grpc-status 0, $(stat -c %s "$grpc_dir/body")-byte answer holding the document"
rm -rf "$grpc_dir"

stop_chrooted
echo "ok   SIGTERM: clean shutdown (exit 0)"

code=0
chroot "$root" "$bin" exec --port 0 -- true >/dev/null 2>&1 || code=$?
[ "$code" = 0 ] || fail "exec -- true exited with $code"
code=0
chroot "$root" "$bin" exec --port 0 --project demo-exec -- sh -c 'test -n "$FIRESTORE_EMULATOR_HOST" && test "$GCLOUD_PROJECT" = demo-exec && exit 7' >/dev/null 2>&1 || code=$?
[ "$code" = 7 ] || fail "exec -- sh -c ... exited with $code, expected the command's 7"
echo "ok   exec -- true (exit 0); exec -- sh -c: environment set, the command's exit code 7 passed through"

# A configured service account key (PKCS#8 PEM, as Google issues them) loads, and a custom token
# the control plane signs with it is exchanged for an ID token. The key is read by optimised code
# only here: a release build once freed the PEM's buffer before reading it, and debug tests passed.
sa_dir="$root/tmp/sa-check"
rm -rf "$sa_dir"
mkdir -p "$sa_dir"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$sa_dir/key.pem" 2>/dev/null || fail "openssl genpkey failed"
python3 - "$sa_dir" <<'EOF'
import json, sys
d = sys.argv[1]
pem = open(f"{d}/key.pem").read()
json.dump({"type": "service_account", "project_id": "demo-sa", "private_key_id": "check-1", "private_key": pem,
           "client_email": "svc@demo-sa.iam.gserviceaccount.com"}, open(f"{d}/sa.json", "w"))
json.dump({"project": "demo-sa", "auth": {"signIdTokens": True, "acceptUnsignedTokens": False, "serviceAccounts": ["sa.json"]}},
          open(f"{d}/emulator.json", "w"))
EOF
start_chrooted "$PWD/.build-chroot/emulator-sa.log" --config /tmp/sa-check/emulator.json --port 0
minted=$(curl -sS --max-time 5 -H 'Content-Type: application/json' -d '{"uid": "sa-check"}' "http://$addr/emulator/v1/projects/demo-sa/customTokens")
custom=$(sed -n 's/.*"token" *: *"\([^"]*\)".*/\1/p' <<<"$minted")
[ -n "$custom" ] || fail "minting a custom token answered '$minted'"
exchanged=$(curl -sS --max-time 5 -H 'Content-Type: application/json' -d '{"token": "'"$custom"'", "returnSecureToken": true}' \
  "http://$addr/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=check")
grep -q '"idToken"' <<<"$exchanged" || fail "signInWithCustomToken answered '$exchanged'"
stop_chrooted
rm -rf "$sa_dir"
echo "ok   a service account key (PKCS#8 PEM) loads; a custom token signed with it is exchanged for an ID token"

glibc=$(chroot "$root" ldd --version | sed -n 1p | awk '{print $NF}')
openssl=$(chroot "$root" dpkg-query -W -f '${Version}' libssl3)
needs=$(objdump -T "$root$bin" 2>/dev/null | grep -oE '(GLIBC|GLIBCXX|OPENSSL)_[0-9.]+' | sort -uV |
  awk -F_ '{max[$1]=$0} END {printf "%s, %s, %s", max["GLIBC"], max["GLIBCXX"], max["OPENSSL"]}')
echo "== passed in $(($(date +%s) - started)) s: $suite root with glibc $glibc, libssl3 $openssl; the binary needs at most $needs"
