#!/usr/bin/env bash
# Boot the built kernel of ARCH, run the kselftests, and leave the run's
# KTAP in OUT_DIR: the host's verdict on the run, the skip list, and the
# guest's kselftest results (or a failure saying why there are none).
#   test-vm.sh OUT_DIR
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"
out=${1:?usage: test-vm.sh OUT_DIR}
mkdir -p "$out"

"$TOP/harness/run-vm.sh" tests
cp "$VM_DIR/verdict.ktap" "$out/3-vm.ktap"
# The userland must run perf: later tests record text pokes with it.
perf=$(cat "$VM_DIR/results/perf-version" 2>/dev/null || true)
{
	ktap_plan 1
	case $perf in
	"perf version "*) ktap_result ok "vm: guest userland runs perf ($perf)" ;;
	*) ktap_result fail "vm: guest userland runs perf" "perf --version said: ${perf:-nothing}" ;;
	esac
} >"$out/3-vm-perf.ktap"
cp "$VM_DIR/skipped.ktap" "$out/4-kselftest-skiplist.ktap"
if [ -f "$VM_DIR/results/kselftest.ktap" ]; then
	cp "$VM_DIR/results/kselftest.ktap" "$out/5-kselftest.ktap"
else
	{
		ktap_plan 1
		ktap_result fail kselftests "the guest left no kselftest.ktap; see $VM_DIR/console.log"
	} >"$out/5-kselftest.ktap"
fi
# The project's guest suites (tests/*/guest.sh), each its own KTAP file; a
# suite that left none (or an empty one) is a failure, with its stderr.
for suite in "$TOP"/tests/*/guest.sh; do
	name=$(basename "$(dirname "$suite")")
	ktap=$VM_DIR/results/guest-$name.ktap
	if [ -s "$ktap" ]; then
		cp "$ktap" "$out/6-guest-$name.ktap"
	else
		{
			ktap_plan 1
			{ tail -n 5 "$VM_DIR/results/guest-$name.err" 2>/dev/null || true; } | ktap_diag
			ktap_result fail "guest: tests/$name/guest.sh" "it left no KTAP; see $VM_DIR/results/guest-$name.err"
		} >"$out/6-guest-$name.ktap"
	fi
done
