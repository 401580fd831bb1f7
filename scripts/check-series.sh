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
# and build it with W=1 into build/series-check/ARCH/obj, configured like
# `make kernel` (a copy of build/ARCH/obj/.config).  One commit builds on
# the objects of the one before: only what a patch changes is recompiled.
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

SC_DIR=$BUILD_DIR/series-check
WT=$SC_DIR/linux                # worktree of $TREE: the commit being built

tree_exists || die "no kernel tree in $TREE: run make tree"
tree_is_dirty && warn "$TREE has uncommitted edits: only its commits are checked"
[ "$(tree_patch_ids)" = "$(series_patch_ids)" ] ||
	warn "$TREE differs from patches/series: checking the tree's commits (make refresh exports them)"

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

# Build what the worktree holds into $SC_OBJ, with W=1; the log to LOG.
build_into() { # log
	local TREE=$WT KERNEL_SRC=$WT OBJ=$SC_OBJ
	# kmake builds KERNEL_SRC, which lib.sh set to the tree: the worktree here.
	# Each commit configured from make kernel's config: a symbol the series
	# adds, unknown to the commits before it, is then set as make kernel's
	# says once it exists (rather than dropped for good by the first
	# olddefconfig).  Unchanged values rebuild nothing.
	cp "$SC_OBJ/.config.source" "$SC_OBJ/.config"
	kmake -s CC="$kernel_cc" olddefconfig >"$1" 2>&1 &&
		kmake CC="$kernel_cc" W=1 -j"$(nproc_jobs)" all >>"$1" 2>&1
}

# The W=1 warnings of a build log located in the files a commit changes,
# one per line as "KEY<TAB>LINE": LINE as printed, KEY "path: warning: text"
# with the path relative to the source tree (an objtool warning on a .o
# counts for its .c) and no line or column number, so that a patch that
# only moves code does not make its warnings new.
touched_warnings() { # log commit
	local rel
	rel=$(realpath -m --relative-to="$SC_OBJ" "$WT")
	git -C "$TREE" diff --name-only "$2^" "$2" |
		awk -v wt="$WT/" -v rel="$rel/" '
		FNR == NR { touched[$0] = 1; next }
		match($0, /^[^ :]+(:[0-9]+)?(:[0-9]+)?: warning: /) {
			line = $0
			path = line; sub(/:.*/, "", path)
			text = line; sub(/^[^ :]+(:[0-9]+)?(:[0-9]+)?: warning: /, "", text)
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
	rel=$(realpath -m --relative-to="$SC_OBJ" "$WT")
	sed -e "s|$WT/||g" -e "s|$rel/||g"
}

first_errors() { # log
	grep -E -A3 ': (fatal )?error:|undefined reference to|\] Error [0-9]+' "$1" |
		show_paths | head -n 30 || true
}

check_commit() { # commit number
	local c=$1 n=$2 subject log plog warns added
	subject=$(subject_of "$c")
	log=$SC_DIR/$ARCH/logs/$(printf '%02d' "$n")-$(git -C "$TREE" log -1 --format=%f "$c").log
	info "$ARCH [$n/${#commits[@]}] ${c:0:12} $subject"
	checkout_at "$c"
	if ! build_into "$log"; then
		ktap_result fail "$ARCH: $subject" "does not build (W=1): log ${log#"$TOP"/}"
		first_errors "$log" | ktap_diag
		return 0
	fi
	warns=$(touched_warnings "$log" "$c")
	if [ -z "$warns" ]; then
		ktap_result ok "$ARCH: $subject"
		return 0
	fi
	# Warnings there: which ones did the parent already have?
	plog=${log%.log}.parent.log
	info "$ARCH [$n/${#commits[@]}] W=1 warnings in the files it touches: rebuilding its parent to compare"
	checkout_at "$c^" "$c"
	if ! build_into "$plog"; then
		ktap_result fail "$ARCH: $subject" "W=1 warnings in the files it touches, and its parent does not build to compare them: log ${log#"$TOP"/}"
		cut -f2 <<<"$warns" | show_paths | sort -u | head -n 40 | ktap_diag
		return 0
	fi
	added=$(comm -23 <(cut -f1 <<<"$warns" | sort -u) <(touched_warnings "$plog" "$c" | cut -f1 | sort -u))
	if [ -z "$added" ]; then
		ktap_result ok "$ARCH: $subject"
		return 0
	fi
	ktap_result fail "$ARCH: $subject" "adds $(wc -l <<<"$added") W=1 warning(s) in the files it touches: log ${log#"$TOP"/}"
	# As the compiler printed them, with their line numbers.
	awk -F '\t' 'FNR == NR { added[$0] = 1; next } $1 in added { print $2 }' \
		<(printf '%s\n' "$added") <(printf '%s\n' "$warns") |
		show_paths | sort -u | head -n 40 | ktap_diag
}

# Everything set up for ARCH, or a reason it cannot be checked.
setup_arch() {
	local src=$ARCH_BUILD/obj/.config
	command -v "${ARCH_CROSS_COMPILE}gcc" >/dev/null 2>&1 ||
		{ echo "no ${ARCH_CROSS_COMPILE}gcc: run make deps"; return 0; }
	[ -f "$src" ] || { echo "no $ARCH kernel config in ${src#"$TOP"/}: run make kernel ARCH=$ARCH first"; return 0; }
	mkdir -p "$SC_OBJ" "$SC_DIR/$ARCH/logs"
	rm -f "$SC_DIR/$ARCH/logs/"*.log
	# The first commit's sources, then its config: a copy of make kernel's,
	# taken again only when that one changed (a new .config rebuilds more).
	checkout_at "${commits[0]}"
	if ! cmp -s "$src" "$SC_OBJ/.config.source"; then
		info "$ARCH: configuring from ${src#"$TOP"/}"
		cp "$src" "$SC_OBJ/.config.source"
		cp "$src" "$SC_OBJ/.config"
		local TREE=$WT KERNEL_SRC=$WT OBJ=$SC_OBJ
		kmake -s CC="$kernel_cc" olddefconfig >"$SC_DIR/$ARCH/logs/olddefconfig.log" 2>&1 ||
			{ echo "make olddefconfig failed: see ${SC_DIR#"$TOP"/}/$ARCH/logs/olddefconfig.log"; return 0; }
	fi
}

ktap_plan $((${#arches[@]} * ${#commits[@]}))
for arch in "${arches[@]}"; do
	# What lib.sh derives from ARCH (it checks the arch), for this one.
	ARCH=$arch
	# shellcheck source=lib.sh
	. "$TOP/scripts/lib.sh"
	SC_OBJ=$SC_DIR/$ARCH/obj
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
