#!/usr/bin/env bash
# Build and install the kselftests the guest runs (config/test.conf
# KSFT_TARGETS) against the UAPI headers of the patched tree.
set -eu
. "$(dirname "$0")/lib.sh"
. "$TOP/config/test.conf"

info "building kselftests: $KSFT_TARGETS (log: $BUILD_DIR/kselftest.log)"
rm -rf "$KSFT_DIR"
if ! make -C "$TREE" O="$OBJ" LOCALVERSION="$LOCALVERSION" -j"$(nproc_jobs)" \
	TARGETS="$KSFT_TARGETS" KSFT_INSTALL_PATH="$KSFT_DIR" \
	kselftest-install >"$BUILD_DIR/kselftest.log" 2>&1; then
	grep -E -A5 'error' "$BUILD_DIR/kselftest.log" | tail -n 30 >&2
	die "kselftest build failed; full log: $BUILD_DIR/kselftest.log"
fi
[ -s "$KSFT_DIR/kselftest-list.txt" ] || die "kselftest-install listed no tests in $KSFT_DIR"
info "installed $(wc -l <"$KSFT_DIR/kselftest-list.txt") kselftests in $KSFT_DIR"
