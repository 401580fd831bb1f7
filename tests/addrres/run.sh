#!/usr/bin/env bash
# The addrres command-line tool (addrres/), on the host: built with ASan
# and UBSan, each case runs it once and checks its exit code, its output
# and its message: kernel lookups on the sample files of
# tests/libaddrres/fixtures/, process lookups on a live process of the
# host (ground truth: its /proc/PID/maps) and on a saved maps file, and
# every documented exit code.  guest.sh runs it on the patched kernels.
# Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

FIX=$TOP/tests/libaddrres/fixtures
work=$(mktemp -d)
sleeper=
cleanup() {
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

cases=43
ktap_plan $cases
cli=$work/out/addrres
if ! out=$(nice make -s -C "$TOP/addrres" OUTPUT="$work/out" CC="$HOST_CC" \
	EXTRA_CFLAGS="${CFLAGS_SANITIZE[*]}" EXTRA_LDFLAGS="${CFLAGS_SANITIZE[*]}" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	for ((i = 0; i < cases; i++)); do
		ktap_result fail "addrres: case $((i + 1))" "make of addrres failed"
	done
	exit 0
fi
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

# expect NAME RC STDOUT STDERR_ERE [ARG...]: run the tool with ARGs (and
# $input on stdin, if set); it must exit with RC, print exactly STDOUT
# (unless STDOUT is "*") and a message matching STDERR_ERE ("" for none).
input=
expect() {
	local name="addrres: $1" want_rc=$2 want_out=$3 want_err=$4 rc=0 got
	shift 4
	if [ -n "$input" ]; then
		got=$(printf '%s\n' "$input" | "$cli" "$@" 2>"$work/err") || rc=$?
	else
		got=$("$cli" "$@" </dev/null 2>"$work/err") || rc=$?
	fi
	local problems=()
	[ "$rc" = "$want_rc" ] || problems+=("exit code $rc, want $want_rc")
	[ "$want_out" = "*" ] || [ "$got" = "$want_out" ] ||
		problems+=("output differs: got [$got], want [$want_out]")
	if [ -z "$want_err" ]; then
		[ ! -s "$work/err" ] || problems+=("unexpected message: $(head -c 300 "$work/err")")
	elif ! grep -Eq -- "$want_err" "$work/err"; then
		problems+=("message [$(head -c 300 "$work/err")] does not match /$want_err/")
	fi
	! grep -Eq 'Sanitizer|runtime error' "$work/err" || problems+=("a sanitizer's report")
	if [ ${#problems[@]} = 0 ]; then
		ktap_result ok "$name"
	else
		printf '%s\n' "addrres $*" "${problems[@]}" | ktap_diag
		ktap_result fail "$name" "${problems[0]}"
	fi
}

ksyms=(--kallmodsyms="$FIX/kallmodsyms" --kallsyms="$FIX/kallsyms" --modules="$FIX/modules")

# --- kernel symbols ---------------------------------------------------------

expect "kaddr: symbol, offset, built-in module and object" 0 \
	"0xffffffff81000050 __startup_64+0x10 {head64.o}
0xffffffff81000610 uclogic_rdesc_template_apply+0x10 [hid_uclogic] [hid_uclogic_test] {hid-uclogic-rdesc.o}
0xffffffffc0002044 helper+0x4 [test_module]" "" \
	kaddr "${ksyms[@]}" 0xffffffff81000050 ffffffff81000610 0xFFFFFFFFC0002044
expect "kaddr: an address of no symbol prints ?? and exits 1" 1 \
	"0xffffffff82000001 ??" "" kaddr "${ksyms[@]}" 0xffffffff82000001
input=$'0xffffffff81000c00\n\n  ffffffff81000d01 0xffffffff81000380'
expect "kaddr: addresses from stdin, blank-separated" 0 \
	"0xffffffff81000c00 schedule+0x0
0xffffffff81000d01 jiffies+0x1
0xffffffff81000380 helper+0x0" "" kaddr "${ksyms[@]}"
input=$'0xffffffff81000c00\nffffffff8100zz00'
expect "kaddr: a malformed address on stdin exits 3 naming the line" 3 \
	"0xffffffff81000c00 schedule+0x0" '^addrres: stdin line 2: malformed address "ffffffff8100zz00"' \
	kaddr "${ksyms[@]}" -
input=
expect "kaddr: 17 hex digits are malformed" 3 "" 'argument 1: malformed address' \
	kaddr "${ksyms[@]}" 0x1ffffffff81000c00
expect "kaddr: JSON Lines" 1 \
	'{"address":"0xffffffff81000310","symbol":"uncore_msr_box_offset","type":"t","modules":["intel_uncore"],"object":"uncore.o","loaded_module":false,"size":"0x80","offset":"0x10"}
{"address":"0x10","symbol":null}' "" \
	kaddr --json "${ksyms[@]}" ffffffff81000310 10
expect "kname: a qualified name, one match" 0 \
	"0xffffffff81000400 t uncore_msr_box_offset [intel_uncore] {uncore_snb.o}" "" \
	kname "${ksyms[@]}" "uncore_msr_box_offset {uncore_snb.o}"
expect "kname: an ambiguous name lists every match, says so and exits 1" 1 \
	"0xffffffff81000300 t uncore_msr_box_offset [intel_uncore] {uncore.o}
0xffffffff81000400 t uncore_msr_box_offset [intel_uncore] {uncore_snb.o}
0xffffffff81000500 t uncore_msr_box_offset [intel_uncore_frequency]" \
	'"uncore_msr_box_offset" is ambiguous: 3 symbols match' \
	kname "${ksyms[@]}" uncore_msr_box_offset
input=$'schedule\nhelper [ext4]\nno_such_symbol'
expect "kname: queries from stdin, one per line; a missing name exits 1" 1 \
	"0xffffffff81000c00 T schedule
0xffffffffc0000100 t helper [ext4]
?? no_such_symbol" "" kname "${ksyms[@]}"
input=
expect "kname: a malformed query exits 3" 3 "" 'argument 1: malformed name query "schedule \[oops"' \
	kname "${ksyms[@]}" "schedule [oops"
expect "kname --attach=tracefs: a kprobe_events line at the qualified copy's address" 0 \
	"p:addrres/uncore_msr_box_offset_ffffffff81000400 0xffffffff81000400" "" \
	kname --attach=tracefs "${ksyms[@]}" "uncore_msr_box_offset {uncore_snb.o}"
expect "kname --attach=perf: a perf probe command at the address" 0 \
	"perf probe --add 0xffffffff81000c00" "" kname -a perf "${ksyms[@]}" schedule
expect "kname --attach=bpftrace: a bpftrace address probe, a loaded module's copy" 0 \
	"kprobe:0xffffffffc0000100" "" kname -a bpftrace "${ksyms[@]}" "helper [ext4]"
expect "kname --attach: an ambiguous name lists its candidates, no probe, and exits 1" 1 \
	"0xffffffff81000300 t uncore_msr_box_offset [intel_uncore] {uncore.o}
0xffffffff81000400 t uncore_msr_box_offset [intel_uncore] {uncore_snb.o}
0xffffffff81000500 t uncore_msr_box_offset [intel_uncore_frequency]" \
	'"uncore_msr_box_offset" is ambiguous: 3 symbols match' \
	kname -a tracefs "${ksyms[@]}" uncore_msr_box_offset
expect "kname --attach: data is not probed (??, exit 1, a note naming its type)" 1 \
	"?? jiffies" 'jiffies: 0xffffffff81000d00 is not code \(type D\)' \
	kname -a tracefs "${ksyms[@]}" jiffies
expect "kname --attach: an unknown form is a usage error" 2 "" \
	'--attach: "ftrace" is not tracefs, perf or bpftrace' kname -a ftrace "${ksyms[@]}" schedule
expect "kname --attach -j: the probe in each match's object" 0 \
	'{"query":"schedule","ambiguous":false,"matches":[{"address":"0xffffffff81000c00","symbol":"schedule","type":"T","modules":[],"object":null,"loaded_module":false,"size":"0x100","probe":"kprobe:0xffffffff81000c00"}]}' "" \
	kname -j -a bpftrace "${ksyms[@]}" schedule
expect "count: an ambiguous name lists its candidates and exits 1, attaching nothing" 1 \
	"0xffffffff81000300 t uncore_msr_box_offset [intel_uncore] {uncore.o}
0xffffffff81000400 t uncore_msr_box_offset [intel_uncore] {uncore_snb.o}
0xffffffff81000500 t uncore_msr_box_offset [intel_uncore_frequency]" \
	'"uncore_msr_box_offset" is ambiguous: 3 symbols match; count one of them by its qualified name' \
	count "${ksyms[@]}" uncore_msr_box_offset true
expect "count: a name of no symbol exits 1" 1 "" 'no kernel symbol matches "no_such_function"' \
	count "${ksyms[@]}" no_such_function true
expect "count: data cannot be counted (exit 1)" 1 "" '"jiffies" is not code \(type D' \
	count "${ksyms[@]}" jiffies true
expect "count: no NAME is a usage error" 2 "" 'count: a function NAME is required' count "${ksyms[@]}"
expect "count: COMMAND with --duration is a usage error" 2 "" \
	'COMMAND and --interval or --duration: give one of them' count -d 1 "${ksyms[@]}" schedule true
expect "count: an unknown --method is a usage error" 2 "" \
	'--method: "fprobe" is not auto, multi or kprobe' count -m fprobe "${ksyms[@]}" schedule true
expect "kaddr: /proc/kallsyms fallback, with a note" 0 \
	"0xffffffff81000050 __startup_64+0x10" \
	"^addrres: note: no $work/none: read $FIX/kallsyms instead" \
	kaddr --kallmodsyms="$work/none" --kallsyms="$FIX/kallsyms" --modules="$FIX/modules" \
	0xffffffff81000050
expect "kaddr: --source=kallmodsyms without it exits 6 naming the fallback" 6 "" \
	'this kernel has no /proc/kallmodsyms .*without --source=kallmodsyms, addrres reads /proc/kallsyms' \
	kaddr --source=kallmodsyms --kallmodsyms="$work/none" --kallsyms="$FIX/kallsyms" 0xffffffff81000050
expect "kaddr: --source=kallsyms reads kallsyms where kallmodsyms exists" 0 \
	"0xffffffff81000310 uncore_msr_box_offset+0x10" "" \
	kaddr --source=kallsyms "${ksyms[@]}" 0xffffffff81000310
expect "kaddr: hidden addresses exit 5 naming the sysctls and CAP_SYSLOG" 5 "" \
	'kernel.kptr_restrict=.*kernel.perf_event_paranoid=.*CAP_SYSLOG' \
	kaddr --kallmodsyms="$FIX/restricted" --modules="$FIX/modules" 0xffffffff81000050
expect "kaddr: a malformed symbol file exits 7 naming file and line" 7 "" \
	"corrupt-no-name.kallmodsyms:3: " \
	kaddr --kallmodsyms="$FIX/corrupt-no-name.kallmodsyms" --modules="$FIX/modules" 0

# --- process addresses ------------------------------------------------------

# A saved maps file (the text path; build IDs are not asked).
maps_line() { sed -n "$1p" "$FIX/maps"; }
read -r range _ offset _ _ path < <(maps_line 1)
start=${range%-*}
expect "maps --maps: file VMA: path and file offset" 0 \
	"0x$(printf %x $((0x$start + 0x10))) $path+0x$(printf %x $((0x$offset + 0x10)))" "" \
	maps -p 0 --maps="$FIX/maps" --no-symbols "$(printf %x $((0x$start + 0x10)))"
expect "maps --maps --method=ioctl: not a maps file, exits 6 naming the fallback" 6 "" \
	'no PROCMAP_QUERY ioctl .*without --method=ioctl, addrres reads the maps text' \
	maps -p 0 --maps="$FIX/maps" --method=ioctl "$start"
expect "maps: a malformed maps line exits 7 naming file and line" 7 "" \
	'corrupt-perms.maps:2: ' maps -p 0 --maps="$FIX/corrupt-perms.maps" --method=text 55d0c2a02000

# A live process: its own maps file is the ground truth.
sleep 600 &
sleeper=$!
while ! grep -q "$(command -v sleep | xargs readlink -f)" "/proc/$sleeper/maps" 2>/dev/null; do
	sleep 0.05
done
mapfile -t lines <"/proc/$sleeper/maps"
addrs=()
want=()
for line in "${lines[@]}"; do
	read -r range _ offset _ inode path <<<"$line"
	[ "$path" = "[vsyscall]" ] && continue
	start=$((0x${range%-*})) end=$((0x${range#*-}))
	for a in $start $(((start + end) / 2)) $((end - 1)); do
		addrs+=("$(printf %x "$a")")
		if [ "$inode" != 0 ]; then
			rel=$((a - start + 0x$offset))
		else
			rel=$((a - start))
		fi
		want+=("0x$(printf %x "$a") ${path:-[anon]}+0x$(printf %x "$rel")")
	done
done
want_text=$(printf '%s\n' "${want[@]}")
ioctl_rc=0
"$cli" maps -q -p "$sleeper" --method=ioctl "${addrs[0]}" >/dev/null 2>&1 || ioctl_rc=$?
for method in text ioctl auto; do
	name="maps --method=$method: ${#addrs[@]} addresses of a live process, as its maps file says"
	if [ "$method" != text ] && [ "$ioctl_rc" = 6 ]; then
		ktap_result skip "addrres: $name" "the host kernel $(uname -r) has no PROCMAP_QUERY"
		continue
	fi
	expect "$name" 0 "$want_text" "" maps -p "$sleeper" --no-symbols --method=$method "${addrs[@]}"
done
expect "maps: JSON Lines give the whole VMA" 1 '*' "" maps -p "$sleeper" --json "${addrs[0]}" 1
name="addrres: maps: the JSON parses and agrees with the maps file"
if ! command -v python3 >/dev/null; then
	ktap_result skip "$name" "no python3 to parse JSON"
elif out=$({ "$cli" maps -p "$sleeper" --json "${addrs[0]}" 1 || true; } | python3 -c '
import json, sys
a, b = [json.loads(l) for l in sys.stdin]
v = a["vma"]
print(a["address"], v["start"], v["perms"], v["name"], b["vma"])') &&
	read -r range perms _ _ _ path <<<"${lines[0]}" &&
	[ "$out" = "0x${addrs[0]} 0x${range%-*} $perms $path None" ]; then
	ktap_result ok "$name"
else
	printf '%s\n' "got: $out" "want the first line of: ${lines[0]}" | ktap_diag
	ktap_result fail "$name" "the JSON differs from the maps file"
fi

# The same function names as elfutils' own eu-addr2line --pid, for 40
# addresses across each code VMA of the live process (its executable,
# libc, ld.so, the vdso).  Neither asks debuginfod.  Where no symbol
# holds an address, eu-addr2line prints "(MODULE)+0xOFFSET" and addrres
# "??"; eu-addr2line keeps a debug file's symbol versions ("memcpy@@GLIBC_2.14"),
# which addrres drops.
name="addrres: maps: ELF symbols as eu-addr2line --pid -S gives them, in every code VMA"
if ! command -v eu-addr2line >/dev/null; then
	ktap_result skip "$name" "no eu-addr2line (Debian's elfutils)"
else
	code=()
	for line in "${lines[@]}"; do
		read -r range perms _ _ _ path <<<"$line"
		if [ "${perms:2:1}" != x ] || [ "$path" = "[vsyscall]" ]; then continue; fi
		start=$((0x${range%-*})) end=$((0x${range#*-}))
		for ((k = 0; k < 40; k++)); do
			code+=("$(printf '0x%x' $((start + (end - start) * k / 40 + k)))")
		done
	done
	rc=0
	"$cli" maps -p "$sleeper" --no-lines "${code[@]}" 2>"$work/err" |
		awk '{ s = $3; sub(/\+0x0$/, "", s); print s }' >"$work/ours" || rc=$?
	DEBUGINFOD_URLS='' eu-addr2line --pid="$sleeper" -S "${code[@]}" 2>/dev/null |
		awk 'NR % 2 { sub(/\+0x0$/, ""); sub(/^\(.*\)\+(0x[0-9a-f]+|0)$/, "??");
			sub(/@[^+]*/, ""); print }' \
		>"$work/theirs" || true
	named=$(grep -vc '^??$' "$work/theirs" || true)
	if [ "$rc" -gt 1 ]; then
		head -n 5 "$work/err" | ktap_diag
		ktap_result fail "$name" "addrres exited $rc"
	elif [ "$(wc -l <"$work/theirs")" != ${#code[@]} ] || [ "$named" -lt $((${#code[@]} / 2)) ]; then
		ktap_result fail "$name" "eu-addr2line named $named of ${#code[@]} addresses"
	elif ! diff <(paste -d' ' <(printf '%s\n' "${code[@]}") "$work/ours") \
		<(paste -d' ' <(printf '%s\n' "${code[@]}") "$work/theirs") >"$work/diff"; then
		head -n 10 "$work/diff" | ktap_diag
		ktap_result fail "$name" "$(grep -c '^<' "$work/diff") of ${#code[@]} differ"
	else
		ktap_result ok "$name (${#code[@]} addresses, $named named)"
	fi
fi

# --- the process-related exit codes -----------------------------------------

( exit 0 ) &
gone=$!
wait "$gone"
expect "maps: no such process exits 4" 4 "" "^addrres: no such process: $gone\$" maps -p "$gone" 1000
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	name="maps: another user's process exits 5 naming CAP_SYS_PTRACE"
	# As nobody, the root-owned sleeper's maps are out of reach.
	chmod 755 "$work" "$work/out"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$cli" maps -p "$sleeper" 1000 \
		>/dev/null 2>"$work/err" || rc=$?
	if [ "$rc" = 5 ] && grep -q "CAP_SYS_PTRACE" "$work/err"; then
		ktap_result ok "addrres: $name"
	else
		printf 'exit %s: %s\n' "$rc" "$(head -c 300 "$work/err")" | ktap_diag
		ktap_result fail "addrres: $name" "exit code $rc, want 5 with CAP_SYS_PTRACE named"
	fi
else
	ktap_result skip "addrres: maps: another user's process exits 5" "needs root and setpriv to act as another user"
fi

# --- usage ------------------------------------------------------------------

expect "maps without -p is a usage error (2)" 2 "" '-p PID is required' maps 1000
expect "an unknown command is a usage error (2)" 2 "" 'frobnicate: unknown command' frobnicate
name="addrres: help documents every exit code"
if out=$("$cli" help 2>&1) &&
	[ "$(printf '%s\n' "$out" | sed -n '/^Exit codes:/,$p' | grep -cE '^  [0-7]  ')" = 8 ]; then
	ktap_result ok "$name"
else
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "help does not list exit codes 0 to 7"
fi

name="addrres: help and addrres.1 document every long option"
mapfile -t longopts < <(sed -n 's/^\t\t{ "\([a-z-]*\)", [a-z_]*_argument,.*/\1/p' "$TOP/addrres/addrres.c" | sort -u)
help=$("$cli" help 2>&1 || true)
man_text=$(sed 's/\\-/-/g' "$TOP/addrres/addrres.1")
missing=()
for o in "${longopts[@]}"; do
	grep -q -- "--$o" <<<"$help" || missing+=("help: --$o")
	grep -q -- "--$o" <<<"$man_text" || missing+=("addrres.1: --$o")
done
if [ ${#longopts[@]} -lt 10 ]; then
	ktap_result fail "$name" "found only ${#longopts[@]} long options in addrres.c"
elif [ ${#missing[@]} != 0 ]; then
	printf '%s\n' "${missing[@]}" | ktap_diag
	ktap_result fail "$name" "${missing[0]} is not documented"
else
	ktap_result ok "$name"
fi
