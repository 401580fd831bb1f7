#!/usr/bin/env bash
# `addrres kaddr --lines` in the test guest: the booted kernel's addresses
# as source file, line and inlined functions, read from the kernel's own
# vmlinux and a loaded module's .ko in its build directory (found by the
# build IDs the kernel shows), against eu-addr2line run on the same files
# with the same offsets: the KASLR offset taken off for vmlinux, the
# section and the offset in it (/sys/module/NAME/sections) for the
# module.  Prints KTAP.
set -euo pipefail
# shellcheck source=../../scripts/ktap.sh
. "$ADDRRES_TOP/scripts/ktap.sh"
# shellcheck source=../../scripts/frames.sh
. "$ADDRRES_TOP/scripts/frames.sh"

cli=$ADDRRES_BIN/addrres
obj=$ADDRRES_KERNEL_OBJ
module=test_text_poke
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ktap_plan 4

# The lines of WANT and GOT that differ (the arm64 guest has no diff).
differences() { # WANT_FILE GOT_FILE
	gawk 'NR == FNR { want[FNR] = $0; n = FNR; next }
		{ got[FNR] = $0; m = FNR }
		END {
			for (i = 1; i <= (n > m ? n : m); i++)
				if (want[i] != got[i]) printf "%d: want [%s] got [%s]\n", i, want[i], got[i]
		}' "$1" "$2"
}

# compare NAME ADDRS_FILE: ours (canonical in $work/ours, exit code RC)
# against eu-addr2line's ($work/eu).
compare() { # NAME RC
	local name="kernel-lines (guest): $1" lines inlined
	differences "$work/eu" "$work/ours" >"$work/diff"
	lines=$(grep -vc '^??' "$work/eu" || true)
	inlined=$(grep -c '@' "$work/eu" || true)
	if [ "$2" != 0 ]; then
		head -n 5 "$work/err" | ktap_diag
		ktap_result fail "$name" "exit code $2, want 0"
	elif [ -s "$work/diff" ]; then
		head -n 20 "$work/diff" | ktap_diag
		ktap_result fail "$name" "$(wc -l <"$work/diff") of $(wc -l <"$work/eu") addresses differ"
	elif [ "$lines" -lt "$(($(wc -l <"$work/eu") / 2))" ]; then
		ktap_result fail "$name" "eu-addr2line gave $lines of $(wc -l <"$work/eu") addresses a line: the comparison proves little"
	else
		ktap_result ok "$name ($(wc -l <"$work/eu") addresses, $lines with a line, $inlined in inlined code)"
	fi
}

# Text symbols of loaded module MODULE in /proc/kallsyms (of the kernel
# image for ""), every STEP-th: each at its start and half way to the next
# symbol, as "ADDR" (hex, no 0x).
text_addrs() { # MODULE STEP
	gawk -v mod="$1" -v step="$2" '
		$2 ~ /^[tT]$/ && (mod == "" ? NF == 3 : $4 == "[" mod "]") { a[n++] = $1 }
		END {
			for (i = 0; i + 1 < n; i += step) {
				lo = strtonum("0x" substr(a[i], length(a[i]) - 11))
				hi = strtonum("0x" substr(a[i + 1], length(a[i + 1]) - 11))
				print a[i]
				if (hi > lo + 2)
					printf "%s%012x\n", substr(a[i], 1, length(a[i]) - 12), lo + int((hi - lo) / 2)
			}
		}' /proc/kallsyms
}

# --- the kernel image ---------------------------------------------------------

name="kaddr --lines: kernel image addresses as eu-addr2line gives them in vmlinux, KASLR undone"
linked=$(gawk '$3 == "_text" { print $1; exit }' "$obj/System.map")
running=$(gawk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
text_addrs "" 1500 >"$work/addrs"
cp "$work/addrs" "$work/image-addrs"
: >"$work/linked"
while read -r a; do
	printf '0x%x\n' "$((0x$a - 0x$running + 0x$linked))" >>"$work/linked"
done <"$work/addrs"
# shellcheck disable=SC2046 # one address an argument
DEBUGINFOD_URLS='' eu-addr2line -a -f -i -e "$obj/vmlinux" $(cat "$work/linked") 2>"$work/err" |
	frames_of_eu_addr2line >"$work/eu"
rc=0
"$cli" kaddr --lines --build-dir="$obj" <"$work/addrs" 2>"$work/err" | frames_of_addrres >"$work/ours" ||
	rc=$?
case $rc in 0 | 1) rc=0 ;; esac	# exit 1: an address without a line, compared too
compare "$name" "$rc"

# --- a loaded module -----------------------------------------------------------

name="kaddr --lines: a loaded module's addresses as eu-addr2line -j SECTION gives them in its .ko"
ko=$(gawk -v m="$module" '$0 ~ "(^|/)" m ".ko$" { print; exit }' "$obj/modules.order")
ko=$obj/${ko%.o}
ko=${ko%.ko}.ko
if ! modprobe "$module" 2>"$work/err"; then
	head -n 5 "$work/err" | ktap_diag
	ktap_result fail "kernel-lines (guest): $name" "modprobe $module failed"
