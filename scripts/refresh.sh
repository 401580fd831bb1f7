#!/usr/bin/env bash
# Export base..HEAD of the kernel tree back into patches/ and rewrite
# patches/series, then prove the round trip: the exported series applied
# on the base gives exactly the tree's HEAD.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree_exists || die "no kernel tree at $TREE: run 'make tree' first"
git_t() { git -C "$TREE" "$@"; }

for state in rebase-merge rebase-apply; do
	[ ! -e "$(git_t rev-parse --git-path "$state")" ] ||
		die "a rebase or git am is in progress in $TREE: finish or abort it first"
done
if tree_is_dirty; then
	git_t status --short --untracked-files=no >&2
	die "$TREE has uncommitted changes: commit them (git commit --fixup=<patch>, then git rebase -i --autosquash base) before make refresh"
fi

# Every patch must carry the project identity (config/identity.conf).
want="$PATCH_AUTHOR_NAME <$PATCH_AUTHOR_EMAIL>"
bad=0
while read -r commit; do
	subject=$(git_t log -1 --format=%s "$commit")
	author=$(git_t log -1 --format='%an <%ae>' "$commit")
	if [ "$author" != "$want" ]; then
		printf 'error: "%s" is authored by %s, not %s\n' "$subject" "$author" "$want" >&2
		bad=1
	fi
	if ! git_t log -1 --format=%B "$commit" | grep -xF "Signed-off-by: $want" >/dev/null; then
		printf 'error: "%s" lacks "Signed-off-by: %s"\n' "$subject" "$want" >&2
		bad=1
	fi
	case $subject in
	fixup!* | squash!* | amend!*)
		printf 'error: "%s" is an unsquashed fixup: git rebase -i --autosquash base\n' "$subject" >&2
		bad=1
		;;
	esac
done < <(git_t rev-list --reverse base..HEAD)
[ "$bad" = 0 ] || die "fix the commits above (git rebase -i base; git commit --amend --reset-author -s), then run make refresh again"

out=$(mktemp -d "$BUILD_DIR/refresh.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Stable files: no commit hashes, no version footer, no [n/m] numbering;
# whole subjects in the file names (git's default cuts them at 64
# characters, the NNNN- prefix included), up to a bound that keeps them
# short enough for any file system.
PATCH_NAME_MAX=120
git_t format-patch -q --zero-commit --no-signature --no-numbered \
	--abbrev=12 --filename-max-length=$PATCH_NAME_MAX -o "$out/raw" base..HEAD
# Drop the NNNN- file name prefix: the series file holds the order, so
# inserting a patch does not rename every patch after it.
new=()
if [ -d "$out/raw" ]; then
	for f in "$out"/raw/*.patch; do
		name=$(basename "$f" | sed 's/^[0-9]\{4\}-//')
		[ ! -e "$out/$name" ] ||
			die "two patches would both be named $name: give one of them a different subject"
		mv "$f" "$out/$name"
		new+=("$name")
	done
fi

# Rewrite the series.  The file's opening comment, up to its first blank
# line, stays on top; each later comment block stays in front of the patch
# it preceded: the file of the same name, else (a renamed patch) the one
# with the same patch id; the block of a dropped patch moves to the next
# one kept.
declare -A keep=() header=() by_id=() renamed=()
for p in "${new[@]}"; do
	keep[$p]=1
	by_id[$(patch_ids <"$out/$p")]=$p
done
while read -r p; do
	if [ -z "${keep[$p]:-}" ] && [ -f "$PATCH_DIR/$p" ]; then
		id=$(patch_ids <"$PATCH_DIR/$p")
		[ -z "${by_id[$id]:-}" ] || renamed[$p]=${by_id[$id]}
	fi
done < <(series_patches)
intro="" pending=""
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	\#*) intro+="$line"$'\n' ;;
	"") intro+=$'\n'; break ;;
	*) intro=""; break ;;	# no blank line: the block belongs to the patch
	esac
done <"$SERIES"
while IFS= read -r line || [ -n "$line" ]; do
	entry=$(printf '%s' "$line" | sed -e 's/#.*//' -e 's/[[:space:]]*$//')
	[ -z "$entry" ] || [ -n "${keep[$entry]:-}" ] || entry=${renamed[$entry]:-$entry}
	if [ -z "$entry" ]; then
		pending+="$line"$'\n'
	elif [ -n "${keep[$entry]:-}" ]; then
		header[$entry]=$pending
		pending=""
	fi
done < <(tail -n +"$(printf '%s' "$intro" | wc -l | awk '{print $1 + 1}')" "$SERIES")
{
	printf '%s' "$intro"
	for p in "${new[@]}"; do
		printf '%s' "${header[$p]:-}"
		printf '%s\n' "$p"
	done
	printf '%s' "$pending"
} >"$out/series"

# Round trip, in a scratch index so the tree's files are not touched.
export GIT_INDEX_FILE="$out/index"
git_t read-tree base
for p in "${new[@]}"; do
	git_t apply --cached "$out/$p" ||
		die "round trip failed: $p does not apply to the base plus the patches before it"
done
got=$(git_t write-tree)
unset GIT_INDEX_FILE
[ "$got" = "$(git_t rev-parse 'HEAD^{tree}')" ] ||
	die "round trip failed: the exported series gives tree $got, not HEAD's tree"

# Replace the patch files of the old series with the new ones.
while read -r old; do rm -f "$PATCH_DIR/$old"; done < <(series_patches)
for p in "${new[@]}"; do cp "$out/$p" "$PATCH_DIR/$p"; done
cp "$out/series" "$SERIES"
info "exported ${#new[@]} patch(es) to $PATCH_REL/; round trip verified"
git -C "$TOP" status --short -- patches >&2
