#!/usr/bin/env bash
# Two `perf record --kcore -a` recordings in the test guest, with the
# guest's perf (Debian's 6.1 linux-perf), for tests/perf/run.sh to
# analyse on the host with the perf of the tree and 6.1.192's; each is
# left in $ADDRRES_RESULTS/perf-kcore/ with perf's kcore copy, and the
# guest's perf's own `perf script` of it:
#  - samples.data: kernel samples (symbol and sysfs walks on both CPUs),
#    with /proc/kallsyms read right after it, the ground truth;
#  - pokes.data: a static key, the function tracer and a kprobe changing
#    text and undoing it (the text_poke kselftest's recorder), after a
#    kprobe made sure a kprobe slot page exists when perf copies kcore;
#  - modbpf.data: module text and a BPF program, each kept running on a
#    CPU (the test module's function, tests/perf/spin.bpf.c), recorded with
#    the tree's perf ($ADDRRES_BIN/perf), with /proc/kallsyms read while
#    both are loaded (modbpf.kallsyms).
# Debian's perf then copies kcore with both loaded, under a file size
# limit: on arm64 its copy runs from the lowest out-of-line code (a kprobe
# slot page, BPF, both at the bottom of vmalloc) to the highest module
# symbol, near the kernel, and fails; the result checks it fails exactly
# when that span predicts it.
# Prints KTAP.
set -euo pipefail
# shellcheck source=../../scripts/ktap.sh
. "$ADDRRES_TOP/scripts/ktap.sh"

out=$ADDRRES_RESULTS/perf-kcore
recorder=$ADDRRES_KSELFTEST/perf_events/text_poke_record
work=$(mktemp -d)
# What modbpf.data loads (load) and unloads.
spin_pin=/sys/fs/bpf/addrres_spin
module_params=/sys/module/test_text_poke/parameters
unload() {
	rm -f "$spin_pin"
	modprobe -r test_text_poke 2>/dev/null || true
}
trap 'unload; rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out"
perf --version >"$out/perf-version"
ktap_plan 4

# record NAME DATA SCRIPT_OPTIONS -- WORKLOAD...: one result; DATA and the
# guest perf's script of it (DATA.script, its stderr DATA.script-err) go
# to $out.  Records with $record_perf.  Returns 1 if perf failed.
record_perf=perf
record() {
	local name=$1 data=$2 opts=$3
	shift 4
	if ! "$record_perf" record -q -e cpu-clock -a --kcore -F 499 -o "$work/$data" -- "$@" \
		>"$work/$data.out" 2>&1; then
		ktap_diag <"$work/$data.out"
		ktap_result fail "$name" "perf record failed"
		return 1
	fi
	# shellcheck disable=SC2086 # the options, one word each
	if ! perf script -i "$work/$data" $opts >"$out/$data.script" 2>"$out/$data.script-err"; then
		tail -n 5 "$out/$data.script-err" | ktap_diag
		ktap_result fail "$name" "perf script failed"
		return 1
	fi
	if ! cp -a "$work/$data" "$out/$data"; then
		ktap_result fail "$name" "cannot copy the recording to $out"
		return 1
	fi
}

# About four seconds of kernel work: symbol and sysfs walks.
kernel_work() {
	local end=$((SECONDS + 4))
	while [ $SECONDS -lt $end ]; do
		cat /proc/kallsyms >/dev/null
		find /sys/kernel /proc/sys >/dev/null 2>&1 || true
	done
}
export -f kernel_work
name="perf (guest): Debian's perf records kernel samples with a kcore copy"
if record "$name" samples.data "-F ip,sym,symoff,dso" -- \
	bash -c 'kernel_work & kernel_work; wait'; then
	cat /proc/kallsyms >"$out/kallsyms"
	kernel=$(grep -c '^ *ffff' "$out/samples.data.script" || true)
	if [ "$kernel" -eq 0 ]; then
		ktap_result fail "$name" "no kernel sample among $(wc -l <"$out/samples.data.script")"
	else
		ktap_result ok "$name ($kernel kernel samples)"
	fi
fi

name="perf (guest): Debian's perf records text pokes with a kcore copy"
if [ ! -x "$recorder" ]; then
	ktap_result fail "$name" "no $recorder (make selftests)"
elif ! "$recorder" kprobe >/dev/null 2>"$work/kprobe.err"; then
	ktap_diag <"$work/kprobe.err"
	ktap_result fail "$name" "a kprobe to allocate a slot page failed"
