#!/usr/bin/env bash
# The benchmark `make bench` runs on the host: symbolize-bench's process
# part (libaddrres against eu-addr2line --pid, on a process with about 700
# VMAs made of copies of libaddrres.so) measures user-space work that the
# emulator would only slow down, and needs eu-addr2line, which the arm64
# guest's root lacks.  Its kernel part runs here on the host's kernel and,
# in the guest, on ours (guest-bench.sh).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

out=$BUILD_DIR/host-bench
mkdir -p "$out"
make -s -C "$TOP/libaddrres" OUTPUT="$out/libaddrres" CC="$HOST_CC" ||
	die "cannot build libaddrres for the host"
"$HOST_CC" "${CFLAGS_STRICT[@]}" -O2 -I "$TOP/libaddrres/include" -o "$out/symbolize-bench" \
	"$TOP/bench/symbolize-bench.c" "$out/libaddrres/libaddrres.a" "${LIBADDRRES_ELF_LIBS[@]}" ||
	die "cannot build bench/symbolize-bench.c for the host"
echo "## libaddrres against eu-addr2line --pid (host, $(uname -r))"
TMPDIR=${TMPDIR:-/tmp} "$out/symbolize-bench" -l "$out/libaddrres/libaddrres.so.0" "$@"
