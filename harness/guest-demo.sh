#!/bin/bash
# What `make run` shows when stdin is not a terminal: runs in the guest and
# prints what each feature of the series shows, or that it is not there.
set -euo pipefail

section() { printf '\n=== %s\n' "$*"; }

section "kernel"
echo "uname -r: $(uname -r), uname -m: $(uname -m)"
cat /proc/version

section "/proc/kallmodsyms (kallsyms with built-in modules and, where a name is ambiguous, object files)"
if [ -r /proc/kallmodsyms ]; then
	# Two lines of each form: [mod], [mod1] [mod2], {obj}, [mod] {obj}.
	for form in '	\[[^ ]*\]$' '	\[.*\] \[' '	{' '	\[.*\] {'; do
		grep -m 2 -e "$form" /proc/kallmodsyms || true
	done
	echo "$(grep -c '	[[{]' /proc/kallmodsyms) of $(wc -l </proc/kallmodsyms) lines annotated"
else
	echo "not in this kernel yet: /proc/kallsyms, for comparison:"
	head -n 4 /proc/kallsyms
fi

section "PROCMAP_QUERY (binary queries on /proc/PID/maps)"
"$ADDRRES_BIN/procmap-query"

section "PERF_RECORD_TEXT_POKE"
echo "recorded on x86_64 and arm64; the guest's perf:"
perf --version
