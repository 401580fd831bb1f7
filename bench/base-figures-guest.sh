#!/bin/bash
# Runs in a guest of the test kernel, by hand, the same on both bases
# (docs/figures.md, "The 7.2 base beside 6.1"):
#   KERNEL_BASE=7.2 VM_PART=probe harness/run-vm.sh script bench/base-figures-guest.sh
#   VM_PART=probe harness/run-vm.sh script bench/base-figures-guest.sh
# 1. text names of /proc/kallsyms that more than one function shares
#    (distinct addresses of t/T symbols; no module loaded);
# 2. the PERF_RECORD_TEXT_POKE and KSYMBOL records of each text_poke
#    trigger, making and undoing its change (text_poke_record);
# 3. text-poke-bench: what the records cost a static-key flip (a test
#    kernel: KASAN and lockdep, so for the ratio, not the times).
set -euo pipefail

echo "## text names with more than one address (vmlinux and the modules loaded now)"
awk '$2 == "t" || $2 == "T" { print $3, $1 }' /proc/kallsyms | sort -u |
	awk '{ n[$1]++ } END { for (s in n) if (n[s] > 1) { names++; addrs += n[s] }
	       printf "names %d, their addresses %d\n", names, addrs }'
echo "the names with the most addresses:"
awk '$2 == "t" || $2 == "T" { print $3, $1 }' /proc/kallsyms | sort -u |
	awk '{ n[$1]++ } END { for (s in n) if (n[s] > 1) print n[s], s }' | sort -rn |
	sed -n '1,8p'

echo
echo "## text_poke records per trigger (lines: TEXT_POKE and created code)"
cd "$ADDRRES_KSELFTEST/perf_events"
out=$(mktemp)
for trigger in static_key ftrace kprobe optprobe bpf_tail_call bpf_trampoline \
	bpf_trampoline_on_prog module_static_key module_ftrace module_kprobe module_load; do
	status=0
	./text_poke_record "$trigger" >"$out" 2>&1 || status=$?
	skipped=$(sed -n 's/^skip [^ ]* //p' "$out")
	if [ -n "$skipped" ]; then
		printf '%-24s skipped: %s\n' "$trigger" "$skipped"
		continue
	fi
	if [ "$status" != 0 ]; then
		printf '%-24s failed (%d): %s\n' "$trigger" "$status" "$(tail -n 1 "$out")"
		continue
	fi
	# A record line starts with its address; created code has "-" for old bytes.
	printf '%-24s %4d records (%d of created code)\n' "$trigger" \
		"$(grep -c '^[0-9a-f]\{8,\} ' "$out" || true)" \
		"$(grep -c '^[0-9a-f]\{8,\} - ' "$out" || true)"
done
rm -f "$out"

echo
echo "## text-poke-bench"
"$ADDRRES_BIN/text-poke-bench"
