#!/usr/bin/env bash
# Configure and build the kernel of ARCH from the tree, out of tree in $OBJ:
# tinyconfig + the fragments of config/kernel/ (README there) + the
# `config` files of the kselftests we run, merged with the tree's
# merge_config.sh, then a check that every requested value made it.  The
# upstream and base flavors (KERNEL_FLAVOR=upstream, base) build the
# upstream reference and the pinned base without the series with the bench
# kernel's fragments, the pristine flavor the pinned base without the
# series with the test kernel's, each checking only the symbols its Kconfig
# has (the series' own, such as KALLMODSYMS, are not there: they are
# listed).  KERNEL_BASE picks the base (lib.sh).
#
#   build-kernel.sh            configure (when a fragment changed) and build
#   build-kernel.sh --config   only configure and check
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Does the flavor have the test kernel's configuration (its debugging)?
test_like() {
	case $KERNEL_FLAVOR in
	test | pages64k | pristine) true ;;
	*) false ;;
	esac
}

# Is the fragment FILE for this kernel flavor?
for_flavor() {
	case ${1##*/} in
	debug.config) test_like ;;
	# debug.BASE.config: the test kernel of that base only.
	debug.[0-9].[0-9].config | debug.[0-9].[0-9][0-9].config)
		test_like && [[ ${1##*/} == "debug.$KERNEL_BASE.config" ]] ;;
	bench.config) ! test_like ;;
	pages64k.config) [ "$KERNEL_FLAVOR" = pages64k ] ;;
	pages4k.config) [ "$KERNEL_FLAVOR" != pages64k ] ;;
	# NAME.BASE.config: for that kernel base only (NAME.7.2.config).
	*.[0-9].[0-9].config | *.[0-9].[0-9][0-9].config) [[ ${1##*/} == *".$KERNEL_BASE.config" ]] ;;
	*) true ;;
	esac
}

fragments=()
for dir in common "$ARCH" features; do
	for frag in "$TOP/config/kernel/$dir"/*.config; do
		[ -f "$frag" ] && for_flavor "$frag" && fragments+=("$frag")
	done
done
# What the tests say they need is checked like the rest; the bench kernel
# leaves it out (fault injection, for one).
if test_like; then
	for target in $KSFT_TARGETS; do
		cfg=$KERNEL_SRC/tools/testing/selftests/$target/config
		[ -f "$cfg" ] && fragments+=("$cfg")
	done
fi
mkdir -p "$OBJ"
[ -f "$KERNEL_SRC/Makefile" ] ||
	die "no kernel source at $KERNEL_SRC (the base: [KERNEL_BASE=7.2] scripts/fetch-base.sh; the upstream reference: scripts/fetch-base.sh --upstream)"

kernel_cc=$(kernel_cc)

# The Kconfig symbols of the source, one CONFIG_NAME a line (sorted).
kconfig_symbols() {
	find "$KERNEL_SRC" -name 'Kconfig*' -type f -print0 |
		xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]\{1,\}\).*/CONFIG_\2/p' |
		sort -u
}

# merge_config.sh only warns when a value it was asked for is dropped by
# Kconfig (a missing dependency, a typo): fail here instead.
check_config() {
	local frag line sym want have n bad=0 known="" absent=()
	# A tree other than the 6.1 series' may lack symbols (7.2 has no SLOB;
	# the mainline series does not have every feature yet: issue 47).
	if [ "$KERNEL_SRC" != "$TREE" ] || [ "$KERNEL_BASE" != 6.1 ]; then
		known=$OBJ/.kconfig-symbols
		kconfig_symbols >"$known"
	fi
	for frag in "${fragments[@]}"; do
		n=0
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
			if [ -n "$known" ] && ! grep -qxF "$sym" "$known"; then
				absent+=("$sym")
				continue
			fi
			have=$(grep -E "^$sym=" "$OBJ/.config" || true)
			if [ "$have" != "$want" ]; then
				printf '%s:%d: requested %s, final %s .config has %s\n' \
					"${frag#"$TOP"/}" "$n" "${want:-$sym unset}" "$ARCH" "${have:-$sym unset}" >&2
				bad=1
			fi
		done <"$frag"
	done
	[ "$bad" = 0 ] || die "the $ARCH kernel config lacks values the fragments request (a dependency is missing, or a symbol is misspelt); see above"
	[ ${#absent[@]} = 0 ] || info "not in ${KERNEL_SRC##*/}, left out: ${absent[*]}"
}

fragments_stamp() {
	{
		printf '%s\n' "${fragments[@]}"
		cat "${fragments[@]}"
	} | sha256sum
}

configure() {
	info "configuring $ARCH: tinyconfig + ${fragments[*]#"$TOP"/}"
	kmake -s CC="$kernel_cc" tinyconfig >/dev/null
	"$KERNEL_SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${fragments[@]}" >"$OBJ/merge_config.log"
	kmake -s CC="$kernel_cc" olddefconfig
	check_config
	# Remember what this .config was made from.
	fragments_stamp >"$OBJ/.fragments.sha256"
}

if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.fragments.sha256" 2>/dev/null || true)" != "$(fragments_stamp)" ]; then
	configure
else
	check_config
fi
[ "${1:-}" = --config ] && exit 0

flavor_vars=()
test_like && [ "$KERNEL_FLAVOR" != pages64k ] && read -r -a flavor_vars <<<"$KERNEL_TEST_MAKE_VARS"
info "building the $ARCH kernel in $OBJ ($(nproc_jobs) jobs; log: $OBJ/build.log)"
if ! kmake CC="$kernel_cc" "${flavor_vars[@]}" -j"$(nproc_jobs)" all >"$OBJ/build.log" 2>&1; then
	grep -E -B2 -A8 'error:|Error [0-9]' "$OBJ/build.log" | tail -n 40 >&2 || true
	die "$ARCH kernel build failed; full log: $OBJ/build.log"
fi
grep -E 'warning:' "$OBJ/build.log" >&2 || true
# The loadable modules (the tests' own), where guest-init finds them.
install_kernel_modules "$OBJ/modules_install.log" || die "the $ARCH kernel's modules are not installed"
rm -f "$MUTANT_MARK"	# built from the tree as it is
info "built $(cat "$OBJ/include/config/kernel.release") for $ARCH"
