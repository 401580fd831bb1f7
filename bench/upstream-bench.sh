#!/usr/bin/env bash
# `make bench`, last part on each arch: the PROCMAP_QUERY benchmark on our
# bench kernel and on the pinned upstream reference (config/upstream.conf,
# built with the same config fragments), booted in turns under the same
# emulator, ROUNDS boots of each (bench/upstream-guest.sh runs in the
# guest).  Prints, per shape and figure, the median of every process of
# every boot on each kernel and ours / upstream; the raw outputs stay in
# $BUILD_DIR/upstream-bench/$ARCH.
#
#   upstream-bench.sh [ROUNDS]    (default 2; the bench kernel and the
#                                  benchmark programs must be built)
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

rounds=${1:-2}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "usage: upstream-bench.sh [ROUNDS]"
out=$BUILD_DIR/upstream-bench/$ARCH
# The figures compared: per address batch (open, queries, close), the
# queries alone, the rest of a batch and open() + close() of the maps file
# and of two other files, the text methods, AUTO, build IDs, and one
# query at 100, 10,000 and 60,000 VMAs with the time to read the whole
# maps text there.
figures="ioctl_us_per_run ioctl_queries_us_per_run ioctl_ns_per_query
ioctl_overhead_us_per_run open_close_maps_us open_close_status_us open_close_null_us
text_us_per_run text_stdio_us_per_run auto_us_per_run
buildid_plain_ns_per_query buildid_ns_per_query
query_ns_100 query_ns_10000 query_ns_60000
maps_read_us_100 maps_read_us_10000 maps_read_us_60000"

"$TOP/scripts/fetch-base.sh" --upstream >/dev/null
KERNEL_FLAVOR=upstream "$TOP/scripts/build-kernel.sh"
rm -rf "$out"
mkdir -p "$out"
for ((r = 1; r <= rounds; r++)); do
	for flavor in bench upstream; do
		KERNEL_FLAVOR=$flavor "$TOP/harness/run-vm.sh" script bench/upstream-guest.sh \
			>"$out/$flavor.$r.out"
	done
done

ours=$(awk '$1 == "kernel:" { print $2; exit }' "$out/bench.1.out")
theirs=$(awk '$1 == "kernel:" { print $2; exit }' "$out/upstream.1.out")
echo "## PROCMAP_QUERY: ours ($ours) against upstream ($theirs), $ARCH, $rounds boots each"
echo "(medians over every process of every boot; ratio below 1: ours is faster)"
# Each file: "### SHAPE" opens a process's output, "KEY: NUMBER" lines
# are its figures.  Medians by insertion sort: mawk has no asort().
awk -v figures="$figures" '
	FNR == 1 { kernel = FILENAME ~ /\/upstream\.[0-9]+\.out$/ ? "upstream" : "ours" }
	/^### / { shape = $2 }
	shape != "" && $1 ~ /:$/ && $2 ~ /^[0-9.]+$/ {
		key = substr($1, 1, length($1) - 1)
		# Every process measures the scaling the same way, whatever its shape.
		s = key ~ /^(query_ns|maps_read_us)_/ ? "scaling" : shape
		if (!(s in seen)) { seen[s] = 1; shapes[++nshapes] = s }
		k = kernel SUBSEP s SUBSEP key
		v[k, ++n[k]] = $2 + 0
	}
	function median(k,    i, j, t, a) {
		for (i = 1; i <= n[k]; i++) a[i] = v[k, i]
		for (i = 2; i <= n[k]; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n[k] % 2 ? a[(n[k] + 1) / 2] : (a[n[k] / 2] + a[n[k] / 2 + 1]) / 2
	}
	END {
		nf = split(figures, f)
		printf "%-10s %-27s %12s %12s %14s\n", "shape", "figure", "ours", "upstream", "ours/upstream"
		for (s = 1; s <= nshapes; s++)
			for (i = 1; i <= nf; i++) {
				ko = "ours" SUBSEP shapes[s] SUBSEP f[i]
				ku = "upstream" SUBSEP shapes[s] SUBSEP f[i]
				if (!n[ko] || !n[ku]) continue
				o = median(ko); u = median(ku)
				printf "%-10s %-27s %12.1f %12.1f %14s\n", shapes[s], f[i], o, u,
					(u > 0 ? sprintf("%.2f", o / u) : "-")
				if (u > 0) keys = keys sprintf("upstream_ratio_%s_%s: %.3f\n", shapes[s], f[i], o / u)
			}
		printf "--- upstream-bench results ---\n%s", keys
	}' "$out"/bench.*.out "$out"/upstream.*.out
