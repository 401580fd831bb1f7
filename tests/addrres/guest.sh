#!/usr/bin/env bash
# The addrres tool on the patched kernel, in the test guest (guest-init
# runs every tests/*/guest.sh after the kselftests): kernel lookups
# against /proc/kallmodsyms itself and, forced, against /proc/kallsyms;
# a live process's addresses with the PROCMAP_QUERY ioctl and, forced,
# with the maps text, both against the maps file; ELF symbols and lines
# (addrres is linked with the arch's libdw, scripts/build-tools.sh); and
# the exit codes that need this kernel or another user.  Prints KTAP.
set -euo pipefail
# shellcheck source=../../scripts/ktap.sh
. "$ADDRRES_TOP/scripts/ktap.sh"

cli=$ADDRRES_BIN/addrres
ksyms_awk=$ADDRRES_TOP/scripts/kallmodsyms.awk
work=$(mktemp -d)
sleeper=
cleanup() {
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
ktap_plan 12

# The lines of WANT_FILE and GOT_FILE that differ, as "LINE: want / got"
# (the arm64 guest's Debian root has no diff).
differences() { # WANT_FILE GOT_FILE
	gawk 'NR == FNR { want[FNR] = $0; n = FNR; next }
		{ got[FNR] = $0; m = FNR }
		END {
			for (i = 1; i <= (n > m ? n : m); i++)
				if (want[i] != got[i]) printf "%d: want [%s] got [%s]\n", i, want[i], got[i]
		}' "$1" "$2"
}

# compare NAME WANT_FILE GOT_FILE RC WANT_RC: one result.
compare() {
	local name="addrres (guest): $1"
	differences "$2" "$3" >"$work/diff"
	if [ "$4" != "$5" ]; then
		head -n 5 "$work/err" | ktap_diag
		ktap_result fail "$name" "exit code $4, want $5"
	elif [ -s "$work/diff" ]; then
		head -n 20 "$work/diff" | ktap_diag
		ktap_result fail "$name" "$(wc -l <"$work/diff") of $(wc -l <"$2") lines differ"
	else
		ktap_result ok "$name ($(wc -l <"$2") lines)"
	fi
}

# --- kernel symbols ---------------------------------------------------------

# Text symbols whose address no other line of FILE has, every 97th: what
# `kaddr` must print for each, from the line itself (the tab before the
# annotation becomes a space).  SIZED is 1 for kallmodsyms, whose lines
# have a size column between address and type.
expected_kaddr() { # FILE SIZED -> "ADDR<tab>expected line"
	gawk -v sized="$2" -f "$ksyms_awk" -e '
		{ ksym_split($0, sized, f); n[f["addr"]]++; line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				ksym_split(line[i], sized, f)
				if (n[f["addr"]] != 1 || f["type"] !~ /^[tT]$/ || i % 97) continue
				addr = f["addr"]; sub(/^0+/, "", addr)
				printf "%s\t0x%s %s+0x0%s\n", f["addr"], addr, f["name"],
					f["annot"] == "" ? "" : " " f["annot"]
			}
		}' "$1"
}

check_kaddr() { # NAME FILE SIZED [OPTION...]
	local name=$1 file=$2 sized=$3 rc=0
	shift 3
	expected_kaddr "$file" "$sized" >"$work/expected"
	cut -f1 "$work/expected" >"$work/addrs"
	cut -f2 "$work/expected" >"$work/want"
	if [ ! -s "$work/want" ]; then
		ktap_result fail "addrres (guest): $name" "no unique text symbol in $file"
		return
	fi
	"$cli" kaddr "$@" <"$work/addrs" >"$work/got" 2>"$work/err" || rc=$?
	compare "$name" "$work/want" "$work/got" "$rc" 0
}

check_kaddr "kaddr: symbols, built-in modules and objects as /proc/kallmodsyms has them" \
	/proc/kallmodsyms 1 --source=kallmodsyms
check_kaddr "kaddr --source=kallsyms (the fallback, forced): names as /proc/kallsyms has them" \
	/proc/kallsyms 0 --source=kallsyms
