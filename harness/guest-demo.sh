#!/bin/sh
# What `make run` shows when stdin is not a terminal: runs in the guest and
# prints what each feature of the series shows, or that it is not there.
set -u

section() { printf '\n=== %s\n' "$*"; }

section "kernel"
echo "uname -r: $(uname -r)"
cat /proc/version

section "/proc/kallmodsyms (kallsyms with built-in module names)"
if [ -r /proc/kallmodsyms ]; then
	grep -m 8 '\[' /proc/kallmodsyms
else
	echo "not in this kernel yet: /proc/kallsyms, for comparison:"
	head -n 4 /proc/kallsyms
fi

section "PROCMAP_QUERY (binary queries on /proc/PID/maps)"
echo "not in this kernel yet: the text of /proc/self/maps, for comparison:"
head -n 6 /proc/self/maps

section "PERF_RECORD_TEXT_POKE"
if command -v perf >/dev/null 2>&1; then
	perf --version
else
	echo "perf is not installed on the host (Debian package linux-perf)"
fi
