#!/usr/bin/env bash
# `make mutant MUTANT=NAME[,NAME...]`: break a feature on purpose and show that
# its tests go red.  tests/mutants/NAME.patch is a small diff, never part
# of the series, with a header of "# key: value" lines:
#   what:  what the mutant breaks, in a sentence
#   where: kernel (a diff of build/linux) or project (a diff of this
#          checkout: libaddrres, the harness)
#   arch:  the arches it applies to (default: every arch)
#   base:  the kernel bases a kernel mutant applies to, 7.2 or 6.1 (the
#          default) or both ("6.1 7.2"); it runs when KERNEL_BASE names one
#   guest: what catches it in the guests: `make vm-test` variables
#          (T=..., SUITES=...), run on the kernel built with the mutant
#   host:  what catches it on the host: `make host-test` variables
#          (SUITES=...), run after the guests if there are both
# A kernel mutant is applied to the base's tree (build/linux, or
# build/7.2/linux with KERNEL_BASE=7.2), which must be clean, the
# tests named there run on the result (the kernel rebuilt incrementally:
# ccache makes the way back cheap), and the diff is taken out again
# whatever happened (commit nothing in build/linux meanwhile).  A project
# mutant is applied to a scratch worktree of this checkout's HEAD
# (build/mutants/checkout), never to the checkout itself, and its tests
# run there.  A mutant is "red" when the run fails: its failed tests are
# listed; "GREEN" is a finding: a test to strengthen.  MUTANT=list lists
# them (not M=, which kbuild takes for an external module's directory).
# Each run's output goes to build/mutants/NAME[.ARCH].log, a line to stdout.
set -euo pipefail
requested_arch=${ARCH:-}
. "$(dirname "$0")/lib.sh"

mutants_dir=$TOP/tests/mutants
out_dir=$BUILD_DIR/mutants
M=${MUTANT:-}
[ -n "$M" ] || die "usage: make mutant MUTANT=NAME[,NAME...] [ARCH=...] (MUTANT=list lists them)"
if [ "$M" = list ]; then
	for f in "$mutants_dir"/*.patch; do
		printf '%-34s %s\n' "$(basename "$f" .patch)" "$(sed -n 's/^# what: //p' "$f")"
	done
	exit 0
fi

header() { # file key
	sed -n "s/^# $2: //p" "$1" | sed -n '1,1p'
}

# The tree (or checkout) back as it was: the mutant's files checked out.
restore() { # dir patch
	local files
	files=$(git -C "$1" apply --numstat "$2" | cut -f3)
	# shellcheck disable=SC2086 # one path per word
	[ -z "$files" ] || git -C "$1" checkout -q -- $files
}

run_one() { # name arch -> prints the result line; 0 red, 1 green, 2 could not run
	local name=$1 arch=$2 patch=$mutants_dir/$1.patch where guest host dir top log rc=0 failed
	local -a vars
	where=$(header "$patch" where)
	guest=$(header "$patch" guest)
	host=$(header "$patch" host)
	log=$out_dir/$name${arch:+.$arch}.log
	case $where in
	kernel) dir=$TREE top=$TOP ;;
	project)
		# HEAD in a worktree of its own, made once: the checkout's own
		# files are never changed.
		dir=$out_dir/checkout top=$dir
		if ! git -C "$dir" rev-parse -q --verify HEAD >/dev/null 2>&1; then
			rm -rf "$dir"
			git -C "$TOP" worktree prune
			git -C "$TOP" worktree add -q --detach "$dir" HEAD
		fi
		git -C "$dir" checkout -q -f --detach "$(git -C "$TOP" rev-parse HEAD)"
		;;
	*) die "$patch: 'where:' is kernel or project, not '$where'" ;;
	esac
	[ -n "$guest$host" ] || die "$patch: no 'guest:' or 'host:' line"
	if ! git -C "$dir" apply --check "$patch" 2>"$log"; then
		echo "$name${arch:+ ($arch)}: could not apply: $(head -n 1 "$log")"
		return 2
	fi
	git -C "$dir" apply "$patch"
	trap 'restore "$dir" "$patch"' EXIT
	info "mutant $name${arch:+ on $arch}: ${guest:+guest $guest}${host:+ host $host}"
	: >"$log"
	if [ -n "$guest" ]; then
		read -r -a vars <<<"$guest"
		# The guest runs the tools of $top: a project mutant's are built
		# from the mutated checkout (make vm-test builds only the kernel).
		(cd "$top" && ARCH="${arch:-x86_64}" scripts/build-tools.sh &&
			env "${vars[@]}" ARCH="${arch:-x86_64}" make -s vm-test) >>"$log" 2>&1 || rc=$?
	fi
	if [ -n "$host" ]; then
		read -r -a vars <<<"$host"
		(cd "$top" && env "${vars[@]}" make -s host-test) >>"$log" 2>&1 || rc=$?
	fi
	restore "$dir" "$patch"
	trap - EXIT
	# The kernel in the objects is the mutant's until the next build.
	[ "$where" != kernel ] || [ -z "$guest" ] ||
		ARCH="${arch:-x86_64}" bash -c '. "$1"; echo "$2" >"$MUTANT_MARK"' _ "$TOP/scripts/lib.sh" "$name"
	failed=$(grep -E '^not ok ' "$log" | sed -e 's/^not ok  *//' -e 's/  # .*//' | sed -n '1,8p' |
		paste -sd ';' | sed 's/;/; /g')
	local what="${guest:+guest $guest}${guest:+${host:+, }}${host:+host $host}"
	if [ "$rc" != 0 ] && [ -n "$failed" ]; then
		echo "$name${arch:+ ($arch)}: red ($what): $failed"
		return 0
	elif [ "$rc" != 0 ]; then
		echo "$name${arch:+ ($arch)}: the run failed before any test: see $log"
		return 2
	fi
	echo "$name${arch:+ ($arch)}: GREEN ($what): no test failed; strengthen the tests (log: $log)"
	return 1
}

# A red run means something only against lists a green run wrote.
for list in host "$LABEL"; do
	[ -f "$EXPECTED_DIR/$list.txt" ] ||
		die "no $EXPECTED_DIR/$list.txt: run make check and make manifest first"
done
mkdir -p "$out_dir"
status=0
for name in ${M//,/ }; do
	patch=$mutants_dir/$name.patch
	[ -f "$patch" ] || die "MUTANT=$name: no $patch (make mutant MUTANT=list)"
	base=$(header "$patch" base)
	if [[ " ${base:-6.1} " != *" $KERNEL_BASE "* ]]; then
		echo "$name: for the ${base:-6.1} base: make mutant MUTANT=$name KERNEL_BASE=${base%% *}"
		status=1
		continue
	fi
	if [ "$(header "$patch" where)" = kernel ]; then
		tree_exists || die "$name: no kernel tree in $TREE: run make tree"
		! tree_is_dirty || die "$name: $TREE has uncommitted edits: commit or stash them first"
	fi
	read -r -a mutant_arches <<<"$(header "$patch" arch)"
	[ ${#mutant_arches[@]} -gt 0 ] || mapfile -t mutant_arches < <(all_arches)
	for arch in "${mutant_arches[@]}"; do
		[ -z "$requested_arch" ] || [ "$arch" = "$requested_arch" ] || continue
		[ "$(header "$patch" where)" = kernel ] || arch=""
		run_one "$name" "$arch" || status=1
		[ -n "$arch" ] || break
	done
done
exit "$status"
