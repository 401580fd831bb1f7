#!/bin/bash
# Runs in the guest for bench/upstream-bench.sh, on our bench kernel, on
# the upstream reference and on the base without the series alike:
# procmap-query-bench in PROCESSES processes per shape (each process gets
# another address-space layout, which under TCG moves a figure by up to
# 2x), each process's output after a line "### SHAPE" for the host to
# take the figures from.
set -euo pipefail
bench=$ADDRRES_BIN/procmap-query-bench
processes=3

run() { # shape options...
	local shape=$1 i
	shift
	for ((i = 1; i <= processes; i++)); do
		echo "### $shape"
		# 4: no PROCMAP_QUERY (the base kernel); its other figures count.
		"$bench" "$@" || [ $? = 4 ]
	done
}

echo "kernel: $(uname -r)"
# Upstream's published shape (see guest-bench.sh), 30 VMAs hit, all hit.
run published -v 702 -a 4435 -d 699 -u 6 -c
run hit30 -u 30
run all