kernel_addr=$(head -n 1 "$work/addrs")

# A name that kallmodsyms shows more than once, every time as a text
# symbol with an annotation of its own.
name="addrres (guest): kname: an ambiguous name lists every symbol and exits 1; each annotation picks one"
gawk -f "$ksyms_awk" -e '{ ksym_split($0, 1, f); s = f["name"]; a = f["annot"]; n[s]++ }
	f["type"] ~ /^[tT]$/ && a != "" && !((s, a) in seen) { seen[s, a]; good[s]++ }
	END { for (s in n) if (n[s] > 1 && good[s] == n[s]) { print s; exit } }' \
	/proc/kallmodsyms >"$work/dup"
dup=$(cat "$work/dup")
if [ -z "$dup" ]; then
	ktap_missing "$name" "no name in /proc/kallmodsyms with two annotated text symbols"
else
	rc=0
	"$cli" -q kname "$dup" >"$work/got" 2>"$work/err" || rc=$?
	gawk -v s="$dup" -f "$ksyms_awk" -e '{ ksym_split($0, 1, f) } f["name"] == s {
		addr = f["addr"]; sub(/^0+/, "", addr)
		printf "0x%s %s %s%s\n", addr, f["type"], f["name"], f["annot"] == "" ? "" : " " f["annot"] }' \
		/proc/kallmodsyms >"$work/want"
	problems=
	[ "$rc" = 1 ] || problems="bare \"$dup\": exit code $rc, want 1"
	if [ -z "$problems" ]; then
		differences "$work/want" "$work/got" >"$work/diff"
		[ ! -s "$work/diff" ] || problems="bare \"$dup\": the matches differ from /proc/kallmodsyms"
	fi
	while [ -z "$problems" ] && read -r line; do
		# "=NAME [MOD]... {OBJ}": the exact annotation of that line.
		query="=${line#* * }"
		rc=0
		got=$("$cli" kname "$query" 2>"$work/err") || rc=$?
		[ "$rc" = 0 ] && [ "$got" = "$line" ] ||
			problems="\"$query\": exit code $rc, printed [$got], want [$line]"
	done <"$work/want"
	if [ -z "$problems" ]; then
		ktap_result ok "$name ($dup, $(wc -l <"$work/want") symbols)"
	else
		ktap_diag "$problems"
		ktap_result fail "$name" "$problems"
	fi
fi

# --- process addresses ------------------------------------------------------

sleep infinity &
sleeper=$!
sleep_path=$(readlink -f "$(command -v sleep)")
# Until the child has exec'd sleep (a slow guest takes a while); its maps
# before that are the shell's, which the checks below must not compare.
for _ in $(seq 1200); do
	grep -q "$sleep_path" "/proc/$sleeper/maps" 2>/dev/null && break
	sleep 0.1
done
if ! grep -q "$sleep_path" "/proc/$sleeper/maps"; then
	echo "tests/addrres: the child $sleeper did not exec $sleep_path within 120 s" >&2
	exit 1	# the plan's missing results fail the suite
