#!/usr/bin/env bash
# Build the userspace programs the guest of ARCH runs (the demo, the
# benchmarks) against the UAPI headers of the patched tree, into $BIN_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kmake -s headers >/dev/null
mkdir -p "$BIN_DIR"
for src in "$TOP"/demo/*.c "$TOP"/bench/*.c; do
	out=$BIN_DIR/$(basename "$src" .c)
	"$TARGET_CC" "${CFLAGS_STRICT[@]}" -O2 -isystem "$OBJ/usr/include" -o "$out" "$src" ||
		die "cannot build $src for $ARCH"
done
