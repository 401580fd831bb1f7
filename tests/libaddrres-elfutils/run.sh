#!/usr/bin/env bash
# libaddrres against a newer elfutils than Debian 12's 0.188, on the host:
# the library's decompression into libelf's structures (elf_inflate.c),
# its unit index and its answers are checked where elfutils changed
# (0.189 reads a section's raw data, 0.191 finds units without
# .debug_aranges).  config/elfutils.conf pins the version:
#  1. Debian's source package of it, fetched into the cache directory
#     (lib.sh's CACHE_DIR, beside the kernel bases: another checkout, such
#     as CI's fresh clone, reuses it) once (sha256 checked), unpacked with
#     its Debian patches, and libelf and libdw built and installed there
#     (kept: later runs reuse them);
#  2. the library, built with ASan and UBSan against that libdw and
#     libelf, and test_elf.c (every case) run against both.
# Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"
# shellcheck source=../../config/elfutils.conf
. "$TOP/config/elfutils.conf"

LIB=$TOP/libaddrres
HERE=$TOP/tests/libaddrres
upstream=${ELFUTILS_VERSION%-*}
dir=$CACHE_DIR/elfutils/$ELFUTILS_VERSION
inst=$dir/inst
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ktap_plan 2

# Fetch file $1 of the source package into $dir, checked against sum $2.
fetch() {
	local f=$1 sum=$2
	if [ ! -f "$dir/$f" ] || ! printf '%s  %s\n' "$sum" "$dir/$f" | sha256sum -c --status; then
		curl -sSf --retry 3 -o "$dir/$f.part" "$ELFUTILS_POOL/$f" && mv "$dir/$f.part" "$dir/$f"
	fi
	printf '%s  %s\n' "$sum" "$dir/$f" | sha256sum -c --status
}

# Build libelf and libdw of the package into $inst: 0, or a message on stdout.
build_elfutils() {
	local d
	mkdir -p "$dir"
	if ! fetch "elfutils_$ELFUTILS_VERSION.dsc" "$ELFUTILS_DSC_SHA256" ||
		! fetch "elfutils_$upstream.orig.tar.bz2" "$ELFUTILS_ORIG_SHA256" ||
		! fetch "elfutils_$ELFUTILS_VERSION.debian.tar.xz" "$ELFUTILS_DEBIAN_SHA256"; then
		echo "cannot fetch elfutils $ELFUTILS_VERSION from $ELFUTILS_POOL (or a sum differs)"
		return 1
	fi
	rm -rf "$dir/src" "$inst"
	dpkg-source -x --no-check "$dir/elfutils_$ELFUTILS_VERSION.dsc" "$dir/src" >"$dir/build.log" 2>&1 ||
		{ echo "dpkg-source -x failed (see $dir/build.log)"; return 1; }
	(cd "$dir/src" && ./configure --prefix="$inst" --disable-debuginfod --disable-libdebuginfod \
		--disable-nls --without-zstd -q) >>"$dir/build.log" 2>&1 ||
		{ echo "configure failed (see $dir/build.log)"; return 1; }
	for d in lib libelf libebl libdwelf libdwfl libcpu backends libdw; do
		nice make -j"$(nproc)" -C "$dir/src/$d" >>"$dir/build.log" 2>&1 ||
			{ echo "make -C $d failed (see $dir/build.log)"; return 1; }
	done
	for d in libelf libdw libdwfl libdwelf; do
		make -C "$dir/src/$d" install >>"$dir/build.log" 2>&1 ||
			{ echo "make -C $d install failed (see $dir/build.log)"; return 1; }
	done
}

name="libaddrres-elfutils: elfutils $ELFUTILS_VERSION's libelf and libdw, from Debian's source package"
ok=true
if [ -f "$inst/lib/libdw.so.1" ] && [ -f "$inst/include/elfutils/libdwfl.h" ]; then
	ktap_result ok "$name (built before)"
elif out=$(build_elfutils); then
	ktap_result ok "$name"
else
	ktap_result fail "$name" "$out"
	ok=false
fi

name="libaddrres-elfutils: test_elf against elfutils $ELFUTILS_VERSION"
flags=(-I "$inst/include" "${CFLAGS_SANITIZE[@]}")
if ! $ok; then
	ktap_result fail "$name" "no elfutils $ELFUTILS_VERSION to test against"
elif ! out=$(nice make -s -C "$LIB" OUTPUT="$work/lib" CC="$HOST_CC" EXTRA_CFLAGS="${flags[*]}" 2>&1) ||
	! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" "${flags[@]}" -I "$LIB/include" -o "$work/test_elf" \
		"$HERE/test_elf.c" "$work/lib/libaddrres.a" -L "$inst/lib" -Wl,-rpath,"$inst/lib" \
		"${LIBADDRRES_ELF_LIBS[@]}" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "the library or test_elf does not build against it"
elif ! ldd "$work/test_elf" | grep "libdw.so.1 => $inst/lib/" >/dev/null; then
	ktap_result fail "$name" "test_elf does not load $inst/lib/libdw.so.1"
else
	mkdir "$work/scratch"
	rc=0
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$work/test_elf" \
		"$HERE/fixtures" "$work/scratch" >"$work/test_elf.ktap" 2>"$work/test_elf.err" || rc=$?
	cases=$(grep -c '^ok ' "$work/test_elf.ktap" || true)
	if [ "$rc" = 0 ] && [ ! -s "$work/test_elf.err" ] && ! grep -q '^not ok' "$work/test_elf.ktap"; then
		ktap_result ok "$name ($cases cases)"
	else
		cat "$work/test_elf.ktap" "$work/test_elf.err" | grep -v '^ok\|^# ' | sed -n '1,30p' | ktap_diag
		ktap_result fail "$name" "exit $rc, a case failed, or a sanitizer's report"
	fi
fi
