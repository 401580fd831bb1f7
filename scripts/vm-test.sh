#!/usr/bin/env bash
# `make vm-test`: boot the built kernel of ARCH, run the tests in its
# guests (harness/test-vm.sh) and summarise their KTAP.
#   T=DIR:TEST,...   only these kselftests (DIR alone: all of its tests),
#                    e.g. T=proc:proc-procmap-query; names as in
#                    build/ARCH/kselftest/kselftest-list.txt
#   SUITES=NAME,...  only these guest suites (tests/NAME/guest.sh)
# Naming either runs only what is named; naming neither runs everything.
#   BUSY_GUESTS=N    N more guests of the kernel spin on every vCPU beside
#                    the tested ones (harness/guest-busy.sh): the tests'
#                    time limits judged on a host busy with other guests
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_ktap_summary || die "cannot build harness/ktap-summary.c"
rm -rf "$VM_DIR.ktap"
busy_guests=${BUSY_GUESTS:-0}
[[ $busy_guests =~ ^[0-9]+$ ]] || die "BUSY_GUESTS=$busy_guests: a number of guests"
busy=()
for ((i = 1; i <= busy_guests; i++)); do
	VM_PART=busy$i "$TOP/harness/run-vm.sh" script harness/guest-busy.sh >/dev/null 2>&1 &
	busy+=("$!")
done
stop_busy() {
	local i
	for ((i = 1; i <= busy_guests; i++)); do
		VM_PART=busy$i "$TOP/harness/vm-monitor.sh" quit >/dev/null 2>&1 || true
	done
	for i in "${busy[@]}"; do
		wait "$i" || true
	done
}
trap stop_busy EXIT
[ "$busy_guests" = 0 ] || info "$busy_guests busy guest(s) of the same kernel beside the tested ones"
KSFT_SELECT=${T:-} GUEST_SUITES=${SUITES:-} "$TOP/harness/test-vm.sh" "$VM_DIR.ktap"
stop_busy
trap - EXIT
# Held against the arch's expected results; what was selected must all
# have reported (a kselftest's 32-bit build with it; a guest suite's
# results are named "NAME (guest): ...").
scope=()
if [ -n "${T:-}" ] || [ -n "${SUITES:-}" ]; then
	[ -z "${T:-}" ] || scope+=(-w vm)
	selected=${T:-}
	for t in ${selected//,/ }; do
		case $t in
		*:*) scope+=(-w "selftests: ${t%%:*}: ${t#*:}" -w "selftests: ${t%%:*}: ${t#*:}_32") ;;
		*) scope+=(-w "selftests: $t") ;;
		esac
	done
	[ -z "${SUITES:-}" ] || scope+=(-w "vm (suites)")
	suites=${SUITES:-}
	for suite in ${suites//,/ }; do
		scope+=(-w "$suite (guest)")
	done
fi
exec "$KTAP_SUMMARY" -l "$LABEL" -e "$EXPECTED_DIR/$LABEL.txt" "${scope[@]}" "$VM_DIR.ktap"/*.ktap
