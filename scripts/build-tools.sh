#!/usr/bin/env bash
# Build the userspace programs the guest runs (the demo, the benchmarks)
# against the UAPI headers of the patched tree, into $BUILD_DIR/bin.
set -eu
. "$(dirname "$0")/lib.sh"

make -s -C "$TREE" O="$OBJ" LOCALVERSION="$LOCALVERSION" headers >/dev/null
mkdir -p "$BUILD_DIR/bin"
for src in "$TOP"/demo/*.c "$TOP"/bench/*.c; do
	out=$BUILD_DIR/bin/$(basename "$src" .c)
	${CC:-gcc} -std=gnu11 -Wall -Wextra -Werror -O2 -isystem "$OBJ/usr/include" \
		-o "$out" "$src" || die "cannot build $src"
done
