#!/usr/bin/env bash
# Build the userspace programs the guest of ARCH runs (the demo, the
# benchmarks, the addrres tool) against the UAPI headers of the patched tree, into $BIN_DIR,
# linked with libaddrres built for ARCH (static, into $ARCH_BUILD/libaddrres).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kmake -s headers >/dev/null
mkdir -p "$BIN_DIR"
# The cross compilers have no libelf for their arch (no libelf-dev:arm64):
# without it the library finds no build IDs on its text path, which the
# guest programs do not use (they ask PROCMAP_QUERY for them).  Only the
# static library: the shared one would link -lelf.
lib_out=$ARCH_BUILD/libaddrres
make -s -C "$TOP/libaddrres" OUTPUT="$lib_out" CC="$TARGET_CC" AR="${ARCH_CROSS_COMPILE}ar" \
	EXTRA_CFLAGS="-isystem $OBJ/usr/include" LIBELF=0 "$lib_out/libaddrres.a" ||
	die "cannot build libaddrres for $ARCH"
for src in "$TOP"/demo/*.c "$TOP"/bench/*.c "$TOP"/addrres/addrres.c; do
	out=$BIN_DIR/$(basename "$src" .c)
	"$TARGET_CC" "${CFLAGS_STRICT[@]}" -O2 -isystem "$OBJ/usr/include" \
		-I "$TOP/libaddrres/include" -o "$out" "$src" "$lib_out/libaddrres.a" ||
		die "cannot build $src for $ARCH"
done
