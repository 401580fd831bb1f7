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
#    kprobe made sure a kprobe slot page exists when perf copies kcore.
# Samples are in kernel text only: no module is loaded during these
# recordings, and BPF and .init text are not run often enough to be sampled.
# Prints KTAP.
set -euo pipefail
# shellcheck source=../../scripts/ktap.sh
. "$ADDRRES_TOP/scripts/ktap.sh"

out=$ADDRRES_RESULTS/perf-kcore
recorder=$ADDRRES_KSELFTEST/perf_events/text_poke_record
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out"
perf --version >"$out/perf-version"
ktap_plan 2

# record NAME DATA SCRIPT_OPTIONS -- WORKLOAD...: one result; DATA and the
# guest perf's script of it (DATA.script, its stderr DATA.script-err) go
# to $out.  Returns 1 if perf failed.
record() {
	local name=$1 data=$2 opts=$3
	shift 4
	if ! perf record -q -e cpu-clock -a --kcore -F 499 -o "$work/$data" -- "$@" \
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
name="perf --kcore (guest): Debian's perf records kernel samples with a kcore copy"
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

name="perf --kcore (guest): Debian's perf records text pokes with a kcore copy"
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
