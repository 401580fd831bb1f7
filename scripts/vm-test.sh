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
exec "$KTAP_SUMMARY" -l "$ARCH" "$VM_DIR.ktap"/*.ktap
