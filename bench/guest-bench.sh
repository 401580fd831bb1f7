#!/bin/sh
# Runs in the guest (`make bench`): the PROCMAP_QUERY benchmark, first with
# addresses spread over every VMA (the worst case for the ioctl: one query
# per address range), then with addresses in 30 of the 700 VMAs, the way
# profiler stack traces hit a few binaries (the shape of upstream's figures).
set -eu
bench=$BUILD_DIR/bin/procmap-query-bench
echo "## all 700 VMAs hit"
"$bench" "$@"
echo
echo "## 30 of 700 VMAs hit"
"$bench" -u 30 "$@"
