#!/usr/bin/env bash
# KASLR in the test guest (config/kernel/common/kaslr.config): the kernel
# must run away from the address it was linked at, or every test that
# reads kernel addresses would pass even if it took them from the link
# instead of the running kernel.  Compares /proc/kallsyms with the build's
# System.map.  Prints KTAP.
set -euo pipefail
# shellcheck source=../../scripts/ktap.sh
. "$ADDRRES_TOP/scripts/ktap.sh"

map=$ADDRRES_KERNEL_OBJ/System.map
ktap_plan 2

# The address of SYMBOL in FILE (nm format), or nothing.
address_of() { # SYMBOL FILE
	gawk -v s="$1" '$3 == s { print $1; exit }' "$2"
}
linked=$(address_of _text "$map")
running=$(address_of _text /proc/kallsyms)
name="kaslr (guest): the kernel runs away from its link-time address"
if [ -z "$linked" ]; then
	ktap_result fail "$name" "no _text in $map"
elif [ -z "$running" ]; then
	ktap_result fail "$name" "no _text in /proc/kallsyms"
elif [ "$((16#$running))" -eq 0 ]; then
	ktap_result fail "$name" "/proc/kallsyms hides addresses (kptr_restrict)"
elif [ "$running" = "$linked" ]; then
	ktap_result fail "$name" "_text at $running, where it was linked (nokaslr, or no entropy?)"
else
	ktap_result ok "$name (_text linked at $linked, runs at $running)"
fi

# Every text symbol System.map names once must have moved by the offset of
# _text: a symbol that did not would be one kallsyms reports unrelocated.
# gawk's numbers are doubles: offsets are taken modulo 2^48 from the low 12
# hex digits, exact in a double (kernel addresses share their top bits).
name="kaslr (guest): every text symbol moved by the offset of _text"
offsets=$(mktemp)
trap 'rm -f "$offsets"' EXIT
if gawk '
	function low48(s) { return strtonum("0x" substr(s, length(s) - 11)) }
	NR == FNR {
		if ($2 ~ /^[tT]$/) { seen[$3]++; link[$3] = low48($1) }
		next
	}
	$2 ~ /^[tT]$/ && NF == 3 && seen[$3] == 1 {
		moved[$3] = (low48($1) - link[$3] + 2^48) % 2^48
	}
	END {
		if (!("_text" in moved)) { print "no _text in /proc/kallsyms"; exit 1 }
		for (s in moved) {
			n++
			if (moved[s] != moved["_text"] && bad++ < 5)
				printf "%s moved by %#x, _text by %#x\n", s, moved[s], moved["_text"]
		}
		printf "%d text symbols compared, %d moved otherwise\n", n, bad
		exit bad > 0
	}' "$map" /proc/kallsyms >"$offsets" 2>&1; then
	ktap_diag <"$offsets"
	ktap_result ok "$name"
else
	ktap_diag <"$offsets"
	ktap_result fail "$name"
fi
