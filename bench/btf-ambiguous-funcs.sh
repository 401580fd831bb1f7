#!/usr/bin/env bash
# Which BTF FUNCs of a kernel name a function its vmlinux has at several
# addresses: the FUNCs the fentry refusal
# (bpf-refuse-tracing-programs-on-a-function-name-its-object-has-twice)
# refuses.  Counts them in vmlinux's own .BTF, and in the BTF each further
# pahole writes for the same vmlinux with the flags 7.2's
# scripts/Makefile.btf gives that pahole's version:
#   bench/btf-ambiguous-funcs.sh VMLINUX [PAHOLE...]
# e.g. the test kernel built with Debian 12's pahole 1.24, re-encoded by a
# pahole 1.31 (whose btf_encoder leaves a name with several addresses out):
#   bench/btf-ambiguous-funcs.sh build/7.2/x86_64/obj/vmlinux /tmp/pahole-1.31
# Text symbols are nm's t, T, w and W; several symbols at one address
# (aliases) are one function.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -ge 1 ] || die "usage: $0 VMLINUX [PAHOLE...]"
vmlinux=$1
shift
[ -f "$vmlinux" ] || die "no $vmlinux"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Names with more than one text address.
nm --defined-only "$vmlinux" |
	awk '$2 ~ /^[tTwW]$/ { print $3, $1 }' | sort -u |
	awk '{ n[$1]++ } END { for (s in n) if (n[s] > 1) print s }' |
	sort >"$tmp/ambiguous"

# funcs BTF_FILE: the names of its FUNCs, sorted.
funcs() {
	bpftool btf dump file "$1" |
		sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort -u
}

# report LABEL BTF_FILE
report() {
	local n
	funcs "$2" >"$tmp/funcs"
	n=$(comm -12 "$tmp/ambiguous" "$tmp/funcs" | wc -l)
	printf '%-44s %7d FUNCs, %5d of them on a name with several addresses\n' \
		"$1" "$(wc -l <"$tmp/funcs")" "$n"
	comm -12 "$tmp/ambiguous" "$tmp/funcs" | sed -n '1,5s/^/    e.g. /p'
}

# flags VERSION: what 7.2's scripts/Makefile.btf passes that pahole version
# (without -j, which changes nothing encoded).
flags() {
	local v=$1 f
	if [ "$v" -le 125 ]; then
		f="--btf_gen_floats"
		[ "$v" -lt 125 ] || f+=" --skip_encoding_btf_inconsistent_proto --btf_gen_optimized"
	else
		f="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"
		[ "$v" -lt 130 ] || f+=" --btf_features=attributes"
		[ "$v" -lt 131 ] || f+=" --btf_features=layout"
	fi
	echo "$f"
}

echo "$vmlinux: $(wc -l <"$tmp/ambiguous") text names with several addresses"
report "its own .BTF" "$vmlinux"
for pahole in "$@"; do
	version=$("$pahole" --version)
	v=${version#v}
	v=$((${v%%.*} * 100 + ${v#*.}))
	# shellcheck disable=SC2046 # flags are words
	"$pahole" $(flags "$v") --btf_encode_detached="$tmp/btf" "$vmlinux" \
		>"$tmp/pahole.log" 2>&1 || die "$pahole failed: $(tail -n 3 "$tmp/pahole.log")"
	report "re-encoded by pahole $version" "$tmp/btf"
done
