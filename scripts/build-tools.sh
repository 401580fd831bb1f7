#!/usr/bin/env bash
# Build the userspace programs the guest of ARCH runs (the demo, the
# benchmarks, the addrres tool) against the UAPI headers of the patched
# tree, into $BIN_DIR, linked with libaddrres built for ARCH (static, into
# $ARCH_BUILD/libaddrres; addrres's own copy in $ARCH_BUILD/addrres).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kmake -s headers >/dev/null
mkdir -p "$BIN_DIR"
# libaddrres with elfutils, the guest's addrres printing ELF symbols too:
# the host's libdw where the guest runs on the host's root, else that of
# the arch's root (libdw_for_arch).  Only the static library.
libdw_for_arch
read -r -a libdw_ldflags <<<"$LIBDW_LDFLAGS"
lib_out=$ARCH_BUILD/libaddrres
make -s -C "$TOP/libaddrres" OUTPUT="$lib_out" CC="$TARGET_CC" AR="${ARCH_CROSS_COMPILE}ar" \
	EXTRA_CFLAGS="-isystem $OBJ/usr/include${LIBDW_CFLAGS:+ $LIBDW_CFLAGS}" "$lib_out/libaddrres.a" ||
	die "cannot build libaddrres for $ARCH"
# Programs that load BPF programs: linked with libbpf, below.
libbpf_programs=(fentry-load-bench)
# A program is one .c file, or a directory of them (bench/procmap-query-bench/).
for src in "$TOP"/demo/*.c "$TOP"/bench/*.c "$TOP"/bench/*/; do
	name=$(basename "$src" .c)
	[[ " ${libbpf_programs[*]} " != *" $name "* ]] || continue
	srcs=("$src")
	[ ! -d "$src" ] || srcs=("$src"*.c)
	"$TARGET_CC" "${CFLAGS_STRICT[@]}" -O2 -isystem "$OBJ/usr/include" \
		-I "$TOP/libaddrres/include" -o "$BIN_DIR/$name" "${srcs[@]}" "$lib_out/libaddrres.a" \
		"${libdw_ldflags[@]}" "${LIBADDRRES_ELF_LIBS[@]}" ||
		die "cannot build $src for $ARCH"
done

# addrres, by its Makefile: with its BPF counter (addrres count), whose BPF
# object and skeleton are built with the host's clang and bpftool (BPF
# bytecode is the same for every arch), linked with libbpf for ARCH.
libbpf_for_arch
make -s -C "$TOP/addrres" OUTPUT="$ARCH_BUILD/addrres" CC="$TARGET_CC" AR="${ARCH_CROSS_COMPILE}ar" \
	EXTRA_CFLAGS="-isystem $OBJ/usr/include${LIBBPF_CFLAGS:+ $LIBBPF_CFLAGS}${LIBDW_CFLAGS:+ $LIBDW_CFLAGS}" \
	EXTRA_LDFLAGS="$LIBBPF_LDFLAGS${LIBDW_LDFLAGS:+ $LIBDW_LDFLAGS}" || die "cannot build addrres for $ARCH"
cp "$ARCH_BUILD/addrres/addrres" "$BIN_DIR/addrres"
read -r -a libbpf_cflags <<<"${LIBBPF_CFLAGS:-}"
read -r -a libbpf_ldflags <<<"${LIBBPF_LDFLAGS:-}"
for name in "${libbpf_programs[@]}"; do
	"$TARGET_CC" "${CFLAGS_STRICT[@]}" -O2 -isystem "$OBJ/usr/include" "${libbpf_cflags[@]}" \
		-o "$BIN_DIR/$name" "$TOP/bench/$name.c" "${libbpf_ldflags[@]}" -lbpf ||
		die "cannot build bench/$name.c for $ARCH"
done
# The ELF address of its main(), for tests/addrres/guest.sh to symbolize.
nm "$BIN_DIR/addrres" | awk '$3 == "main" { print $1 }' >"$BIN_DIR/addrres.main"

# The tree's perf, which tests/perf/guest.sh records with beside Debian's.
# An arch that boots a Debian root of its own is cross-built against that
# root's libelf (the cross compilers have no libelf-dev), with the host's
# libelf headers (elfutils's, the same on every arch); without libdw or zlib
# there (NO_DWARF, NO_ZLIB, NO_LZMA), which recording does not need.
perf_out=$ARCH_BUILD/perf
perf_args=(O="$perf_out" CC="$(kernel_cc)" "${PERF_MAKE_FLAGS[@]}")
if [ -n "$ARCH_CROSS_COMPILE" ]; then
	[ "$ARCH_ROOT" = debian ] || die "no libelf to cross-build perf for $ARCH against"
	root=$("$TOP/scripts/build-rootfs.sh")
	triplet=$($TARGET_CC -print-multiarch)
	[ -e "$root/usr/lib/$triplet/libelf.so.1" ] ||
		die "no libelf.so.1 in the $ARCH root $root (config/rootfs.conf: linux-perf brings it)"
	deps=$ARCH_BUILD/perf-deps
	rm -rf "$deps"
	mkdir -p "$deps/include" "$deps/lib"
	cp /usr/include/libelf.h /usr/include/gelf.h /usr/include/nlist.h "$deps/include/"
	ln -s "$root/usr/lib/$triplet/libelf.so.1" "$deps/lib/libelf.so"
	perf_args+=(ARCH="$ARCH_KERNEL" CROSS_COMPILE="$ARCH_CROSS_COMPILE"
		EXTRA_CFLAGS="-I$deps/include"
		LDFLAGS="-L$deps/lib -Wl,-rpath-link,$root/usr/lib/$triplet:$root/lib/$triplet"
		NO_DWARF=1 NO_ZLIB=1 NO_LZMA=1)
fi
mkdir -p "$perf_out"
log=$perf_out/build.log
make -C "$TREE/tools/perf" "${perf_args[@]}" -j"$(nproc_jobs)" >"$log" 2>&1 ||
	die "cannot build the tree's perf for $ARCH; see $log"
cp "$perf_out/perf" "$BIN_DIR/perf"

# The BPF program the guest samples (BPF bytecode: the same for every arch).
clang -O2 -g -target bpf "${CFLAGS_STRICT[@]}" -I "/usr/include/$(gcc -print-multiarch)" \
	-c "$TOP/tests/perf/spin.bpf.c" -o "$BIN_DIR/spin.bpf.o" ||
	die "cannot build tests/perf/spin.bpf.c"
