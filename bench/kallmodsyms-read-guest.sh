#!/bin/bash
# Runs in a guest, by hand (docs/figures.md has the figures): the read time
# of /proc/kallmodsyms against /proc/kallsyms alone, the part of
# guest-bench.sh (make bench) that the size coding is weighed by.  On the
# bench kernel (no KASAN, no lockdep: they would time themselves):
#   KERNEL_FLAVOR=bench scripts/build-kernel.sh   ([ARCH=arm64] [KERNEL_BASE=7.2] on each)
#   KERNEL_FLAVOR=bench scripts/build-tools.sh
#   KERNEL_FLAVOR=bench harness/run-vm.sh script bench/kallmodsyms-read-guest.sh
# Whole reads as cat makes them, the two files in alternating blocks.
set -euo pipefail
echo "## /proc/kallmodsyms: a whole read (128 KiB reads, as cat) against /proc/kallsyms"
"$ADDRRES_BIN/kallmodsyms-bench" "$@"