fi
: >"$work/addrs"
: >"$work/want"
while read -r range _ offset _ inode path; do
	[ "$path" = "[vsyscall]" ] && continue
	start=$((0x${range%-*})) end=$((0x${range#*-}))
	for a in $start $(((start + end) / 2)) $((end - 1)); do
		rel=$((a - start))
		[ "$inode" = 0 ] || rel=$((rel + 0x$offset))
		printf '%x\n' "$a" >>"$work/addrs"
		printf '0x%x %s+0x%x\n' "$a" "${path:-[anon]}" "$rel" >>"$work/want"
	done
done <"/proc/$sleeper/maps"
for method in ioctl text auto; do
	rc=0
	"$cli" maps -p "$sleeper" --method=$method --no-symbols <"$work/addrs" >"$work/got" 2>"$work/err" || rc=$?
	compare "maps --method=$method: a live process's addresses as its maps file has them" \
		"$work/want" "$work/got" "$rc" 0
done

name="addrres (guest): maps --method=ioctl --build-ids: build IDs found, the same mappings"
rc=0
"$cli" maps -p "$sleeper" --method=ioctl --build-ids --no-symbols <"$work/addrs" >"$work/ioctl" \
	2>"$work/err" || rc=$?
ids=$(grep -c ' build-id=' "$work/ioctl" || true)
if [ "$rc" != 0 ] || [ "$ids" = 0 ]; then
	head -n 5 "$work/err" | ktap_diag
	ktap_result fail "$name" "exit code $rc, $ids build IDs from the ioctl"
elif sed 's/ build-id=.*//' "$work/ioctl" >"$work/stripped" &&
	differences "$work/want" "$work/stripped" >"$work/diff" && [ -s "$work/diff" ]; then
	head -n 20 "$work/diff" | ktap_diag
	ktap_result fail "$name" "with build IDs, the mappings differ"
else
	ktap_result ok "$name ($ids addresses in files with a build ID)"
fi

# --- exit codes that need this kernel or another user -----------------------

as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
check_exit() { # NAME WANT_RC MESSAGE_ERE ("": no message) COMMAND...
	local name="addrres (guest): $1" want_rc=$2 ere=$3 rc=0
	shift 3
	"$@" >/dev/null 2>"$work/err" || rc=$?
	local message_ok=false
	if [ -z "$ere" ]; then
		[ -s "$work/err" ] || message_ok=true
	elif grep -Eq -- "$ere" "$work/err"; then
		message_ok=true
	fi
	if [ "$rc" = "$want_rc" ] && $message_ok; then
		ktap_result ok "$name"
	else
		printf 'exit %s: %s\n' "$rc" "$(head -c 300 "$work/err")" | ktap_diag
		ktap_result fail "$name" "exit code $rc, want $want_rc and a message matching /$ere/"
	fi
}
# ELF symbols and lines on this arch: addrres's own main(), whose ELF
# address the build wrote beside it (nm's), by libdw of the guest's arch.
name="addrres (guest): elf: its own main(), symbol and source line, by this arch's libdw"
main_addr=$(cat "$ADDRRES_BIN/addrres.main" 2>/dev/null || true)
rc=0
out=$("$cli" elf -a -e "$cli" "$main_addr" 2>"$work/err") || rc=$?
if [ -z "$main_addr" ]; then
	ktap_result fail "$name" "no $ADDRRES_BIN/addrres.main (scripts/build-tools.sh writes it)"
elif [ "$rc" = 0 ] && [[ "$out" =~ ^0x0*${main_addr#"${main_addr%%[!0]*}"}\ main\+0x0\ /.*/addrres\.c:[0-9]+$ ]]; then
	ktap_result ok "$name"
else
	printf '%s\n' "exit $rc: $out" "$(head -c 300 "$work/err")" | ktap_diag
	ktap_result fail "$name" "want \"0x$main_addr main+0x0 .../addrres.c:LINE\""
fi

check_exit "kaddr --source=kallmodsyms: this kernel has it (exit 0)" 0 "" \
	"$cli" kaddr --source=kallmodsyms "$kernel_addr"
kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 1 >/proc/sys/kernel/kptr_restrict
check_exit "kaddr as a user without CAP_SYSLOG, kptr_restrict=1: exit 5 naming it" 5 \
	'kernel.kptr_restrict=1, .*CAP_SYSLOG' "${as_nobody[@]}" "$cli" kaddr ffff
echo "$kptr" >/proc/sys/kernel/kptr_restrict
check_exit "maps of a root process as another user: exit 5 naming CAP_SYS_PTRACE" 5 \
	'CAP_SYS_PTRACE' "${as_nobody[@]}" "$cli" maps -p "$sleeper" 1000
kill "$sleeper"
wait "$sleeper" 2>/dev/null || true
check_exit "maps of a process that exited: exit 4" 4 "no such process: $sleeper" \
	"$cli" maps -p "$sleeper" 1000
sleeper=