elif record "$name" pokes.data "-v --show-text-poke-events" -- \
	"$recorder" static_key ftrace kprobe; then
	pokes=$(grep -c 'PERF_RECORD_TEXT_POKE' "$out/pokes.data.script" || true)
	if [ "$pokes" -eq 0 ]; then
		ktap_result fail "$name" "perf shows no TEXT_POKE record"
	else
		ktap_result ok "$name ($pokes text pokes)"
	fi
fi

# Module text and BPF code, kept busy (module_work, bpf_work).
module_work() {
	local end=$((SECONDS + 4))
	while [ $SECONDS -lt $end ]; do
		echo 20000 >"$module_params/call"
	done
}
bpf_work() {
	local end=$((SECONDS + 4))
	while [ $SECONDS -lt $end ]; do
		bpftool prog run pinned "$spin_pin" data_in "$work/packet" repeat 200000 >/dev/null
	done
}
export -f module_work bpf_work
export spin_pin module_params work
load() {
	head -c 64 /dev/zero >"$work/packet"
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || return 1
	modprobe test_text_poke || return 1
	bpftool prog load "$ADDRRES_BIN/spin.bpf.o" "$spin_pin" || return 1
}

name="perf (guest): the tree's perf records module and BPF samples with a kcore copy"
loaded=yes
if ! load >"$work/load.err" 2>&1; then
	ktap_diag <"$work/load.err"
	ktap_result fail "$name" "cannot load the test module and tests/perf/spin.bpf.o"
	loaded=""
elif record_perf=$ADDRRES_BIN/perf record "$name" modbpf.data "-F ip,sym,symoff,dso" -- \
	bash -c 'module_work & bpf_work; wait'; then
	cat /proc/kallsyms >"$out/modbpf.kallsyms"
	# By symbol: with --kcore perf shows module text in the kernel's dso.
	module=$(gawk 'FNR == NR { if ($4 == "[test_text_poke]") mod[$3] = 1; next }
		{ sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); n += sym in mod }
		END { print n + 0 }' "$out/modbpf.kallsyms" "$out/modbpf.data.script")
	bpf=$(grep -c ' bpf_prog_[0-9a-f]*_addrres_spin' "$out/modbpf.data.script" || true)
	if [ "$module" -eq 0 ] || [ "$bpf" -eq 0 ]; then
		ktap_result fail "$name" "$module samples in the module, $bpf in the BPF program"
	else
		ktap_result ok "$name ($module samples in the module, $bpf in the BPF program)"
	fi
fi

# Debian's perf copies one range from the lowest out-of-line code symbol
# ("[" in its name: [bpf], [__builtin__kprobes], a module's) to the page
# after the highest: predicted to fail when that is above the limit.
name="perf (guest): Debian's perf copies kcore as its one module range predicts"
limit_mb=32
if [ -z "$loaded" ]; then
	ktap_result fail "$name" "the test module and the BPF program are not loaded"
else
	span_mb=$(gawk -f "$ADDRRES_TOP/tests/perf/hex64.awk" -e '
		$2 ~ /^[tTwW]$/ && $4 ~ /^\[/ {
			a = pad($1)
			if (lo == "" || a < lo) lo = a
			if (a > hi) hi = a
		}
		END { print lo == "" ? 0 : int(sub64(hi, lo) / 1048576) }' /proc/kallsyms)
	copied=yes
	(
		ulimit -f $((limit_mb * 1024))
		exec perf record -q -e cpu-clock -a --kcore -o "$work/debian.data" -- true
	) >"$work/debian.out" 2>&1 || copied=""
	rm -rf "$work/debian.data"
	outcome="failed"
	[ -z "$copied" ] || outcome="copied kcore"
	ktap_diag "out-of-line code and modules span $span_mb MB; Debian's perf $outcome with files limited to $limit_mb MB"
	if [ "$span_mb" -ge "$limit_mb" ] && [ -z "$copied" ]; then
		ktap_result ok "$name: fails (the range spans $span_mb MB; the tree's perf copies each module and page apart)"
	elif [ "$span_mb" -lt "$limit_mb" ] && [ -n "$copied" ]; then
		ktap_result ok "$name: copies (the range spans $span_mb MB)"
	else
		tail -n 5 "$work/debian.out" | ktap_diag
		ktap_result fail "$name" "the range spans $span_mb MB, yet it $outcome"
	fi
fi
