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
if [ -n "$ARCH_COMPAT_CC" ]; then
	# The Makefiles drop their 32-bit programs, silently, when this cannot
	# link: fail here instead, naming what to install.
	# shellcheck disable=SC2086 # the compiler and its options
	echo 'int main(void) { return 0; }' | $ARCH_COMPAT_CC -x c -o /dev/null - >>"$log" 2>&1 ||
		die "$ARCH's compat compiler ($ARCH_COMPAT_CC, config/arch/$ARCH.conf) cannot link a program; the 32-bit kselftests need it (scripts/deps.sh installs its packages; see $log)"
	compat=(COMPAT_CC="$ARCH_COMPAT_CC")
fi
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

# The text_poke and bpf_same_name programs load BPF with libbpf.
libbpf_for_arch
user_cflags="$case_limit${LIBBPF_CFLAGS:+ $LIBBPF_CFLAGS}"
user_ldflags=$LIBBPF_LDFLAGS

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
# Without libbpf the trampoline and same-name cases would only skip: where
# the directory's Makefile links it (not before the patch that adds them,
# for make check-series), the program must have been linked with it.
for prog in perf_events/text_poke kallmodsyms/bpf_same_name; do
	case " $KSFT_TARGETS " in *" ${prog%%/*} "*) ;; *) continue ;; esac
	grep -qs -- '-lbpf' "$KERNEL_SRC/tools/testing/selftests/${prog%%/*}/Makefile" || continue
	readelf -d "$KSFT_DIR/$prog" 2>/dev/null | grep 'libbpf\.so' >/dev/null ||
		die "$prog was built without libbpf (libbpf-dev); see $log"
done
echo "$flags" >"$stamp"
[ -s "$KSFT_DIR/kselftest-list.txt" ] || die "kselftest-install listed no tests in $KSFT_DIR"
# kselftest-install carries on past a directory that failed to build.
for target in $KSFT_TARGETS; do
	grep -q "^$target:" "$KSFT_DIR/kselftest-list.txt" ||
		die "kselftest-install installed no $target tests (a build error? see $log)"
done
# The 32-bit programs, wherever the arch has a compat compiler.
if [ -n "$ARCH_COMPAT_CC" ]; then
	for test in $KSFT_COMPAT_TESTS; do
		case " $KSFT_TARGETS " in *" ${test%%:*} "*) ;; *) continue ;; esac
		grep -qxF "$test" "$KSFT_DIR/kselftest-list.txt" || continue
		grep -qxF "${test}_32" "$KSFT_DIR/kselftest-list.txt" ||
			die "kselftest-install installed $test but not ${test}_32 (config/test.conf KSFT_COMPAT_TESTS; compat compiler: $ARCH_COMPAT_CC; see $log)"
	done
fi
info "installed $(wc -l <"$KSFT_DIR/kselftest-list.txt") $ARCH kselftests in $KSFT_DIR"
