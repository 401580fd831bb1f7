#!/usr/bin/env bash
# Build the kernel tree: a git repo of the pinned base (commit tagged
# `base`, identical on every machine) with the series applied by `git am`.
#
#   make-tree.sh           create the tree if missing; refuse to touch one
#                          that differs from the series
#   make-tree.sh --lenient as above, but only warn about a differing tree
#                          (the edit loop: `make check` tests the tree as is)
#   make-tree.sh --force   discard the tree's commits and edits, re-apply
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -le 1 ] || die "usage: make-tree.sh [--lenient|--force]"
case ${1:-} in
"") mode=strict ;;
--lenient) mode=lenient ;;
--force) mode=force ;;
*) die "make-tree.sh: unknown option $1 (usage: make-tree.sh [--lenient|--force])" ;;
esac

create_base_repo() {
	local src
	src=$("$TOP/scripts/fetch-base.sh")
	info "creating $TREE from $src"
	rm -rf "$TREE.tmp"
	mkdir -p "$BASE_BUILD"
	cp -a "$src" "$TREE.tmp"
	rm -f "$TREE.tmp/.unpacked"
	(
		cd "$TREE.tmp"
		git init -q -b master
		configure_repo
		# Debian's .gitignore ignores the whole top level: force.
		git add -A -f
		GIT_AUTHOR_DATE=$BASE_COMMIT_DATE GIT_COMMITTER_DATE=$BASE_COMMIT_DATE \
			git commit -q --no-verify \
			-m "Linux $BASE_VERSION: Debian $BASE_PACKAGE $BASE_VERSION" \
			-m "Unpacked from the package with sha256 $BASE_SHA256."
		git tag base
	)
	mv "$TREE.tmp" "$TREE"
}

# Identity from config/identity.conf, applied to every commit made here.
configure_repo() {
	git config user.name "$PATCH_AUTHOR_NAME"
	git config user.email "$PATCH_AUTHOR_EMAIL"
	git config format.signOff true
	git config rebase.autosquash true
	git config am.threeWay true
	git config gc.auto 0
}

apply_series() {
	local p n=0
	[ -n "$(series_patches)" ] || die "$PATCH_REL/series lists no patch: there is nothing to apply"
	git -C "$TREE" checkout -q --detach base
	git -C "$TREE" branch -f -q series base
	git -C "$TREE" checkout -q series
	while read -r p; do
		[ -f "$PATCH_DIR/$p" ] ||
			die "$PATCH_REL/series names $p, but $PATCH_REL/$p does not exist"
		if ! git -C "$TREE" am -q --3way --keep-cr "$PATCH_DIR/$p" >"$BUILD_DIR/am.log" 2>&1; then
			local paths
			paths=$(git -C "$TREE" diff --name-only --diff-filter=U)
			[ -n "$paths" ] || paths=$(sed -n 's/^error: patch failed: //p; s/^error: \(.*\): does not exist in index/\1/p' "$BUILD_DIR/am.log")
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			printf 'error: /%s does not apply on top of the %d patch(es) before it.\n' "$p" "$n" >&2
			printf 'Conflicting paths:\n%s\n' "$(printf '%s\n' "$paths" | sed 's/^/  /')" >&2
			printf 'Full git am output: %s\n' "$BUILD_DIR/am.log" >&2
			printf 'The tree is left at the last patch that applied; fix the patch there\n(git am %s, resolve, git am --continue) and run make refresh.\n' "$PATCH_DIR/$p" >&2
			exit 1
		fi
		n=$((n + 1))
	done < <(series_patches)
	info "applied $n patch(es) from $PATCH_REL/series"
}

if ! tree_exists; then
	[ ! -e "$TREE" ] || die "$TREE exists but is not a tree made by make tree (no 'base' tag): move it away"
	create_base_repo
	apply_series
	exit 0
fi

# As variables first: a failure inside $(...) must stop the script.
have_ids=$(tree_patch_ids)
want_ids=$(series_patch_ids)
if [ "$have_ids" = "$want_ids" ] && ! tree_is_dirty; then
	info "$TREE is up to date with $PATCH_REL/series"
	exit 0
fi

case $mode in
force)
	info "discarding the tree's commits and edits; re-applying $PATCH_REL/series"
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" reset -q --hard
	apply_series
	;;
lenient)
	warn "$TREE differs from $PATCH_REL/series (work not yet exported?): using it as it is."
	warn "Export with 'make refresh', or rebuild from the series with 'make tree FORCE=1'."
	;;
strict)
	die "$TREE differs from $PATCH_REL/series (commits or edits not exported, or a series newer than the tree).
Keep the tree's work: commit it and run 'make refresh'.
Take the series: 'make tree FORCE=1' (discards the tree's commits and edits)."
	;;
esac
