#!/usr/bin/env bash
# Boot the built kernel of ARCH, run the kselftests and the guest suites,
# and leave the run's KTAP in OUT_DIR: the host's verdict on each guest,
# the skip list, the guest's kselftest results and each guest suite's (or
# a failure saying why there are none).
#   test-vm.sh OUT_DIR
# Two guests run side by side, one for the kselftests ($VM_DIR) and one
# for the guest suites ($VM_DIR-suites): each keeps about one host CPU
# busy, and the pair takes about as long as the kselftests' guest alone.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"
out=${1:?usage: test-vm.sh OUT_DIR}
mkdir -p "$out"

suites_dir=$VM_DIR-suites
rm -f "$VM_DIR/verdict.ktap" "$suites_dir/verdict.ktap"
GUEST_RUN=kselftests "$TOP/harness/run-vm.sh" tests &
kselftests_vm=$!
VM_PART=suites GUEST_RUN=suites "$TOP/harness/run-vm.sh" tests &
suites_vm=$!
# run-vm.sh fails only when it cannot boot: the verdicts below say so.
wait "$kselftests_vm" || true
wait "$suites_vm" || true
for vm in "$VM_DIR" "$suites_dir"; do
	ktap=$out/3-$(basename "$vm").ktap
	if [ -s "$vm/verdict.ktap" ]; then
		cp "$vm/verdict.ktap" "$ktap"
	else
		{
			ktap_plan 1
			ktap_result fail "$(basename "$vm"): boot" "no verdict: QEMU did not run; see the messages above"
		} >"$ktap"
	fi
done
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
	ktap=$suites_dir/results/guest-$name.ktap
	if [ -s "$ktap" ]; then
		cp "$ktap" "$out/6-guest-$name.ktap"
	else
		{
			ktap_plan 1
			{ tail -n 5 "$suites_dir/results/guest-$name.err" 2>/dev/null || true; } | ktap_diag
			ktap_result fail "guest: tests/$name/guest.sh" "it left no KTAP; see $suites_dir/results/guest-$name.err"
		} >"$out/6-guest-$name.ktap"
	fi
done
