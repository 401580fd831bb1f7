#!/bin/bash
# Runs in a guest, by hand (docs/figures.md has the figures): what
# PERF_RECORD_TEXT_POKE records cost a static key flip, the part of
# guest-bench.sh (make bench) the text-poke hooks are weighed by.  On the
# bench kernel (no KASAN, no lockdep: they would time themselves):
#   KERNEL_FLAVOR=bench scripts/build-kernel.sh   ([ARCH=arm64] [KERNEL_BASE=7.2] on each)
#   KERNEL_FLAVOR=bench scripts/build-tools.sh
#   KERNEL_FLAVOR=bench harness/run-vm.sh script bench/text-poke-guest.sh
set -euo pipefail
echo "## PERF_RECORD_TEXT_POKE: static key flips (kernel.sched_schedstats)"
"$ADDRRES_BIN/text-poke-bench" "$@"