else
	text_addrs "$module" 1 >"$work/addrs"
	# "SECTION OFFSET ADDR" of each, by the kernel's section addresses and
	# the sizes of the .ko's sections, in section order.
	for s in /sys/module/"$module"/sections/.*; do
		if [ -f "$s" ]; then printf '%s %s\n' "${s##*/}" "$(cat "$s")"; fi
	done >"$work/starts"
	eu-readelf -S -W "$ko" | gawk '{ sub(/^ *\[ *[0-9]+\] */, "") } NF >= 6 { print $1, $5 }' \
		>"$work/sizes"
	gawk 'FILENAME == ARGV[1] { size[$1] = strtonum("0x" $2); next }
		FILENAME == ARGV[2] {
			if ($1 in size && size[$1])
				start[$1] = strtonum("0x" substr($2, length($2) - 11))
			next
		}
		{
			a = strtonum("0x" substr($1, length($1) - 11))
			for (s in start) {
				lo = start[s]
				if (a >= lo && a < lo + size[s]) { printf "%s %x %s\n", s, a - lo, $1; next }
			}
			printf "?? 0 %s\n", $1
		}' "$work/sizes" "$work/starts" "$work/addrs" | sort -s -k1,1 >"$work/placed"
	: >"$work/eu"
	for s in $(cut -d' ' -f1 "$work/placed" | uniq); do
		# shellcheck disable=SC2046 # one offset an argument
		DEBUGINFOD_URLS='' eu-addr2line -a -f -i -e "$ko" -j "$s" \
			$(gawk -v s="$s" '$1 == s { print "0x" $2 }' "$work/placed") 2>>"$work/err" |
			frames_of_eu_addr2line >>"$work/eu"
	done
	rc=0
	cut -d' ' -f3 "$work/placed" | "$cli" kaddr --lines --build-dir="$obj" 2>"$work/err" |
		frames_of_addrres >"$work/ours" || rc=$?
	case $rc in 0 | 1) rc=0 ;; esac
	if grep -q '^?? ' "$work/placed"; then
		ktap_result fail "kernel-lines (guest): $name" "addresses in no section of $ko: $(grep -c '^?? ' "$work/placed")"
	else
		compare "$name" "$rc"
	fi
fi

# --- Debian's debug package layout ------------------------------------------------

# Without --build-dir: the files where Debian's linux-image-*-dbg installs
# them, /usr/lib/debug/boot/vmlinux-RELEASE and the module at its
# modules.dep path below /usr/lib/debug/lib/modules/RELEASE, mounted over
# /usr/lib/debug in a mount namespace of its own.  The installed module
# is stripped (modules_install INSTALL_MOD_STRIP=1): its lines can only
# come from there.  The vmlinux on the arm64 guest too (/lib/modules/
# RELEASE/build points into the host's build tree, which only the x86
# guest, booting the host's root, has).
name="kernel-lines (guest): kaddr --lines: the files found where Debian's linux-image-*-dbg puts them, as from the build directory"
release=$(uname -r)
rel=$(gawk -v m="$module" '$1 ~ "(^|/)" m ".ko:$" { sub(/:$/, "", $1); print $1; exit }' \
	"/lib/modules/$release/modules.dep")
{ head -n 6 "$work/image-addrs"; cut -d' ' -f3 "$work/placed" 2>/dev/null; } >"$work/addrs"
rc=0 rc_debian=0
"$cli" kaddr --lines --build-dir="$obj" <"$work/addrs" >"$work/want" 2>"$work/err" || rc=$?
# shellcheck disable=SC2016 # the inner shell's arguments
unshare -m sh -c 'mount -t tmpfs debug /usr/lib/debug &&
	mkdir -p /usr/lib/debug/boot "/usr/lib/debug/lib/modules/$1/${3%/*}" &&
	ln -s "$2/vmlinux" "/usr/lib/debug/boot/vmlinux-$1" &&
	ln -s "$4" "/usr/lib/debug/lib/modules/$1/$3" &&
	exec "$5" kaddr --lines' sh "$release" "$obj" "$rel" "$ko" "$cli" \
	<"$work/addrs" >"$work/got" 2>>"$work/err" || rc_debian=$?
module_lines=$(grep -c "\[$module\] /.*:[0-9]" "$work/got" || true)
differences "$work/want" "$work/got" >"$work/diff"
if [ -z "$rel" ]; then
	ktap_result fail "$name" "no $module in /lib/modules/$release/modules.dep"
elif [ "$rc" -gt 1 ] || [ "$rc_debian" != "$rc" ]; then
	head -n 5 "$work/err" | ktap_diag
	ktap_result fail "$name" "exit code $rc_debian, from the build directory $rc"
elif [ -s "$work/diff" ]; then
	head -n 10 "$work/diff" | ktap_diag
	ktap_result fail "$name" "$(wc -l <"$work/diff") of $(wc -l <"$work/want") lines differ"
elif [ "$module_lines" = 0 ]; then
	ktap_result fail "$name" "no line for an address of $module: its debug file was not read"
else
	ktap_result ok "$name ($(wc -l <"$work/want") addresses, $module_lines of $module with a line)"
fi
rmmod "$module" 2>/dev/null || true

# --- never from another build ----------------------------------------------------

name="kernel-lines (guest): kaddr --lines: a vmlinux of another build is not read (its build ID), the files tried named"
rc=0
addr=$(gawk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
out=$("$cli" kaddr --lines --vmlinux="$cli" "$addr" 2>"$work/err") || rc=$?
if [ "$rc" = 1 ] && [[ "$out" == *" ?? ("* ]] &&
	grep -q "the kernel (build ID [0-9a-f]*): no file of it: $cli: its build ID is not the one given" "$work/err"; then
	ktap_result ok "$name"
else
	printf '%s\n' "exit $rc: $out" "$(head -c 400 "$work/err")" | ktap_diag
	ktap_result fail "$name" "want exit 1, \"??\" and a message naming $cli and its build ID"
fi
