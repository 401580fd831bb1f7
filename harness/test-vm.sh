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

# What runs: KSFT_SELECT names kselftests (DIR:TEST or DIR, see
# skiplist.sh), GUEST_SUITES guest suites (tests/NAME/guest.sh); both from
# `make vm-test T=... SUITES=...`.  Naming either runs only what is named
# (and boots only the guests it needs); naming neither runs everything.
GUEST_SUITES=${GUEST_SUITES:-}
export KSFT_SELECT=${KSFT_SELECT:-} GUEST_SUITES=${GUEST_SUITES//,/ }
run_kselftests=yes run_suites=yes
if [ -n "$KSFT_SELECT" ] || [ -n "$GUEST_SUITES" ]; then
	[ -n "$KSFT_SELECT" ] || run_kselftests=no
	[ -n "$GUEST_SUITES" ] || run_suites=no
fi
all_suites=()
for suite in "$TOP"/tests/*/guest.sh; do all_suites+=("$(basename "$(dirname "$suite")")"); done
suites=("${all_suites[@]}")
if [ -n "$GUEST_SUITES" ]; then
	read -r -a suites <<<"$GUEST_SUITES"
	for name in "${suites[@]}"; do
		[ -f "$TOP/tests/$name/guest.sh" ] ||
			die "SUITES=$name: no tests/$name/guest.sh (guest suites: ${all_suites[*]})"
	done
fi
# A misspelt T= stops here, before any guest boots.
if [ "$run_kselftests" = yes ] && [ -f "$KSFT_DIR/kselftest-list.txt" ]; then
	"$TOP/harness/skiplist.sh" run-list "$KSFT_DIR/kselftest-list.txt" >/dev/null
fi

suites_dir=$VM_DIR-suites
rm -f "$VM_DIR/verdict.ktap" "$suites_dir/verdict.ktap"
vms=()
if [ "$run_kselftests" = yes ]; then
	GUEST_RUN=kselftests "$TOP/harness/run-vm.sh" tests &
	kselftests_vm=$!
	vms+=("$VM_DIR")
fi
if [ "$run_suites" = yes ]; then
	VM_PART=suites GUEST_RUN=suites "$TOP/harness/run-vm.sh" tests &
	suites_vm=$!
	vms+=("$suites_dir")
fi
# run-vm.sh fails only when it cannot boot: the verdicts below say so.
[ "$run_kselftests" = no ] || wait "$kselftests_vm" || true
[ "$run_suites" = no ] || wait "$suites_vm" || true
for vm in "${vms[@]}"; do
	# Where the guest's time went: a figure beside the results.
	times=$("$TOP/harness/guest-times.sh" "$vm" 8 || true)
	[ -z "$times" ] || info "$ARCH ${KERNEL_BASE} $times"
	ktap=$out/3-$(basename "$vm").ktap
	if [ -s "$vm/verdict.ktap" ]; then
		cp "$vm/verdict.ktap" "$ktap"
	else
		ktap_one_failure "$(basename "$vm"): boot" "no verdict: QEMU did not run; see the messages above" >"$ktap"
	fi
done
if [ "$run_kselftests" = yes ]; then
	# The userland must run perf: later tests record text pokes with it.
	perf=$(cat "$VM_DIR/results/perf-version" 2>/dev/null || true)
	{
		KTAP_NUMBER=0
		ktap_plan 1
		case $perf in
		"perf version "*) ktap_result ok "vm: guest userland runs perf ($perf)" ;;
		*) ktap_result fail "vm: guest userland runs perf" "perf --version said: ${perf:-nothing}" ;;
		esac
	} >"$out/3-vm-perf.ktap"
	# The skip list's KTAP when it names a test this run selected (an
	# empty plan would count as a skip of its own).
	if grep -q '^ok ' "$VM_DIR/skipped.ktap"; then
		cp "$VM_DIR/skipped.ktap" "$out/4-kselftest-skiplist.ktap"
	fi
	if [ -f "$VM_DIR/results/kselftest.ktap" ]; then
		cp "$VM_DIR/results/kselftest.ktap" "$out/5-kselftest.ktap"
	else
		ktap_one_failure kselftests "the guest left no kselftest.ktap; see $VM_DIR/console.log" \
			>"$out/5-kselftest.ktap"
	fi
fi
[ "$run_suites" = yes ] || exit 0
# The project's guest suites (tests/*/guest.sh), each its own KTAP file.
"$TOP/harness/guest-suite-results.sh" "$suites_dir/results" "$out" "${suites[@]}"
