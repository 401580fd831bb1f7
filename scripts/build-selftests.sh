#!/usr/bin/env bash
# Build and install the kselftests the guest of ARCH runs (config/test.conf
# KSFT_TARGETS) against the UAPI headers of the patched tree; where the
# arch runs 32-bit programs of another kernel ARCH (arm64: arm), install
# that ARCH's headers too, for the compat builds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log=$KSFT_DIR.log    # build/ARCH/kselftest.log for the test kernel
mkdir -p "$ARCH_BUILD"
: >"$log"
# kselftest_harness's per-case limit, for the guest's speed (config/test.conf).
# lib.mk adds USERCFLAGS to every program's flags; make does not rebuild a
# program whose flags changed, so new flags (this value, the libbpf paths
# below) rebuild them all.
case_limit=-DTEST_TIMEOUT_DEFAULT=$KSFT_CASE_TIMEOUT
ksft_obj=$OBJ/kselftest
stamp=$ksft_obj/.usercflags
compat=()
[ -z "$ARCH_COMPAT_CC" ] || compat=(COMPAT_CC="$ARCH_COMPAT_CC")
if [ -n "$ARCH_COMPAT_KERNEL" ]; then
	compat_hdr=$COMPAT_HDR_DIR
	info "installing the $ARCH_COMPAT_KERNEL UAPI headers for 32-bit programs in $compat_hdr"
	# kmake for the 32-bit ARCH, into an object dir of its own.
	(
		OBJ=$compat_hdr/obj ARCH_KERNEL=$ARCH_COMPAT_KERNEL ARCH_CROSS_COMPILE=
		kmake -s INSTALL_HDR_PATH="$compat_hdr" headers_install
	) >>"$log" 2>&1 || die "headers_install for ARCH=$ARCH_COMPAT_KERNEL failed; see $log"
	compat+=(COMPAT_KHDR_INCLUDES="-isystem $compat_hdr/include")
fi

# The text_poke programs attach BPF trampolines with libbpf: its headers
# come from the host's libbpf-dev (the same on every arch).  An arch that
# boots a Debian root of its own links that root's libbpf1, the library the
# guest loads (the cross compilers have no libbpf-dev).
user_cflags=$case_limit
user_ldflags=
if [ "$ARCH_ROOT" = debian ]; then
	root=$("$TOP/scripts/build-rootfs.sh")
	triplet=$($TARGET_CC -print-multiarch)
	root_libs=$root/usr/lib/$triplet
	[ -e "$root_libs/libbpf.so.1" ] ||
		die "no libbpf.so.1 in the $ARCH root $root_libs (config/rootfs.conf lists libbpf1)"
	libbpf=$ARCH_BUILD/libbpf
	rm -rf "$libbpf"
	mkdir -p "$libbpf/include" "$libbpf/lib"
	cp -r /usr/include/bpf "$libbpf/include/"
	ln -s "$root_libs/libbpf.so.1" "$libbpf/lib/libbpf.so"
	# -I: the proc compat build drops every -isystem word from CFLAGS.
	user_cflags+=" -I$libbpf/include"
	# libbpf's own dependencies (libelf, zlib) from the root, under
	# /usr/lib and /lib (the extracted root is not merged-/usr).
	user_ldflags="-L$libbpf/lib -Wl,-rpath-link,$root_libs:$root/lib/$triplet"
fi

flags="$user_cflags $user_ldflags"
if [ "$(cat "$stamp" 2>/dev/null)" != "$flags" ]; then
	rm -rf "$ksft_obj"
fi

info "building $ARCH kselftests: $KSFT_TARGETS (log: $log)"
rm -rf "$KSFT_DIR"
if ! kmake -j"$(nproc_jobs)" TARGETS="$KSFT_TARGETS" KSFT_INSTALL_PATH="$KSFT_DIR" \
	USERCFLAGS="$user_cflags" USERLDFLAGS="$user_ldflags" "${compat[@]}" kselftest-install \
	>>"$log" 2>&1; then
	grep -E -A5 'error' "$log" | tail -n 30 >&2 || true
	die "$ARCH kselftest build failed; full log: $log"
fi
# Every program compiled must carry the limit, and the harness must take it
# (without the series' kselftest_harness.h the define would be redefined).
# (A command continued with "\" is one line here.)
without=$(sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$log" | grep -E '\.c( |$)' |
	grep -E ' -o [^ ]' | grep -vF -- "$case_limit" || true)
[ -z "$without" ] ||
	die "kselftests built without $case_limit (a Makefile that drops USERCFLAGS?):"$'\n'"$without"
! grep -q '"TEST_TIMEOUT_DEFAULT" redefined' "$log" ||
	die "kselftest_harness.h does not take $case_limit (see $log): is the series applied?"
# Without libbpf the trampoline cases would only skip.
case " $KSFT_TARGETS " in
*" perf_events "*)
	readelf -d "$KSFT_DIR/perf_events/text_poke" 2>/dev/null | grep -q 'libbpf\.so' ||
		die "perf_events/text_poke was built without libbpf (libbpf-dev); see $log"
	;;
esac
echo "$flags" >"$stamp"
[ -s "$KSFT_DIR/kselftest-list.txt" ] || die "kselftest-install listed no tests in $KSFT_DIR"
# kselftest-install carries on past a directory that failed to build.
for target in $KSFT_TARGETS; do
	grep -q "^$target:" "$KSFT_DIR/kselftest-list.txt" ||
		die "kselftest-install installed no $target tests (a build error? see $log)"
done
info "installed $(wc -l <"$KSFT_DIR/kselftest-list.txt") $ARCH kselftests in $KSFT_DIR"
