#!/usr/bin/env bash
# `make mainline-series`: the mainline series as it would be posted, one
# `git format-patch --cover-letter` series per maintainer tree, into
# build/7.2/outgoing/NAME/.
#
# In patches/7.2/series a line "# post: NAME" starts the group of patches
# posted together; patches/7.2/covers/NAME is its cover letter (the
# subject on the first line, a blank line, then the body).  Each series
# goes To the maintainers and Cc the reviewers and lists that 7.2's own
# scripts/get_maintainer.pl names for its patches.  The tree must hold
# the series as exported (make refresh).
set -euo pipefail
export KERNEL_BASE=7.2
. "$(dirname "$0")/lib.sh"

tree_exists || die "no tree at $TREE: run make tree KERNEL_BASE=7.2"
if [ "$(tree_patch_ids)" != "$(series_patch_ids)" ] || tree_is_dirty; then
	die "$TREE differs from $PATCH_REL/series: make refresh first"
fi
covers=$PATCH_DIR/covers
out_dir=$BASE_BUILD/outgoing
rm -rf "$out_dir"

# The group of each patch, in series order: "NAME PATCH" lines.
groups=$(awk -v series="$SERIES" '
	/^# post: / { group = $3; next }
	/^#/ || /^[[:space:]]*$/ { next }
	{ if (group == "") { printf "%s: %s is in no \"# post:\" group\n", series, $1 > "/dev/stderr"; exit 1 }
	  print group, $1 }' "$SERIES") || die "every patch of $PATCH_REL/series needs a group"
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)

# Addresses of get_maintainer.pl for the patch files given: "to ADDR" for
# maintainers, "cc ADDR" for the rest (reviewers, lists).
addresses() {
	(cd "$TREE" && ./scripts/get_maintainer.pl --rolestats --no-git --no-git-fallback \
		--no-substatus "$@") |
		awk '{ role = ($0 ~ /\(maintainer:/) ? "to" : "cc"; sub(/ \(.*$/, ""); print role, $0 }'
}

n=0
while read -r name; do
	cover=$covers/$name
	[ -f "$cover" ] || die "no cover letter $PATCH_REL/covers/$name for the group \"$name\""
	mapfile -t files < <(awk -v g="$name" '$1 == g { print $2 }' <<<"$groups")
	first=$(awk -v g="$name" '$1 == g { print NR; exit }' <<<"$groups")
	count=${#files[@]}
	last=$(awk -v g="$name" '$1 == g { n = NR } END { print n }' <<<"$groups")
	[ $((last - first + 1)) = "$count" ] ||
		die "the group \"$name\" is not one run of $PATCH_REL/series: move its patches together"
	paths=()
	for f in "${files[@]}"; do
		paths+=("$PATCH_DIR/$f")
	done
	to=() cc=()
	while read -r role addr; do
		if [ "$role" = to ]; then to+=(--to="$addr"); else cc+=(--cc="$addr"); fi
	done < <(addresses "${paths[@]}" | awk '!seen[$2 FS $3 FS $4 FS $5]++')
	# A maintainer of one patch is not also Cc'd for another.
	mapfile -t cc < <(for c in "${cc[@]}"; do
		[[ " ${to[*]#--to=} " == *" ${c#--cc=} "* ]] || printf '%s\n' "$c"
	done)
	dir=$out_dir/$name
	git -C "$TREE" format-patch -q --cover-letter --thread --no-signature \
		-o "$dir" "${to[@]}" "${cc[@]}" \
		"${commits[first - 1 + count - 1]}~$count..${commits[first - 1 + count - 1]}"
	# The cover letter's subject and blurb from the file.
	subject=$(sed -n 1p "$cover")
	body=$(sed -n '3,$p' "$cover")
	SUBJECT=$subject BODY=$body perl -0pi -e \
		's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/' \
		"$dir/0000-cover-letter.patch"
	info "$name: $count patch(es) and a cover letter in ${dir#"$TOP"/} (To ${#to[@]}, Cc ${#cc[@]})"
	n=$((n + 1))
done < <(awk '!seen[$1]++ { print $1 }' <<<"$groups")
info "$n series in ${out_dir#"$TOP"/}"
