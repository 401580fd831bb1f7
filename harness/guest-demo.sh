#!/bin/bash
# What `make run` shows when stdin is not a terminal: runs in the guest and
# prints what each feature of the series shows, or that it is not there.
set -euo pipefail

section() { printf '\n=== %s\n' "$*"; }

section "kernel"
echo "uname -r: $(uname -r), uname -m: $(uname -m)"
cat /proc/version

section "/proc/kallmodsyms (kallsyms with built-in module names)"
if [ -r /proc/kallmodsyms ]; then
	grep -m 8 '\[' /proc/kallmodsyms
else
	echo "not in this kernel yet: /proc/kallsyms, for comparison:"
	head -n 4 /proc/kallsyms
fi

section "PROCMAP_QUERY (binary queries on /proc/PID/maps)"
"$ADDRRES_BIN/procmap-query"

section "PERF_RECORD_TEXT_POKE"
echo "not in this series yet; the guest's perf, which will record it:"
perf --version
