#!/usr/bin/env bash
# Configure and build the test kernel from the tree, out of tree in $OBJ:
# tinyconfig + config/kernel/*.config + the `config` files of the kselftests
# we run, merged with the tree's merge_config.sh, then a check that every
# requested value made it.
#
#   build-kernel.sh            configure (when a fragment changed) and build
#   build-kernel.sh --config   only configure and check
set -eu
. "$(dirname "$0")/lib.sh"

. "$TOP/config/test.conf"

# Our fragments, then the `config` file of each kselftest directory the
# guest runs: what the tests say they need is checked like the rest.
# debug.config is for the test kernel only, bench.config for the bench
# kernel only; the bench kernel also leaves out what only the tests need
# (fault injection, for one).
fragments=()
for frag in "$TOP"/config/kernel/*.config; do
	case ${frag##*/} in
	debug.config) [ "$KERNEL_FLAVOR" = test ] || continue ;;
	bench.config) [ "$KERNEL_FLAVOR" = bench ] || continue ;;
	esac
	fragments+=("$frag")
done
for target in $KSFT_TARGETS; do
	cfg=$TREE/tools/testing/selftests/$target/config
	[ "$KERNEL_FLAVOR" = test ] && [ -f "$cfg" ] && fragments+=("$cfg")
done
mkdir -p "$OBJ"

kmake() {
	local cc=gcc
	if command -v ccache >/dev/null 2>&1; then cc="ccache gcc"; fi
	# Paths below the build dir hash as relative ones: another checkout
	# of the project (CI's fresh clone) hits the same cache entries.
	export CCACHE_BASEDIR=$BUILD_DIR
	make -C "$TREE" O="$OBJ" CC="$cc" LOCALVERSION="$LOCALVERSION" "$@"
}

# merge_config.sh only warns when a value it was asked for is dropped by
# Kconfig (a missing dependency, a typo): fail here instead.
check_config() {
	local frag line sym want have bad=0
	for frag in "${fragments[@]}"; do
		local n=0
		while IFS= read -r line || [ -n "$line" ]; do
			n=$((n + 1))
			case $line in
			CONFIG_*=*)
				sym=${line%%=*} want=$line ;;
			"# CONFIG_"*" is not set")
				sym=${line#\# } sym=${sym%% *} want="" ;;
			"" | \#*) continue ;;
			*)
				printf '%s:%d: not a Kconfig assignment: %s\n' "${frag#"$TOP"/}" "$n" "$line" >&2
				bad=1
				continue ;;
			esac
			have=$(grep -E "^$sym=" "$OBJ/.config" || true)
			if [ "$have" != "$want" ]; then
				printf '%s:%d: requested %s, final .config has %s\n' \
					"${frag#"$TOP"/}" "$n" "${want:-$sym unset}" "${have:-$sym unset}" >&2
				bad=1
			fi
		done <"$frag"
	done
	[ "$bad" = 0 ] || die "the kernel config lacks values the fragments request (a dependency is missing, or a symbol is misspelt); see above"
}

configure() {
	info "configuring: tinyconfig + ${fragments[*]#"$TOP"/}"
	kmake -s tinyconfig >/dev/null
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${fragments[@]}" >"$OBJ/merge_config.log"
	kmake -s olddefconfig
	check_config
	# Remember what this .config was made from.
	cat "${fragments[@]}" | sha256sum >"$OBJ/.fragments.sha256"
}

stamp=$(cat "${fragments[@]}" | sha256sum)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.fragments.sha256" 2>/dev/null)" != "$stamp" ]; then
	configure
else
	check_config
fi
[ "${1:-}" = --config ] && exit 0

info "building the kernel in $OBJ ($(nproc_jobs) jobs; log: $OBJ/build.log)"
if ! kmake -j"$(nproc_jobs)" all >"$OBJ/build.log" 2>&1; then
	grep -E -B2 -A8 'error:|Error [0-9]' "$OBJ/build.log" | tail -n 40 >&2
	die "kernel build failed; full log: $OBJ/build.log"
fi
grep -E 'warning:' "$OBJ/build.log" >&2 || true
info "built $(cat "$OBJ/include/config/kernel.release")"
