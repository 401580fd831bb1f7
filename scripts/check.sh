#!/usr/bin/env bash
# `make check`: every test there is, then one closing line
# "N passed, N failed, N skipped" from harness/ktap-summary.  Each stage
# leaves KTAP in $RESULTS_DIR; a stage that cannot run says why there as a
# failed test, so the closing line is printed whatever broke.
set -u
. "$(dirname "$0")/lib.sh"
. "$TOP/config/test.conf"

"$TOP/scripts/deps.sh" || exit 1
rm -rf "$RESULTS_DIR"
mkdir -p "$RESULTS_DIR"
build_ktap_summary || die "cannot build harness/ktap-summary.c"

# A stage's failure as one KTAP test, so the summary counts it.
stage_failed() { # file name reason
	printf 'TAP version 13\n1..1\nnot ok 1 %s # %s\n' "$2" "$3" >"$RESULTS_DIR/$1"
}

info "harness self-tests"
"$TOP/tests/harness/run.sh" >"$RESULTS_DIR/1-harness.ktap"
"$TOP/tests/harness/pin-tests.sh" >"$RESULTS_DIR/1-harness-pin.ktap"
info "benchmark self-checks on the host kernel"
"$TOP/tests/bench/run.sh" >"$RESULTS_DIR/1-bench-host.ktap"

built=1
for step in "make-tree.sh --lenient" build-kernel.sh build-selftests.sh build-tools.sh; do
	if ! "$TOP/scripts/"$step; then
		stage_failed 2-build.ktap "build: ${step%% *}" "failed: see the messages above"
		built=0
		break
	fi
done

if [ "$built" = 1 ]; then
	info "UAPI ABI checks against $OBJ/usr/include"
	"$TOP/tests/uapi/run.sh" >"$RESULTS_DIR/2-uapi.ktap"
fi

if [ "$built" = 1 ] && ! "$TOP/harness/test-vm.sh" "$RESULTS_DIR"; then
	stage_failed 3-vm.ktap "vm: test run" "harness/test-vm.sh failed: see the messages above"
fi

echo
echo "Results (KTAP in $RESULTS_DIR, guest console in $VM_DIR/console.log):"
exec "$KTAP_SUMMARY" "$RESULTS_DIR"/*.ktap
