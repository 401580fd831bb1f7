#!/bin/bash
# Runs in the guest (`make bench`): first the PROCMAP_QUERY benchmark
# (below: libaddrres's text, ioctl and AUTO methods and the stdio
# reference), then text-poke-bench (what TEXT_POKE records cost a static
# key flip, and the change rate recorded without loss), kallmodsyms-bench
# (a read of /proc/kallmodsyms against one of /proc/kallsyms),
# symbolize-bench -k (libaddrres's kernel lookups per second), last
# fentry-load-bench (what loading an fentry program costs).  The
# PROCMAP_QUERY benchmark runs with three address sets over about 700
# VMAs, from the most to the least favourable to the ioctl:
#  - the shape published with the upstream series (its 35x): 4,435 stack
#    trace addresses, 699 of them distinct, in a process with 702 VMAs;
#    the addresses fell in code mapped from a few binaries, so that six
#    queries resolved them all;
#  - addresses in 30 of the VMAs;
#  - addresses in every VMA (one query per VMA: the ioctl's worst case).
# Under TCG one process's figures differ from the next one's by up to 2x
# (each gets another address-space layout), so the published shape runs
# in REPEATS processes and the medians of their ratios are the figures.
set -euo pipefail
bench=$ADDRRES_BIN/procmap-query-bench
repeats=5
published="-v 702 -a 4435 -d 699 -u 6 -c"
out=$TMPDIR/bench.out

# The value of KEY in the results block of $out.
value() {
	sed -n "s/^$1: //p" "$out"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

echo "## upstream's published shape: 4435 addresses (699 distinct) in 6 code VMAs of 702"
ratios=""
ratios_stdio=""
autos=""
i=1
while [ "$i" -le "$repeats" ]; do
	# shellcheck disable=SC2086 # $published is a list of options
	"$bench" $published "$@" >"$out"
	[ "$i" = 1 ] && cat "$out" && echo
	echo "process $i: text $(value text_us_per_run) us, stdio $(value text_stdio_us_per_run) us," \
		"ioctl $(value ioctl_us_per_run) us ($(value ioctl_queries_per_run) queries)," \
		"auto $(value auto_us_per_run) us:" \
		"$(value ratio)x, stdio $(value ratio_stdio)x, auto / best $(value auto_vs_best)"
	ratios="$ratios $(value ratio)"
	ratios_stdio="$ratios_stdio $(value ratio_stdio)"
	autos="$autos $(value auto_vs_best)"
	i=$((i + 1))
done
# As variables first: a failure inside $(...) must stop the script.
# shellcheck disable=SC2086 # one ratio per word
median_text=$(printf '%s\n' $ratios | median)
# shellcheck disable=SC2086 # one ratio per word
median_stdio=$(printf '%s\n' $ratios_stdio | median)
# shellcheck disable=SC2086 # one ratio per word
median_auto=$(printf '%s\n' $autos | median)
echo "median of $repeats processes: text / ioctl ${median_text}x, stdio / ioctl ${median_stdio}x," \
	"auto / best ${median_auto}"
rm -f "$out"
echo
echo "## 30 of 700 VMAs hit"
"$bench" -u 30 "$@"
echo
echo "## all 700 VMAs hit"
"$bench" "$@"
echo
echo "## PERF_RECORD_TEXT_POKE: static key flips (kernel.sched_schedstats)"
"$ADDRRES_BIN/text-poke-bench"
echo
echo "## /proc/kallmodsyms: a whole read (128 KiB reads, as cat) against /proc/kallsyms"
"$ADDRRES_BIN/kallmodsyms-bench"
echo
echo "## libaddrres: kernel address lookups on /proc/kallmodsyms"
"$ADDRRES_BIN/symbolize-bench" -k
echo
echo "## fentry: loading programs on vmlinux's vfs_read (the ambiguous-name check's cost)"
"$ADDRRES_BIN/fentry-load-bench"
