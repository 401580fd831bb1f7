#!/usr/bin/env bash
# modules.builtin.ranges, which the series writes from the kallmodsyms
# data (scripts/kallsyms --builtin-ranges) so that tools made for Linux
# 6.12 (CONFIG_BUILTIN_MODULE_RANGES) find built-in modules on 6.1 too:
# for each arch `make check` built (CHECK_ARCHES), or every arch, the file
# of the build must be the one 6.12's own generator
# (scripts/generate_builtin_ranges.awk of the pinned linux-source-6.12,
# config/upstream.conf, run as an oracle, never copied) makes from the same
# build's modules.builtin, vmlinux.map and vmlinux.o.map (where the final
# link takes vmlinux.o: x86 IBT), and modules_install must have
# installed it.  The upstream source is fetched if it is not cached.
# Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

read -r -a arches <<<"${CHECK_ARCHES:-$(all_arches | tr '\n' ' ')}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ktap_plan $((2 * ${#arches[@]}))

oracle=""
if upstream=$("$TOP/scripts/fetch-base.sh" --upstream 2>"$work/fetch.err"); then
	oracle=$upstream/scripts/generate_builtin_ranges.awk
	[ -f "$oracle" ] || oracle=""
fi
command -v gawk >/dev/null || oracle=""

for arch in "${arches[@]}"; do
	obj=$( ARCH=$arch; . "$TOP/scripts/lib.sh"; echo "$OBJ" )
	name="builtin-ranges: $arch: the file equals what 6.12's generator makes of the same build"
	if [ -z "$oracle" ]; then
		head -n 5 "$work/fetch.err" | ktap_diag
		ktap_result fail "$name" "no 6.12 generate_builtin_ranges.awk (scripts/fetch-base.sh --upstream) or no gawk"
	elif [ ! -f "$obj/modules.builtin.ranges" ] || [ ! -f "$obj/vmlinux.map" ]; then
		ktap_result fail "$name" "no modules.builtin.ranges or vmlinux.map in $obj (make kernel ARCH=$arch; CONFIG_KALLMODSYMS and VMLINUX_MAP)"
	else
		# vmlinux.o.map: the build writes it where the final link
		# takes vmlinux.o (x86 IBT); 6.12 reads it only then.
		o_map=$obj/vmlinux.o.map
		if [ ! -f "$o_map" ]; then
			o_map=$work/vmlinux.o.map
			: >"$o_map"
		fi
		rc=0
		(cd "$obj" && gawk -f "$oracle" modules.builtin vmlinux.map "$o_map") \
			>"$work/want" 2>"$work/err" || rc=$?
		if [ "$rc" != 0 ]; then
			head -n 5 "$work/err" | ktap_diag
			ktap_result fail "$name" "the oracle exited $rc"
		elif ! grep -qv ' = ' "$work/want"; then
			ktap_result fail "$name" "the oracle found no built-in module: nothing compared"
		elif ! diff -u "$work/want" "$obj/modules.builtin.ranges" >"$work/diff"; then
			head -n 20 "$work/diff" | ktap_diag
			ktap_result fail "$name" "$(grep -c '^[-+][^-+]' "$work/diff") lines differ"
		else
			ktap_result ok "$name ($(wc -l <"$work/want") lines, $(grep -vc ' = ' "$work/want") ranges)"
		fi
	fi

	name="builtin-ranges: $arch: modules_install installs it beside modules.builtin"
	installed=$(find "$obj/mod-install/lib/modules" -maxdepth 2 -name modules.builtin.ranges 2>/dev/null | sed -n '1,1p')
	if [ -z "$installed" ]; then
		ktap_result fail "$name" "no modules.builtin.ranges under $obj/mod-install/lib/modules"
	elif ! cmp -s "$installed" "$obj/modules.builtin.ranges"; then
		ktap_result fail "$name" "$installed differs from the build's"
	else
		ktap_result ok "$name"
	fi
done
