#!/usr/bin/env bash
# `make check-series`: does every patch of the series build on its own, and
# add no `make W=1` warning in the files it touches?  Slow (hours the first
# time), so not part of `make check`.
#
#   check-series.sh            every commit of base..HEAD of build/linux
#   check-series.sh --last N   only the last N commits
#   check-series.sh --only N,M only the N-th, M-th, ... commits after base
#                              (1 is the first patch), oldest first: each
#                              builds on the objects of the one checked
#                              before it, and kbuild rebuilds what differs
#
# For each architecture (all of config/arch/, or only ARCH when it is set)
# and each commit, oldest first: check the commit out in a worktree of the
# tree of its own (build/series-check/linux, so build/linux stays as it is)
# and build it with W=1 into build/ARCH/obj-series (KERNEL_FLAVOR=series),
# configured like `make kernel` (a copy of build/ARCH/obj/.config).  One
# commit builds on the objects of the one before: only what a patch changes
# is recompiled.  A commit that changes a kselftest directory of
# config/test.conf's KSFT_TARGETS also has that directory built at the
# commit (no warning in the files it touches) and run in a guest booting
# the commit's kernel (harness/run-vm.sh): every case of every program as
# the arch's expected results (config/expected/) say, through
# harness/ktap-summary as make check judges them, and a clean verdict (no
# splat).  A commit that changes tools/perf also has perf built at the
# commit (perf's own -Werror) and the series' perf test suites it has run,
# on the host's arch only.
#
# KTAP on stdout, one test per (arch, patch); progress on stderr.  A failed
# build lists its first errors.  When a commit's build warns in a file the
# commit touches, its parent is rebuilt the same way and the warnings the
# parent does not have (line numbers aside) fail the commit.
set -euo pipefail
requested_arch=${ARCH:-}
. "$(dirname "$0")/lib.sh"
# shellcheck source=ktap.sh
. "$TOP/scripts/ktap.sh"

usage() {
	printf 'usage: %s [--last N | --only N,M,...]\n' "$0" >&2
	exit 2
}
last="" only=""
while [ $# -gt 0 ]; do
	case $1 in
	--last)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
			die "--last takes a number of commits (1 or more)"
		fi
		last=$2
		shift 2
		;;
	--only)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then
			die "--only takes commit numbers separated by commas (1 is the first patch)"
		fi
		only=$2
		shift 2
		;;
	-h | --help) usage ;;
	*) printf 'error: unknown argument %s\n' "$1" >&2; usage ;;
	esac
done

SC_DIR=$BASE_BUILD/series-check
WT=$SC_DIR/linux                # worktree of $TREE: the commit being built

tree_exists || die "no kernel tree in $TREE: run make tree"
tree_is_dirty && warn "$TREE has uncommitted edits: only its commits are checked"
[ "$(tree_patch_ids)" = "$(series_patch_ids)" ] ||
	warn "$TREE differs from $PATCH_REL/series: checking the tree's commits (make refresh exports them)"

mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "$TREE has no commit on top of base: nothing to check"
if [ -n "$last" ] && [ -n "$only" ]; then
	die "--last and --only: give one of them"
