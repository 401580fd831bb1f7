#!/bin/bash
# Runs in a guest of the test kernel, by hand (docs/figures.md has the
# figures): what loading an fentry program costs, the figure the refusal
# of ambiguous names is weighed by.  Compare a kernel with the series and
# one built with tests/mutants/fentry-refusal-dropped.patch applied (6.1's
# lookup, no count):
#   harness/run-vm.sh script bench/fentry-load-guest.sh      (each kernel)
# 1,000 loads of "r0 = 0; exit" on vmlinux's vfs_read, 5 rounds, before
# and after loading test_same_name (more module symbols: what the first
# version of the refusal walked at every load).
set -euo pipefail
echo "## fentry loads, the modules the guest loaded"
"$ADDRRES_BIN/fentry-load-bench" -n 1000 -r 5
modprobe test_same_name
echo
echo "## fentry loads, with test_same_name loaded"
"$ADDRRES_BIN/fentry-load-bench" -n 1000 -r 5
modprobe -r test_same_name
