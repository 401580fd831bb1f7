#!/usr/bin/env bash
# One copy of a function name that several kernel functions share, probed by
# the address /proc/kallmodsyms gives it (addrres count, kname --attach), in
# the test guest with KASLR on.  type_show is the name: kernel/events/core.c
# and net/core/net-sysfs.c define one each (built in), and the test module
# test_same_name a third; reading a different sysfs file runs each.  A probe
# on one copy must count exactly the reads of its file and none of the
# others'; an unqualified name must list the copies and attach nothing.
# Prints KTAP.
set -euo pipefail
# shellcheck source=../../scripts/ktap.sh
. "$ADDRRES_TOP/scripts/ktap.sh"

cli=$ADDRRES_BIN/addrres
work=$(mktemp -d)
tracefs=/sys/kernel/tracing
cleanup() {
	echo 0 >"$tracefs/events/addrres/same_name_probe/enable" 2>/dev/null || true
	echo '-:addrres/same_name_probe' >>"$tracefs/kprobe_events" 2>/dev/null || true
	modprobe -r test_same_name 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

NAME=type_show
READS=5
# The copies: a label, the file whose read runs it, and how its line in
# kallmodsyms is told apart (the object's path in the tree, or the module).
labels=(events net module)
declare -A file=(
	[events]=/sys/bus/event_source/devices/software/type
	[net]=/sys/class/net/lo/type
	[module]=/sys/kernel/test_same_name/type
)
declare -A object=([events]=kernel/events/core.o [net]=net/core/net-sysfs.o)

# kprobe.multi needs CONFIG_FPROBE: x86_64's test kernel has it, arm64's
# 6.1 cannot (no rethook), and count says so with exit code 6.
methods=(kprobe)
[ "$(uname -m)" != x86_64 ] || methods+=(multi)
cases=$((1 + ${#labels[@]} * ${#methods[@]} + 3))
[ "$(uname -m)" = x86_64 ] || cases=$((cases + 1))
ktap_plan "$cases"

mountpoint -q "$tracefs" || mount -t tracefs tracefs "$tracefs" 2>/dev/null || true
module_loaded=yes
modprobe test_same_name 2>"$work/modprobe.err" || module_loaded=no

# The qualified query of each copy, from kname's list of the name's copies
# ("0xADDR TYPE NAME [MOD]... {OBJ}" -> "NAME [MOD]... {OBJ}"): the line
# whose object is a tail of the copy's path, or whose module is the test's.
"$cli" -q kname "$NAME" >"$work/copies" 2>"$work/kname.err" || true
declare -A query=() address=()
for label in "${labels[@]}"; do
	line=$(gawk -v label="$label" -v path="${object[$label]:-}" '
		{ obj = ""; if (match($0, /\{[^}]*\}$/)) obj = substr($0, RSTART + 1, RLENGTH - 2) }
		label == "module" && index($0, " [test_same_name]") { print; n++ }
		label != "module" && obj != "" && (obj == path || substr(path, length(path) - length(obj)) == "/" obj) { print; n++ }
		END { exit n != 1 }' "$work/copies") || line=""
	[ -n "$line" ] || continue
	query[$label]=${line#* * }
	address[$label]=${line%% *}
done

# read_files N FILE...: read each FILE N times, as a command addrres runs.
read_files() {
	local n=$1 i f
	shift
	for ((i = 0; i < n; i++)); do
		for f in "$@"; do cat "$f" >/dev/null; done
	done
}
export -f read_files

# The problem with copy LABEL, or nothing if it can be probed.
copy_problem() { # LABEL
	if [ "$1" = module ] && [ "$module_loaded" = no ]; then
		echo "modprobe test_same_name failed: $(head -c 200 "$work/modprobe.err")"
	elif [ -z "${query[$1]:-}" ]; then
		echo "no single $NAME line of $1 in: $(tr '\n' '|' <"$work/copies" | head -c 400)"
	fi
}

# --- an unqualified name ----------------------------------------------------
name="same-name (guest): count $NAME lists every copy, the module's too, and exits 1 attaching nothing"
rc=0
"$cli" -q count "$NAME" true >"$work/got" 2>"$work/err" || rc=$?
problems=$(copy_problem module; copy_problem events; copy_problem net)
if [ -n "$problems" ]; then
	ktap_result fail "$name" "$(head -n 1 <<<"$problems")"
elif [ "$rc" != 1 ]; then
	ktap_result fail "$name" "exit code $rc, want 1: $(head -c 200 "$work/err")"
elif gawk 'NR == FNR { want[FNR] = $0; n = FNR; next } { got[FNR] = $0; m = FNR }
		END { for (i = 1; i <= (n > m ? n : m); i++)
			if (want[i] != got[i]) printf "%d: kname [%s] count [%s]\n", i, want[i], got[i] }' \
		"$work/copies" "$work/got" >"$work/diff" && [ -s "$work/diff" ]; then
	# (gawk, not cmp or diff: the arm64 guest's Debian root has no diffutils)
	head -n 20 "$work/diff" | ktap_diag
	ktap_result fail "$name" "the candidates differ from kname $NAME's lines"
else
	ktap_result ok "$name ($(wc -l <"$work/got") copies)"
fi

# --- each copy by its qualified name -----------------------------------------
# count_while QUERY METHOD FILE...: the calls count prints while the files
# are read READS times each, in $count_calls; its exit code in $count_rc.
count_while() {
	local q=$1 method=$2
	shift 2
	count_rc=0
	"$cli" -q count -m "$method" "$q" bash -c 'read_files "$@"' _ "$READS" "$@" \
		>"$work/count" 2>"$work/count.err" || count_rc=$?
	count_calls=$(gawk 'END { print $1 }' "$work/count")
}

for method in "${methods[@]}"; do
	for label in "${labels[@]}"; do
		name="same-name (guest): count -m $method '$NAME' of $label counts the reads of its file, none of the others'"
		problem=$(copy_problem "$label")
		if [ -n "$problem" ]; then
			ktap_result fail "$name" "$problem"
			continue
		fi
		others=()
		for other in "${labels[@]}"; do
			[ "$other" = "$label" ] || others+=("${file[$other]}")
		done
		count_while "${query[$label]}" "$method" "${file[$label]}"
		own=$count_calls own_rc=$count_rc
		count_while "${query[$label]}" "$method" "${others[@]}"
		foreign=$count_calls
		if [ "$own_rc" != 0 ] || [ "$count_rc" != 0 ]; then
			ktap_diag <"$work/count.err"
			ktap_result fail "$name" "exit codes $own_rc and $count_rc, want 0"
		elif [ "$own" != "$READS" ] || [ "$foreign" != 0 ]; then
			ktap_result fail "$name" "'${query[$label]}': $own calls for $READS reads of ${file[$label]}, $foreign for the others' (want 0)"
		else
			ktap_result ok "$name (${query[$label]} at ${address[$label]})"
		fi
	done
done

if [ "$(uname -m)" != x86_64 ]; then
	name="same-name (guest): count -m multi exits 6 where the kernel has no kprobe.multi (CONFIG_FPROBE)"
	rc=0
	"$cli" -q count -m multi "${query[events]:-$NAME}" true >/dev/null 2>"$work/err" || rc=$?
	if [ "$rc" = 6 ] && grep -q 'CONFIG_FPROBE' "$work/err"; then
		ktap_result ok "$name"
	else
		ktap_result fail "$name" "exit code $rc, want 6 naming CONFIG_FPROBE: $(head -c 300 "$work/err")"
	fi
fi

# --- what kname --attach prints, used as printed ------------------------------
name="same-name (guest): kname --attach=tracefs gives a kprobe_events line that probes that copy alone"
problem=$(copy_problem events)
if [ -z "$problem" ] && [ ! -w "$tracefs/kprobe_events" ]; then
	problem="no $tracefs/kprobe_events to write"
fi
if [ -z "$problem" ]; then
	probe=$("$cli" -q kname -a tracefs "${query[events]}")
	# Named by the test, so that cleanup finds it.
	probe="p:addrres/same_name_probe ${probe#* }"
	if ! echo "$probe" >>"$tracefs/kprobe_events" 2>"$work/err"; then
		problem="kprobe_events refused [$probe]"
	else
		echo 1 >"$tracefs/events/addrres/same_name_probe/enable"
		read_files "$READS" "${file[events]}" "${file[net]}"
		echo 0 >"$tracefs/events/addrres/same_name_probe/enable"
		# kprobe_profile: event (without its group), hits, misses.
		hits=$(gawk '$1 == "same_name_probe" { print $2 }' "$tracefs/kprobe_profile")
		[ "$hits" = "$READS" ] ||
			problem="[$probe]: $hits hits for $READS reads of its file (and $READS of another copy's)"
		echo '-:addrres/same_name_probe' >>"$tracefs/kprobe_events"
	fi
fi
if [ -n "$problem" ]; then
	ktap_result fail "$name" "$problem"
else
	ktap_result ok "$name ($probe)"
fi

# --- KASLR: the address probed is the running kernel's ------------------------
# Moved back by the offset of _text, the events copy's address must be a
# $NAME of System.map, and the offset must not be 0.
name="same-name (guest): the address counted is the running kernel's (KASLR): System.map's $NAME moved by _text's offset"
map=$ADDRRES_KERNEL_OBJ/System.map
problem=$(copy_problem events)
if [ -z "$problem" ]; then
	problem=$(gawk -v addr="${address[events]#0x}" -v name="$NAME" '
		function low48(s) { return strtonum("0x" substr(s, length(s) - 11)) }
		NR == FNR { if ($3 == "_text") link_text = low48($1)
			if ($3 == name) linked[low48($1)] = 1
			next }
		$3 == "_text" { run_text = low48($1) }
		END {
			offset = (run_text - link_text + 2^48) % 2^48
			if (offset == 0) { print "_text did not move: KASLR is off"; exit }
			if (!((low48(addr) - offset + 2^48) % 2^48 in linked))
				printf "0x%s moved back by 0x%x is no %s of System.map\n", addr, offset, name
		}' "$map" /proc/kallsyms)
fi
if [ -n "$problem" ]; then
	ktap_result fail "$name" "$problem"
else
	ktap_result ok "$name"
fi

# --- the figures: names that several functions share --------------------------
# Text names of /proc/kallmodsyms (so of /proc/kallsyms, line for line)
# that name more than one address, and those that still do with their
# annotations (goal: none; each one left is listed, with its object).
# Two kinds of lines are no function a user names, and are counted apart:
# mapping symbols ($x, $d: where code or data starts, in arm64 objects),
# which 6.1 lists for loaded modules, one per section; and the code that
# pseudo-modules make at run time ([__builtin__ftrace]'s
# ftrace_trampoline, one per ftrace_ops with a trampoline of its own, when
# other suites traced before this one).  A name that one loaded module
# has twice (test_same_name's twin_show, each of its objects' KASAN
# constructors) is counted apart too: kallmodsyms, as kallsyms, names no
# object within a loadable module.
name="same-name (guest): every text name that several addresses share is told apart by its annotation"
gawk -f "$ADDRRES_TOP/scripts/kallmodsyms.awk" -e '
	FILENAME == "/proc/modules" { loaded["[" $1 "]"]; next }
	{ ksym_split($0, 1, f) }
	f["type"] ~ /^[tT]$/ && f["name"] ~ /^\$/ { mapping++; next }
	f["type"] ~ /^[tT]$/ && f["annot"] ~ /^\[__builtin__/ { runtime++; next }
	f["type"] ~ /^[tT]$/ {
		name = f["name"]; key = name "\t" f["annot"]; addr = f["addr"]
		if (!((name, addr) in seen)) { seen[name, addr]; addrs[name]++ }
		if (!((key, addr) in kseen)) { kseen[key, addr]; kaddrs[key]++ }
	}
	END {
		for (n in addrs) if (addrs[n] > 1) { names++; syms += addrs[n] }
		for (k in kaddrs) {
			if (kaddrs[k] < 2)
				continue
			split(k, ka, "\t")
			if (ka[2] in loaded) { inmodule++; continue }
			left++; print "left: " k > "/dev/stderr"
		}
		printf "%d %d %d %d %d %d\n", names, syms, left, mapping, runtime, inmodule
	}' /proc/modules /proc/kallmodsyms >"$work/figures" 2>"$work/left"
read -r names syms left mapping runtime inmodule <"$work/figures"
figures="$names text names share $syms addresses; $left still do with annotations"
[ "$inmodule" = 0 ] || figures+="; and $inmodule names a loaded module has twice"
[ "$mapping" = 0 ] || figures+="; and $mapping mapping symbols of loaded modules"
[ "$runtime" = 0 ] || figures+="; and $runtime lines of pseudo-modules' run-time code"
if [ "$left" = 0 ] && [ "$names" -gt 0 ]; then
	ktap_result ok "$name ($figures)"
else
	head -n 20 "$work/left" | ktap_diag
	ktap_result fail "$name" "$figures"
fi