fi
if [ -n "$last" ] && [ "$last" -lt ${#commits[@]} ]; then
	commits=("${commits[@]: -$last}")
fi
if [ -n "$only" ]; then
	picked=()
	for i in $(tr ',' '\n' <<<"$only" | sort -n -u); do
		[ "$i" -le ${#commits[@]} ] || die "--only $i: the series has ${#commits[@]} commits"
		picked+=("${commits[$((i - 1))]}")
	done
	commits=("${picked[@]}")
fi
if [ -n "$requested_arch" ]; then
	arches=("$requested_arch")
else
	mapfile -t arches < <(all_arches)
fi

mkdir -p "$SC_DIR"
exec 9>"$SC_DIR/lock"
flock -n 9 || die "another check-series.sh is running (lock $SC_DIR/lock)"

# The worktree, made once and reused; made again when it no longer belongs
# to $TREE (the tree was made anew).
ensure_worktree() {
	local common want
	want=$(git -C "$TREE" rev-parse --path-format=absolute --git-common-dir)
	common=$(git -C "$WT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
	[ -e "$WT" ] && [ "$common" = "$want" ] && return 0
	if [ -e "$WT" ]; then
		info "$WT is not a worktree of $TREE: making it again"
		rm -rf "$WT"
	fi
	git -C "$TREE" worktree prune
	info "adding the worktree $WT (once)"
	git -C "$TREE" worktree add -q --detach "$WT" base >&2
}
ensure_worktree


subject_of() { git -C "$TREE" log -1 --format=%s "$1" | tr '#' '_'; }

# Check out COMMIT in the worktree and touch the files that the commit
# CHANGES (default: COMMIT) changes, so that the build recompiles all they
# reach, whatever state the objects were left in.
checkout_at() { # commit [changes]
	local f
	git -C "$WT" checkout -q -f --detach "$1"
	while IFS= read -r f; do
		if [ -f "$WT/$f" ]; then touch "$WT/$f"; fi
	done < <(git -C "$TREE" diff --name-only "${2:-$1}^" "${2:-$1}")
}

# Build what the worktree holds into $OBJ (the series flavor's, whose
# KERNEL_SRC is the worktree), with W=1 and the test kernel's make
# variables; the log to LOG.
build_into() { # log
	local vars
	read -r -a vars <<<"$KERNEL_TEST_MAKE_VARS"
	# Each commit configured from make kernel's config: a symbol the series
	# adds, unknown to the commits before it, is then set as make kernel's
	# says once it exists (rather than dropped for good by the first
	# olddefconfig).  Unchanged values rebuild nothing.
	cp "$OBJ/.config.source" "$OBJ/.config"
	kmake -s CC="$kernel_cc" olddefconfig >"$1" 2>&1 &&
		kmake CC="$kernel_cc" "${vars[@]}" W=1 -j"$(nproc_jobs)" all >>"$1" 2>&1
}

# The W=1 warnings of a build log located in the files a commit changes,
# one per line as "KEY<TAB>LINE": LINE as printed, KEY "path: warning: text"
# with the path relative to the source tree (an objtool warning on a .o
# counts for its .c) and no line or column number, so that a patch that
# only moves code does not make its warnings new.  A relative path that make
# printed inside a directory of the worktree (the kselftests build in their
# source directories) is taken from that directory.
touched_warnings() { # log commit
	local rel
	rel=$(realpath -m --relative-to="$OBJ" "$WT")
	git -C "$TREE" diff --name-only "$2^" "$2" |
		awk -v wt="$WT/" -v rel="$rel/" '
		# PATH without its "." and "dir/.." parts
		function normal(path,   n, i, k, part, out) {
			n = split(path, part, "/")
			k = 0
			for (i = 1; i <= n; i++) {
				if (part[i] == "." || (part[i] == "" && i > 1)) continue
				if (part[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
				out[++k] = part[i]
			}
			path = out[1]
			for (i = 2; i <= k; i++) path = path "/" out[i]
			return path
		}
		FNR == NR { touched[$0] = 1; next }
		match($0, /^make(\[[0-9]+\])?: Entering directory \047/) {
			dir = substr($0, RLENGTH + 1); sub(/\047$/, "", dir)
			next
		}
		# W=1 runs scripts/misc-check on 7.2: it reports every tracked file
		# a .gitignore ignores, and the Debian source package ignores its
		# top level ("/*"), so each file a patch adds.  That is about this
		# repository of the package, not the patch.
		/: warning: ignored by one of the \.gitignore files$/ { next }
		match($0, /^[^ :]+(:[0-9]+)?(:[0-9]+)?: warning: /) {
			line = $0
			path = line; sub(/:.*/, "", path)
			text = line; sub(/^[^ :]+(:[0-9]+)?(:[0-9]+)?: warning: /, "", text)
			if (substr(path, 1, 1) != "/" && index(dir "/", wt) == 1) path = normal(dir "/" path)
			if (index(path, wt) == 1) path = substr(path, length(wt) + 1)
			else if (index(path, rel) == 1) path = substr(path, length(rel) + 1)
			while (substr(path, 1, 2) == "./") path = substr(path, 3)
			if (path ~ /\.o$/ && !(path in touched)) path = substr(path, 1, length(path) - 1) "c"
			if (path in touched)
				print path ": warning: " text "\t" line
		}' - "$1"
}

# Shorten the worktree's paths in what is shown.
show_paths() {
	local rel
	rel=$(realpath -m --relative-to="$OBJ" "$WT")
	sed -e "s|$WT/||g" -e "s|$rel/||g"
}

first_errors() { # log
	grep -E -A3 ': (fatal )?error:|undefined reference to|\] Error [0-9]+' "$1" |
		show_paths | sed -n '1,30p' || true
}

# The kselftest directories of KSFT_TARGETS that COMMIT changes.
selftest_dirs_of() { # commit
	local dir
	for dir in $KSFT_TARGETS; do
		git -C "$TREE" diff --quiet "$1^" "$1" -- "tools/testing/selftests/$dir" ||
			printf '%s\n' "$dir"
	done
}

# perf built from the worktree, at COMMIT, for the host (its Makefile's
# -Werror is the warning check), and each of PERF_SERIES_SUITES (lib.sh) it
# has run:
# every case Ok.  Prints what it ran, or fails with the reason on stdout.
check_perf() { # commit log-base
	local out=$SC_DIR/perf log=$2.perf.log suite num results bad ran=""
	[ "$(git -C "$WT" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "$1")" ] ||
		git -C "$WT" checkout -q -f --detach "$1"
	mkdir -p "$out"
	if ! env -u ARCH -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS make -C "$WT/tools/perf" O="$out" \
		"${PERF_MAKE_FLAGS[@]}" -j"$(nproc_jobs)" >"$log" 2>&1; then
		echo "perf does not build: log ${log#"$TOP"/}"
		return 1
	fi
	for suite in "${!PERF_SERIES_SUITES[@]}"; do
		num=$("$out/perf" test list 2>&1 | sed -nE "s/^ *([0-9]+): $suite\$/\1/p")
		[ -n "$num" ] || continue
		results=$("$out/perf" test "$num" 2>&1 || true)
		bad=$(grep -E "^ *$num\.[0-9]+: " <<<"$results" | grep -v -e ': Running' -e ': Ok$' || true)
		if [ -n "$bad" ] || ! grep -E "^ *$num\.[0-9]+: .*: Ok$" <<<"$results" >/dev/null; then
			echo "perf test \"$suite\" does not pass: ${bad:-no case passed}"
			return 1
		fi
		ran+="${ran:+, }$suite"
	done
	echo "perf built${ran:+; perf test $ran: Ok}"
}

# The commit's kernel built in $OBJ: report it, after building and running
# the kselftest directories it changes.  A commit that changes tools/perf
# has perf built and its suites run too, on the host's arch.
commit_built() { # commit subject log
	local c=$1 subject=$2 base=${3%.log} dirs warns counts perf=""
	if [ "$ARCH" = "$(uname -m)" ] && ! git -C "$TREE" diff --quiet "$c^" "$c" -- tools/perf; then
		info "$ARCH: building perf and running its series suites"
		if ! perf=$(check_perf "$c" "$base"); then
			ktap_result fail "$ARCH: $subject" "$perf"
			return 0
		fi
		perf=" ($perf)"
	fi
	mapfile -t dirs < <(selftest_dirs_of "$c")
	if [ ${#dirs[@]} = 0 ]; then
		ktap_result ok "$ARCH: $subject$perf"
		return 0
	fi
	info "$ARCH: building and running the kselftests it changes: ${dirs[*]}"
	if ! install_kernel_modules "$base.modules.log" 2>"$base.err"; then
		ktap_result fail "$ARCH: $subject" "$(cat "$base.err")"
		return 0
	fi
	if ! KSFT_TARGETS="${dirs[*]}" "$TOP/scripts/build-selftests.sh" >"$base.err" 2>&1; then
		cp "$KSFT_DIR.log" "$base.kselftest.log" 2>/dev/null || true
		ktap_result fail "$ARCH: $subject" "its kselftests (${dirs[*]}) do not build: log ${base#"$TOP"/}.kselftest.log"
		tail -n 30 "$base.err" | show_paths | ktap_diag
		return 0
	fi
	cp "$KSFT_DIR.log" "$base.kselftest.log"
	warns=$(touched_warnings "$base.kselftest.log" "$c")
	if [ -n "$warns" ]; then
		ktap_result fail "$ARCH: $subject" "its kselftests warn in the files it touches: log ${base#"$TOP"/}.kselftest.log"
		cut -f2 <<<"$warns" | show_paths | sort -u | sed -n '1,40p' | ktap_diag
		return 0
	fi
	# run-vm.sh fails only when the guest cannot boot: the verdict says so.
	GUEST_RUN=kselftests KSFT_SELECT="${dirs[*]}" "$TOP/harness/run-vm.sh" tests >"$base.err" 2>&1 || true
	# Judged as make check judges them: every case of every program, each
	# held against the arch's expected results (config/expected/), a skip
	# the list does not name a failure.  Tests that later patches add are
	# not asked for here (-w ''), and a listed skip may give another reason
	# (-r: later patches reword some): a commit's own tests must be right.
	local summary verdict=$VM_DIR/verdict.ktap ksft=$VM_DIR/results/kselftest.ktap
	[ -s "$verdict" ] || ktap_one_failure "vm: boot" "no verdict: the guest did not run" >"$verdict"
	[ -f "$ksft" ] || ktap_one_failure "kselftests" "the guest left no kselftest.ktap" >"$ksft"
	local files=("$verdict" "$ksft")
	# The skip list's KTAP, when it names a test of these directories.
	! grep -q '^ok ' "$VM_DIR/skipped.ktap" || files+=("$VM_DIR/skipped.ktap")
	summary=$("$KTAP_SUMMARY" -r -l "$LABEL" -e "$EXPECTED_DIR/$LABEL.txt" -w "" "${files[@]}" 2>&1) || true
	counts=$(tail -n 1 <<<"$summary")
	if ! [[ $counts =~ ^[1-9][0-9]*\ passed,\ 0\ failed ]]; then
		ktap_result fail "$ARCH: $subject" "its kselftests (${dirs[*]}) do not pass on its kernel (${counts:-no results}): ${VM_DIR#"$TOP"/}/console.log"
		{
			grep '^not ok' <<<"$summary" || true
			tail -n 5 "$base.err"
		} | sed -n '1,25p' | ktap_diag
		return 0
	fi
	ktap_result ok "$ARCH: $subject (kselftests ${dirs[*]}: $counts)$perf"
}

# After "Inconsistent kallsyms data" (vmlinux's symbols are not those
# its last kallsyms pass saw), keep each pass's symbols, sizes, link map
# and tables and the final System.map beside LOG: the next commit's build
# replaces them.
keep_kallsyms_passes() { # log
	local f dir=${1%.log}.kallsyms
	grep -q '^Inconsistent kallsyms data' "$1" || return 0
	mkdir -p "$dir"
	for f in "$OBJ"/.tmp_vmlinux.kallsyms*.syms "$OBJ"/.tmp_vmlinux.kallsyms*.sizes \
		"$OBJ"/.tmp_vmlinux.kallsyms*.map "$OBJ"/.tmp_vmlinux.kallsyms*.S \
		"$OBJ"/System.map; do
		if [ -f "$f" ]; then cp "$f" "$dir/"; fi
	done
	printf 'the kallsyms passes and System.map kept in %s\n' "${dir#"$TOP"/}" | ktap_diag
}

check_commit() { # commit number
	local c=$1 n=$2 subject log plog warns added
	subject=$(subject_of "$c")
	log=$SC_DIR/$ARCH/logs/$(printf '%02d' "$n")-$(git -C "$TREE" log -1 --format=%f "$c").log
	info "$ARCH [$n/${#commits[@]}] ${c:0:12} $subject"
	checkout_at "$c"
	if ! build_into "$log"; then
		ktap_result fail "$ARCH: $subject" "does not build (W=1): log ${log#"$TOP"/}"
		keep_kallsyms_passes "$log"
		first_errors "$log" | ktap_diag
		return 0
	fi
	warns=$(touched_warnings "$log" "$c")
	if [ -z "$warns" ]; then
		commit_built "$c" "$subject" "$log"
		return 0
	fi
	# Warnings there: which ones did the parent already have?
	plog=${log%.log}.parent.log
	info "$ARCH [$n/${#commits[@]}] W=1 warnings in the files it touches: rebuilding its parent to compare"
	checkout_at "$c^" "$c"
	if ! build_into "$plog"; then
		ktap_result fail "$ARCH: $subject" "W=1 warnings in the files it touches, and its parent does not build to compare them: log ${log#"$TOP"/}"
		cut -f2 <<<"$warns" | show_paths | sort -u | sed -n '1,40p' | ktap_diag
		return 0
	fi
	added=$(comm -23 <(cut -f1 <<<"$warns" | sort -u) <(touched_warnings "$plog" "$c" | cut -f1 | sort -u))
	if [ -z "$added" ]; then
		# The objects are the parent's now: the commit's again, for its
		# kselftests' guest.
		if [ -n "$(selftest_dirs_of "$c")" ] && { checkout_at "$c"; ! build_into "$log.again"; }; then
			ktap_result fail "$ARCH: $subject" "built once, not twice: log ${log#"$TOP"/}.again"
			return 0
		fi
		commit_built "$c" "$subject" "$log"
		return 0
	fi
	ktap_result fail "$ARCH: $subject" "adds $(wc -l <<<"$added") W=1 warning(s) in the files it touches: log ${log#"$TOP"/}"
	# As the compiler printed them, with their line numbers.
	awk -F '\t' 'FNR == NR { added[$0] = 1; next } $1 in added { print $2 }' \
		<(printf '%s\n' "$added") <(printf '%s\n' "$warns") |
		show_paths | sort -u | sed -n '1,40p' | ktap_diag
}

# Everything set up for ARCH, or a reason it cannot be checked.
setup_arch() {
	local src=$ARCH_BUILD/obj/.config
	command -v "${ARCH_CROSS_COMPILE}gcc" >/dev/null 2>&1 ||
		{ echo "no ${ARCH_CROSS_COMPILE}gcc: run make deps"; return 0; }
	[ -f "$src" ] || { echo "no $ARCH kernel config in ${src#"$TOP"/}: run make kernel ARCH=$ARCH first"; return 0; }
	# Objects of before the series flavor (build/series-check/ARCH/obj):
	# moved, not rebuilt.
	if [ -d "$SC_DIR/$ARCH/obj" ] && [ ! -e "$OBJ" ]; then
		mv "$SC_DIR/$ARCH/obj" "$OBJ"
	fi
	mkdir -p "$OBJ" "$SC_DIR/$ARCH/logs"
	rm -f "$SC_DIR/$ARCH/logs/"*.log
	# The first commit's sources, then its config: a copy of make kernel's,
	# taken again only when that one changed (a new .config rebuilds more).
	checkout_at "${commits[0]}"
	if ! cmp -s "$src" "$OBJ/.config.source"; then
		info "$ARCH: configuring from ${src#"$TOP"/}"
		cp "$src" "$OBJ/.config.source"
		cp "$src" "$OBJ/.config"
		kmake -s CC="$kernel_cc" olddefconfig >"$SC_DIR/$ARCH/logs/olddefconfig.log" 2>&1 ||
			{ echo "make olddefconfig failed: see ${SC_DIR#"$TOP"/}/$ARCH/logs/olddefconfig.log"; return 0; }
	fi
}

ktap_plan $((${#arches[@]} * ${#commits[@]}))
for arch in "${arches[@]}"; do
	# What lib.sh derives from ARCH (it checks the arch) for this one, and
	# from the series flavor: OBJ, KERNEL_SRC (the worktree), VM_DIR.
	ARCH=$arch KERNEL_FLAVOR=series
	export ARCH KERNEL_FLAVOR
	# shellcheck source=lib.sh
	. "$TOP/scripts/lib.sh"
	[ "$KERNEL_SRC" = "$WT" ] || die "lib.sh's series KERNEL_SRC $KERNEL_SRC is not the worktree $WT"
	kernel_cc=$(kernel_cc)

	problem=$(setup_arch)
	n=0
	for c in "${commits[@]}"; do
		n=$((n + 1))
		if [ -n "$problem" ]; then
			ktap_result fail "$ARCH: $(subject_of "$c")" "$problem"
		else
			check_commit "$c" "$n"
		fi
	done
done

# The worktree back at the tree's HEAD: left at a commit in the middle, it
# would look like a tree that differs from the series.
git -C "$WT" checkout -q -f --detach "$(git -C "$TREE" rev-parse HEAD)"
info "done; build logs in ${SC_DIR#"$TOP"/}/<arch>/logs/."
info "A failed patch: fix it in build/linux (git commit --fixup=<its commit>; git rebase -i base),"
info "then run this again: it rebuilds only what changed.  --last N checks only the last N commits,"
info "--only N,M,... only those."
