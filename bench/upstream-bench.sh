#!/usr/bin/env bash
# `make bench`, last part on each arch: the PROCMAP_QUERY benchmark on our
# bench kernel, on the pinned upstream reference (config/upstream.conf)
# and on the pinned 6.1 without the series (config/base.conf), the last
# two built with the bench kernel's config fragments, booted in turns
# under the same emulator, ROUNDS boots of each (bench/upstream-guest.sh
# runs in the guest).  Prints, per shape and figure, the median of every
# process of every boot on each kernel, ours / upstream, and ours / the
# base for what the base measures too (the text, open() + close(), the
# base's probes); the raw outputs stay in $BUILD_DIR/upstream-bench/$ARCH.
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
# and of two other files; the same queries as bare ioctl()s, and the base
# under them (a null system call, an ioctl the maps file refuses); the
# text methods, AUTO, build IDs; one query at 100, 10,000 and 60,000
# VMAs, anonymous and named, with msync() on the same pages (the base's
# lock and VMA lookup) and the time to read the whole maps text there.
figures="ioctl_us_per_run ioctl_queries_us_per_run ioctl_ns_per_query
ioctl_overhead_us_per_run open_close_maps_us open_close_status_us open_close_null_us
raw_batch_us_per_run raw_queries_us_per_run raw_overhead_us_per_run
null_syscall_ns unknown_ioctl_ns
text_us_per_run text_stdio_us_per_run auto_us_per_run
buildid_plain_ns_per_query buildid_ns_per_query
query_ns_100 query_ns_10000 query_ns_60000 msync_ns_100 msync_ns_10000 msync_ns_60000
named_query_ns_100 named_query_ns_10000 named_query_ns_60000
named_msync_ns_100 named_msync_ns_10000 named_msync_ns_60000
maps_read_us_100 maps_read_us_10000 maps_read_us_60000"

"$TOP/scripts/fetch-base.sh" >/dev/null
"$TOP/scripts/fetch-base.sh" --upstream >/dev/null
KERNEL_FLAVOR=upstream "$TOP/scripts/build-kernel.sh"
KERNEL_FLAVOR=base "$TOP/scripts/build-kernel.sh"
rm -rf "$out"
mkdir -p "$out"
for ((r = 1; r <= rounds; r++)); do
	for flavor in bench upstream base; do
		KERNEL_FLAVOR=$flavor "$TOP/harness/run-vm.sh" script bench/upstream-guest.sh \
			>"$out/$flavor.$r.out"
	done
done

release() { awk '$1 == "kernel:" { print $2; exit }' "$out/$1.1.out"; }

# compare OTHER [FIGURE...]: the table of ours against the kernel of
# flavor OTHER but for FIGUREs, its ratio keys into $out/$OTHER.keys.  Each file: "### SHAPE" opens a
# process's output, "KEY: NUMBER" lines are its figures.  Medians by
# insertion sort: mawk has no asort().
compare() {
	local other=$1
	shift
	awk -v figures="$figures" -v other="$other" -v keys="$out/$other.keys" -v skip="$*" '
	FNR == 1 { kernel = FILENAME ~ ("/" other "\\.[0-9]+\\.out$") ? "other" : "ours" }
	/^### / { shape = $2 }
	shape != "" && $1 ~ /:$/ && $2 ~ /^[0-9.]+$/ {
		key = substr($1, 1, length($1) - 1)
		# Every process measures the scaling the same way, whatever its shape.
		s = key ~ /^(named_)?(query_ns|msync_ns)_|^maps_read_us_/ ? "scaling" : shape
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
		ns = split(skip, sk)
		for (i = 1; i <= ns; i++) skipped[sk[i]] = 1
		printf "%-10s %-28s %12s %12s %14s\n", "shape", "figure", "ours", other, "ours/" other
		for (s = 1; s <= nshapes; s++)
			for (i = 1; i <= nf; i++) {
				ko = "ours" SUBSEP shapes[s] SUBSEP f[i]
				kt = "other" SUBSEP shapes[s] SUBSEP f[i]
				if (!n[ko] || !n[kt] || f[i] in skipped) continue
				o = median(ko); t = median(kt)
				printf "%-10s %-28s %12.1f %12.1f %14s\n", shapes[s], f[i], o, t,
					(t > 0 ? sprintf("%.2f", o / t) : "-")
				if (t > 0) printf "%s_ratio_%s_%s: %.3f\n", other, shapes[s], f[i], o / t >keys
			}
	}' "$out"/bench.*.out "$out/$other".*.out
}

echo "## PROCMAP_QUERY: ours ($(release bench)) against upstream ($(release upstream)), $ARCH, $rounds boots each"
echo "(medians over every process of every boot; ratio below 1: ours is faster)"
compare upstream
echo
echo "## The paths the series must not slow down: ours against $(release base) without the series"
echo "(the same; that kernel has no PROCMAP_QUERY, so only what it measures too)"
# AUTO is the text there: not a figure of the text path.
compare base auto_us_per_run
echo "--- upstream-bench results ---"
cat "$out/upstream.keys" "$out/base.keys"
