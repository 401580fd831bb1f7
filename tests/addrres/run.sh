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
# shellcheck source=../../scripts/frames.sh
. "$TOP/scripts/frames.sh"

FIX=$TOP/tests/libaddrres/fixtures
work=$(mktemp -d)
sleeper=
cleanup() {
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

cases=71
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
input=$'0xffffffff81000c00\nffffffff8100zz00\nffffffff81000d01'
expect "kaddr: a malformed address on stdin is reported in its place, the batch goes on, exit 3" 3 \
	"0xffffffff81000c00 schedule+0x0
ffffffff8100zz00 ?? (malformed address)
0xffffffff81000d01 jiffies+0x1" '^addrres: stdin line 2: malformed address "ffffffff8100zz00"' \
	kaddr "${ksyms[@]}" -
expect "kaddr: an option after the addresses is taken as an option" 1 \
	'{"address":"0xffffffff82000001","symbol":null}' "" \
	kaddr "${ksyms[@]}" 0xffffffff82000001 -q -j
expect "kaddr: -- ends the options: what follows is an address" 3 \
	"-j ?? (malformed address)" 'argument 1: malformed address "-j"' kaddr "${ksyms[@]}" -- -j
input=
expect "kaddr: 17 hex digits are malformed" 3 "0x1ffffffff81000c00 ?? (malformed address)" \
	'argument 1: malformed address' kaddr "${ksyms[@]}" 0x1ffffffff81000c00
expect "kaddr -j: a malformed address is a record with its input and error" 3 \
	'{"input":"zz","error":"malformed address"}
{"address":"0x10","symbol":null}' 'argument 1: malformed address "zz"' kaddr -j "${ksyms[@]}" zz 10
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
expect "kname: a malformed query is reported in its place, the batch goes on, exit 3" 3 \
	"schedule [oops ?? (malformed name query)
0xffffffff81000d00 D jiffies" 'argument 1: malformed name query "schedule \[oops"' \
	kname "${ksyms[@]}" "schedule [oops" jiffies
expect "kname -j: a malformed query is a record with its input and error, as for addresses" 3 \
	'{"input":"schedule [oops","error":"malformed name query"}' \
	'argument 1: malformed name query' kname -j "${ksyms[@]}" "schedule [oops"
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
# A kernel without kprobes (this host's has none; the PMU and tracefs are
# hidden all the same, so that a kernel with them answers alike): exit 6,
# the documented code for a missing kernel feature, and words that say
# which feature, not libbpf's "(null)+0x...".
name="addrres: count on a kernel without kprobes exits 6 and names CONFIG_KPROBES"
rc=0
# shellcheck disable=SC2016 # the inner sh expands them
unshare -m sh -c 'for d in /sys/bus/event_source/devices /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ ! -d "$d" ] || mount -t tmpfs none "$d" || exit 99
	done
	exec "$@"' sh "$cli" count -q -m kprobe schedule true >/dev/null 2>"$work/nokprobes.err" || rc=$?
if [ "$rc" = 6 ] && grep -q "this kernel has no kprobes (CONFIG_KPROBES)" "$work/nokprobes.err" &&
	! grep -q null "$work/nokprobes.err"; then
	ktap_result ok "$name"
else
	ktap_result fail "$name" "exit $rc: $(head -c 300 "$work/nokprobes.err")"
fi
expect "count: no NAME is a usage error" 2 "" 'count: a function NAME is required' count "${ksyms[@]}"
expect "count: COMMAND with --duration is a usage error" 2 "" \
	'COMMAND and --interval or --duration: give one of them' count -d 1 "${ksyms[@]}" schedule true
expect "count: an unknown --method is a usage error" 2 "" \
	'--method: "fprobe" is not auto, multi or kprobe' count -m fprobe "${ksyms[@]}" schedule true
expect "kaddr: /proc/kallsyms fallback, quietly (the rule on stock kernels)" 0 \
	"0xffffffff81000050 __startup_64+0x10" "" \
	kaddr --kallmodsyms="$work/none" --kallsyms="$FIX/kallsyms" --modules="$FIX/modules" \
	0xffffffff81000050
expect "kname: on the kallsyms fallback, an ambiguous name says what kallmodsyms would tell" 1 "*" \
	'is ambiguous: .* \(read from kallsyms: this kernel has no /proc/kallmodsyms' \
	kname --kallmodsyms="$work/none" --kallsyms="$FIX/kallsyms" --modules="$FIX/modules" \
	uncore_msr_box_offset
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
expect "maps: a malformed token keeps its place in the batch, exit 3" 3 \
	"0x55d0c2a02000 /usr/bin/cat+0x2000
q ?? (malformed address)
0x55d0c2a02001 /usr/bin/cat+0x2001" 'argument 2: malformed address "q"' \
	maps -p 0 --maps="$FIX/maps" --no-symbols 55d0c2a02000 q 55d0c2a02001
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
	name="maps --method=$method: the addresses of a live process, as its maps file says (${#addrs[@]})"
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

# --- elf: offline --------------------------------------------------------------

# names.so (tests/libaddrres/fixtures/elf/names.c): inlined code, C++ and
# Rust names, a versioned symbol; built here with the system's compiler.
elf_fix=$FIX/elf
names=$work/names.so
nice "$HOST_CC" -g -O2 -fPIC -shared -Wl,--build-id -Wl,--version-script="$elf_fix/names.map" \
	-o "$names" "$elf_fix/names.c"
# nm's value of symbol $1 of $names, in hex without 0x
nm_of() { printf '%x' "0x$(nm "$names" | awk -v s="$1" '$3 == s { print $1 }')"; }
outer=$(nm_of names_outer)

name="addrres: elf: inline frames as eu-addr2line -i gives them, at every byte of names_outer"
outer_size=$((0x$(nm -S "$names" | awk '$4 == "names_outer" { print $2 }')))
[ "$outer_size" -gt 0 ] || outer_size=1
offs=()
for ((k = 0; k < outer_size; k++)); do
	offs+=("$(printf '0x%x' $((0x$outer + k)))")
done
# As frames "FUNCTION LINE": the innermost function at the address's
# line, then each outer one at the line of its inlined call.
"$cli" elf -j -a -e "$names" "${offs[@]}" 2>"$work/err" | python3 -c '
import json, sys
for l in sys.stdin:
    s = json.loads(l)["symbol"]
    inl = s.get("inlined", [])
    names = [i["name"] for i in inl] + [s["name"]]
    lines = [s["line"]] + [i["call_line"] for i in inl]
    print(" ".join("%s:%d" % f for f in zip(names, lines)))' >"$work/ours" || true
# One eu-addr2line per address: its -i output does not say where the
# frames of one address end.
for o in "${offs[@]}"; do
	DEBUGINFOD_URLS='' eu-addr2line -i -f -e "$names" "$o" 2>/dev/null | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
print(" ".join("%s:%s" % (fn.split()[0], loc.split(":")[1])
               for fn, loc in zip(lines[0::2], lines[1::2])))' || true
done >"$work/theirs"
inlined=$(grep -c ' ' "$work/theirs" || true)
if [ "$(wc -l <"$work/theirs")" != "$outer_size" ] || [ "$inlined" = 0 ]; then
	head -n 5 "$work/theirs" | ktap_diag
	ktap_result fail "$name" "eu-addr2line gave no inline chains for names_outer"
elif ! diff "$work/ours" "$work/theirs" >"$work/diff"; then
	{ head -n 3 "$work/err"; head -n 10 "$work/diff"; } | ktap_diag
	ktap_result fail "$name" "$(grep -c '^<' "$work/diff") of $outer_size differ"
else
	ktap_result ok "$name ($outer_size addresses, $inlined in inlined code)"
fi

# An object file (ET_REL), as a kernel module is one: a section a
# function, linked with a build ID.  Every byte of each code section.
name="addrres: elf --section: an object file's offsets, each code section, as eu-addr2line -j gives them"
nice "$HOST_CC" -g -O2 -ffunction-sections -c -o "$work/names-fs.part.o" "$elf_fix/names.c"
ld -r --build-id=sha1 -o "$work/names-fs.o" "$work/names-fs.part.o"
: >"$work/ours"
: >"$work/theirs"
nsec=0
while read -r sec size; do
	offs=()
	for ((k = 0; k < 0x$size; k++)); do
		offs+=("$(printf '0x%x' "$k")")
	done
	nsec=$((nsec + 1))
	"$cli" elf --no-demangle -e "$work/names-fs.o" --section="$sec" "${offs[@]}" \
		2>>"$work/err" | frames_of_addrres >>"$work/ours" || true
	DEBUGINFOD_URLS='' eu-addr2line -a -f -i -e "$work/names-fs.o" -j "$sec" "${offs[@]}" \
		2>/dev/null | frames_of_eu_addr2line >>"$work/theirs" || true
done < <(readelf -SW "$work/names-fs.o" | sed 's/^ *\[ *[0-9]*\] *//' |
	awk '$7 ~ /X/ && $5 != "000000" { print $1, $5 }')
total=$(wc -l <"$work/theirs")
inlined=$(grep -c '@' "$work/theirs" || true)
if [ "$nsec" -lt 2 ] || [ "$inlined" = 0 ]; then
	ktap_result fail "$name" "$nsec code sections, $inlined offsets in inlined code: the comparison proves little"
elif ! diff "$work/theirs" "$work/ours" >"$work/diff"; then
	{ head -n 3 "$work/err"; head -n 10 "$work/diff"; } | ktap_diag
	ktap_result fail "$name" "$(grep -c '^<' "$work/diff") of $total differ"
else
	ktap_result ok "$name ($nsec sections, $total offsets, $inlined in inlined code)"
fi
expect "elf: an object file without --section is a usage error, exit 2 naming the option" 2 "" \
	'names-fs.o: an object file has no addresses of its own: give offsets in a section \(--section\)$' \
	elf -e "$work/names-fs.o" 0
expect "elf --section: an offset past the section's end prints ?? and why, exit 1" 1 \
	"0x100000 ?? (past the end of the section)" "" \
	elf -L -e "$work/names-fs.o" --section=.text.names_outer 100000

# kaddr --lines on this host, whose kernel's files are nowhere: why each
# address has no line, never a line from another build's file.
expect "kaddr --lines: a vmlinux of another build is not read, a module not found: ?? and why, exit 1" 1 \
	"0xffffffff81000050 __startup_64+0x10 {head64.o} ?? (no file of the running kernel's build)
0xffffffffc0002044 helper+0x4 [test_module] ?? (no file with its DWARF found)" \
	"the kernel \(build ID [0-9a-f]+\): no file of it: $names: its build ID is not the one given" \
	kaddr --lines "${ksyms[@]}" --vmlinux="$names" 0xffffffff81000050 0xffffffffc0002044
expect "kaddr -j --lines: why there is no line, in lines_error" 1 \
	'{"address":"0xffffffff81000050","symbol":"__startup_64","type":"T","modules":[],"object":"head64.o","loaded_module":false,"size":"0xc0","offset":"0x10","lines":null,"lines_error":"no file of the running kernel'"'"'s build"}' \
	"no file of it: $names: its build ID is not the one given" \
	kaddr -j --lines "${ksyms[@]}" --vmlinux="$names" 0xffffffff81000050

expect "elf: C++ and Rust names demangled, a versioned symbol without its version" 0 \
	"0x$(nm_of _ZNK2ns3BoxIlE3getEli) ns::Box<long>::get(long, int) const+0x0
0x$(nm_of _ZN7mycrate4util5parse17h0123456789abcdefE) mycrate::util::parse+0x0
0x$(nm_of _RNvCs1234_7mycrate5parse) mycrate::parse+0x0
0x$(nm_of names_versioned@NAMES_1) names_versioned+0x0" "" \
	elf -a -L -e "$names" "$(nm_of _ZNK2ns3BoxIlE3getEli)" \
	"$(nm_of _ZN7mycrate4util5parse17h0123456789abcdefE)" "$(nm_of _RNvCs1234_7mycrate5parse)" \
	"$(nm_of names_versioned@NAMES_1)"
expect "elf --no-demangle: names as the symbol table has them" 0 \
	"0x$(nm_of _ZNK2ns3BoxIlE3getEli) _ZNK2ns3BoxIlE3getEli+0x0" "" \
	elf -a -L --no-demangle -e "$names" "$(nm_of _ZNK2ns3BoxIlE3getEli)"

# Offline by build ID: the debug file alone, as a -dbgsym package has it.
bid=$(readelf -n "$names" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
mkdir -p "$work/dbg/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$names" "$work/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
expect "elf -B: a build ID's debug file, by ELF address" 0 \
	"0x$outer names_outer+0x0 $elf_fix/names.c:$(grep -n 'line:middle_calls_inner' "$elf_fix/names.c" | cut -d: -f1) (names_middle inlined at $elf_fix/names.c:$(grep -n 'line:outer_calls_middle' "$elf_fix/names.c" | cut -d: -f1) in names_outer)" "" \
	elf -a -B "$bid" --debug-dirs="$work/dbg" "$outer"
expect "elf -B --offsets: a debug file has no file offsets, exit 7 saying to drop --offsets" 7 "" \
	'no file offsets to resolve; give ELF addresses \(without --offsets\)$' \
	elf --offsets -B "$bid" --debug-dirs="$work/dbg" "$outer"
expect "elf -B: a build ID of no file exits 7 naming it" 7 "" \
	"build ID 00${bid:2}: no file of it" elf -a -B "00${bid:2}" --debug-dirs="$work/dbg" "$outer"
expect "elf: a file offset in no segment prints ?? and why, exit 1" 1 \
	"0xffffffff ?? (in no segment of the file)" "" elf --offsets -e "$names" ffffffff

# Symbol names are any bytes: a newline is written \012 as in paths (one
# line per address), a name that is not UTF-8 gets name_hex in JSON.
objcopy --redefine-sym names_outer=$'names\nouter' "$names" "$work/nl-name.so"
objcopy --redefine-sym names_outer=$'\xff\xfe_outer' "$names" "$work/bad-name.so"
expect "elf: a newline in a symbol name is written \\012: one line per address" 0 \
	"0x$outer names\\012outer+0x0" "" elf -L -e "$work/nl-name.so" "$outer"
expect "elf -j: a symbol name that is not UTF-8 stays JSON, its bytes in name_hex" 0 \
	'{"address":"0x'"$outer"'","symbol":{"name":"\ufffd\ufffd_outer","name_hex":"fffe5f6f75746572","offset":"0x0","elf_addr":"0x'"$outer"'","symtab":"symtab"}}' \
	"" elf -j -L -e "$work/bad-name.so" "$outer"

# A co-process, as profilers use llvm-symbolizer: an address written, its
# answer read before the next is written (stdin stays open all along).
name="addrres: elf as a co-process: each line's answer comes before the next line is written"
coproc_out=()
cxx=$(nm_of _ZNK2ns3BoxIlE3getEli)
coproc SYM { exec "$cli" elf -L -e "$names" 2>"$work/coproc.err"; }
for addr in "$outer" "$cxx"; do
	printf '%s\n' "$addr" >&"${SYM[1]}"
	line=
	IFS= read -r -t 20 line <&"${SYM[0]}" || true
	coproc_out+=("$line")
done
eval "exec ${SYM[1]}>&-"
wait "$SYM_PID" 2>/dev/null || true
if [ "${coproc_out[0]-}" = "0x$outer names_outer+0x0" ] &&
	[ "${coproc_out[1]-}" = "0x$cxx ns::Box<long>::get(long, int) const+0x0" ] &&
	[ ! -s "$work/coproc.err" ]; then
	ktap_result ok "$name"
else
	ktap_result fail "$name" "answers [${coproc_out[*]}] (none within 20 s: the input was read to its end first?)"
fi

# ELF addresses by default (nm's), file offsets with --offsets: a non-PIE,
# where the two differ by the segment's address (0x400000).
"$HOST_CC" -O0 -g -no-pie -fno-pie -o "$work/nopie" "$FIX/elf/prog.c"
nopie_main=$(nm "$work/nopie" | awk '$3 == "main" { print $1 }' | sed 's/^0*//')
nopie_main_off=$(readelf -lW "$work/nopie" | awk -v a=$((16#$nopie_main)) '$1 == "LOAD" &&
	a >= strtonum($3) && a < strtonum($3) + strtonum($6) { printf "%x", a - strtonum($3) + strtonum($2) }')
expect "elf: ELF addresses by default, as nm gives them" 0 \
	"0x$nopie_main main+0x0" "" elf -L -e "$work/nopie" "$nopie_main"
expect "elf --offsets: file offsets" 0 \
	"0x$nopie_main_off main+0x0" "" elf -L --offsets -e "$work/nopie" "$nopie_main_off"

# Paths that are not UTF-8, or hold a newline: the source file of a copy
# of names.c named so.
mkdir -p "$work/src"
odd=$work/src/$'odd\xff\nname.c'
printf 'int odd_function(int x)\n{\n\treturn x + 1;\n}\n' >"$odd"
(cd "$work/src" && nice "$HOST_CC" -g -O0 -fPIC -shared -o "$work/odd.so" "$odd")
odd_off=$(nm "$work/odd.so" | awk '$3 == "odd_function" { print $1 }')
name="addrres: elf -j: a source path that is not UTF-8 stays JSON, its bytes in file_hex"
if out=$("$cli" elf -j -a -e "$work/odd.so" "$odd_off" 2>&1 | python3 -c '
import json, sys
s = json.loads(sys.stdin.read())["symbol"]
sys.stdout.buffer.write(bytes.fromhex(s["file_hex"]))
print("", "\ufffd" in s["file"])') && [ "$out" = "$odd True" ]; then
	ktap_result ok "$name"
else
	printf '%s\n' "got: $out" | ktap_diag
	ktap_result fail "$name" "the JSON does not give the path's bytes back"
fi
name="addrres: elf: a newline in a path is written \\012: one line per address"
out=$("$cli" elf -a -e "$work/odd.so" "$odd_off" 2>&1 || true)
if [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ "$out" == *'odd'$'\xff''\012name.c:'* ]]; then
	ktap_result ok "$name"
else
	printf '%s\n' "got: $out" | ktap_diag
	ktap_result fail "$name" "the record is not one line with \\012"
fi

# debuginfod, opt-in: a server on loopback gives the debug file of a
# stripped copy; without --debuginfod nothing asks it.
name="addrres: elf --debuginfod asks \$DEBUGINFOD_URLS for a missing debug file; without it, nothing is asked"
strip --strip-all -o "$work/names-stripped.so" "$names"
mkdir -p "$work/dfd/buildid/$bid"
cp "$work/dbg/.build-id/${bid:0:2}/${bid:2}.debug" "$work/dfd/buildid/$bid/debuginfo"
: >"$work/dfd.log"
python3 -m http.server 0 --bind 127.0.0.1 --directory "$work/dfd" >"$work/dfd.out" 2>"$work/dfd.log" &
dfd=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/dfd.out" | sed -n '1,1p')
	[ -n "$port" ] && break
	sleep 0.05
done
if [ -z "$port" ]; then
	ktap_result fail "$name" "the loopback HTTP server did not start"
else
	export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$work/dfd-cache
	off_out=$("$cli" elf -q -a -L -e "$work/names-stripped.so" "$(nm_of names_outer)" 2>&1 || true)
	asked_off=$(grep -c 'GET /buildid' "$work/dfd.log" || true)
	cache_off=no
	[ ! -e "$work/dfd-cache" ] || cache_off=yes
	on_out=$("$cli" elf -a -e "$work/names-stripped.so" --debuginfod "$(nm_of names_outer)" 2>&1 || true)
	asked_on=$(grep -c 'GET /buildid' "$work/dfd.log" || true)
	unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
	if [ "$asked_off" != 0 ] || [ "$cache_off" = yes ] || [ "$asked_on" = 0 ]; then
		printf '%s\n' "without: $off_out ($asked_off requests, cache made: $cache_off)" \
			"with: $on_out" | ktap_diag
		ktap_result fail "$name" "the server was asked without --debuginfod, or not with it"
	elif [[ "$on_out" != *"names_outer+0x0 $elf_fix/names.c:"*"inlined at"* ]]; then
		printf '%s\n' "with: $on_out" "$(tail -n 3 "$work/dfd.log")" | ktap_diag
		ktap_result fail "$name" "no lines from the downloaded debug file"
	else
		ktap_result ok "$name ($asked_on request(s); without it: $off_out)"
	fi
fi
kill "$dfd" 2>/dev/null || true
wait "$dfd" 2>/dev/null || true

# JIT code: a process with anonymous executable memory and a perf map.
name="addrres: maps: anonymous code named by the process's /tmp/perf-PID.map"
python3 -c '
import ctypes, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
base = libc.mmap(None, 8192, mmap.PROT_READ | mmap.PROT_EXEC,
                 mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
with open("/tmp/perf-%d.map" % os.getpid(), "w") as f:
    f.write("%x 40 jit_function (compiled)\n" % base)
print("%x" % base, flush=True)
time.sleep(60)' >"$work/jit.out" &
jit=$!
for _ in $(seq 100); do [ -s "$work/jit.out" ] && break; sleep 0.05; done
jit_base=$(cat "$work/jit.out")
if [ -n "$jit_base" ] && grep -q "^$jit_base-" "/proc/$jit/maps"; then
	expect "maps: anonymous code named by the process's /tmp/perf-PID.map" 0 \
		"0x$(printf %x $((0x$jit_base + 0x10))) [anon]+0x10 jit_function (compiled)+0x10" "" \
		maps -p "$jit" "$(printf %x $((0x$jit_base + 0x10)))"
else
	ktap_result fail "$name" "the JIT-like process did not map its code (got \"$jit_base\")"
fi
kill "$jit" 2>/dev/null || true
wait "$jit" 2>/dev/null || true
rm -f "/tmp/perf-$jit.map"

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
