#!/usr/bin/env bash
# A guest that only keeps its CPUs busy, booted beside the tested guests by
# `make vm-test BUSY_GUESTS=N` (scripts/vm-test.sh) to judge the tests'
# time limits on a host that runs other guests.  It spins on every vCPU
# until the host stops it, or BUSY_SECONDS (default: an hour) have passed.
set -euo pipefail
for ((cpu = 0; cpu < $(nproc); cpu++)); do
	while :; do :; done &
done
sleep "${BUSY_SECONDS:-3600}"
