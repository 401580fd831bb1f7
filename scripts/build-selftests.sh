#!/usr/bin/env bash
# Build and install the kselftests the guest of ARCH runs (config/test.conf
# KSFT_TARGETS) against the UAPI headers of the patched tree; where the
# arch runs 32-bit programs of another kernel ARCH (arm64: arm), install
# that ARCH's headers too, for the compat builds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$TOP/config/test.conf"

log=$ARCH_BUILD/kselftest.log
compat=()
[ -z "$ARCH_COMPAT_CC" ] || compat=(COMPAT_CC="$ARCH_COMPAT_CC")
if [ -n "$ARCH_COMPAT_KERNEL" ]; then
	compat_hdr=$ARCH_BUILD/compat-headers
	info "installing the $ARCH_COMPAT_KERNEL UAPI headers for 32-bit programs in $compat_hdr"
	# kmake for the 32-bit ARCH, into an object dir of its own.
	(
		OBJ=$compat_hdr/obj ARCH_KERNEL=$ARCH_COMPAT_KERNEL ARCH_CROSS_COMPILE=
		kmake -s INSTALL_HDR_PATH="$compat_hdr" headers_install
	) >"$log" 2>&1 || die "headers_install for ARCH=$ARCH_COMPAT_KERNEL failed; see $log"
	compat+=(COMPAT_KHDR_INCLUDES="-isystem $compat_hdr/include")
fi

info "building $ARCH kselftests: $KSFT_TARGETS (log: $log)"
rm -rf "$KSFT_DIR"
if ! kmake -j"$(nproc_jobs)" TARGETS="$KSFT_TARGETS" KSFT_INSTALL_PATH="$KSFT_DIR" \
	"${compat[@]}" kselftest-install >>"$log" 2>&1; then
	grep -E -A5 'error' "$log" | tail -n 30 >&2 || true
	die "$ARCH kselftest build failed; full log: $log"
fi
[ -s "$KSFT_DIR/kselftest-list.txt" ] || die "kselftest-install listed no tests in $KSFT_DIR"
info "installed $(wc -l <"$KSFT_DIR/kselftest-list.txt") $ARCH kselftests in $KSFT_DIR"
