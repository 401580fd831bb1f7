#!/bin/bash
# Runs in the guest, on our bench kernel or the upstream reference
# (`KERNEL_FLAVOR=bench|upstream harness/run-vm.sh script
# bench/profile-guest.sh`): where the time of the smallest PROCMAP_QUERY
# batch goes (procmap-batch-loop: open the maps file, one query, close),
# and of the query alone on a maps file kept open, of a named VMA (its
# code) and of an anonymous one.  perf samples the loop's process
# (cpu-clock: TCG has no PMU) and prints its kernel functions, by share
# of the samples, above 0.5%.
set -euo pipefail
loop=$ADDRRES_BIN/procmap-batch-loop
data=$TMPDIR/perf.data

profile() { # title loop-options...
	echo "## $1"
	shift
	perf record -q -e cpu-clock -F 4000 -o "$data" -- "$loop" "$@"
	# awk, not grep | head: no SIGPIPE, and no failure when none is there.
	perf report -q -i "$data" --stdio --sort sym --percent-limit 0.5 2>/dev/null |
		awk '/\[k\]/ && n++ < 40'
	rm -f "$data"
	echo
}

echo "kernel: $(uname -r)"
profile "open, one query, close (x 20000)" 20000
profile "one query on the open maps file (x 200000)" -k 200000
profile "one query of an anonymous VMA on the open maps file (x 200000)" -k -a 200000
