#!/usr/bin/env bash
# `make vm-test`: boot the built kernel of ARCH, run the tests in its
# guests (harness/test-vm.sh) and summarise their KTAP.
#   T=DIR:TEST,...   only these kselftests (DIR alone: all of its tests),
#                    e.g. T=proc:proc-procmap-query; names as in
#                    build/ARCH/kselftest/kselftest-list.txt
#   SUITES=NAME,...  only these guest suites (tests/NAME/guest.sh)
# Naming either runs only what is named; naming neither runs everything.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_ktap_summary || die "cannot build harness/ktap-summary.c"
rm -rf "$VM_DIR.ktap"
KSFT_SELECT=${T:-} GUEST_SUITES=${SUITES:-} "$TOP/harness/test-vm.sh" "$VM_DIR.ktap"
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
