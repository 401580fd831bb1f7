#!/usr/bin/env bash
# `make manifest`: write the expected-results lists config/expected/LABEL.txt
# from the KTAP the last `make check` left in build/results/: one list
# for each base and arch it ran (LABEL: the arch for 6.1, BASE-ARCH for
# the others), and the host's when it ran every arch.  A list is
# written only from results without a failure (what the list says aside):
# the list records a green run, for a person to read, diff and commit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_ktap_summary || die "cannot build harness/ktap-summary.c"
[ -d "$RESULTS_DIR/host" ] || die "no results in $RESULTS_DIR: run 'make check' first"
mapfile -t arches < <(all_arches)
labels=()
for arch in "${arches[@]}"; do
	[ -d "$RESULTS_DIR/$arch" ] && labels+=("$arch")
done
n_61=${#labels[@]}
# The other bases' labels, BASE-ARCH (scripts/check.sh).
for base in $(all_bases); do
	[ "$base" != 6.1 ] || continue
	for arch in "${arches[@]}"; do
		[ -d "$RESULTS_DIR/$base-$arch" ] && labels+=("$base-$arch")
	done
done
if [ "$n_61" = ${#arches[@]} ]; then
	labels+=(host)
else
	warn "$EXPECTED_DIR/host.txt left as it is: the last make check ran ${labels[*]:-no arch}, not every arch (its host suites check each arch it ran)"
fi
mkdir -p "$EXPECTED_DIR"
for label in "${labels[@]}"; do
	list=$EXPECTED_DIR/$label.txt
	if ! summary=$("$KTAP_SUMMARY" -m "$RESULTS_DIR/$label"/*.ktap); then
		printf '%s\n' "$summary" | grep '^not ok' | sed -n '1,20p' >&2 || true
		die "the last make check's $label results have failures (above): a list is written from a green run only"
	fi
	dups=$(printf '%s\n' "$summary" | sed 's/  # .*//' | cut -d' ' -f2- | sort | uniq -d)
	[ -z "$dups" ] ||
		die "$label: tests that report the same name (a list names each test once; rename one):"$'\n'"$dups"
	{
		cat <<EOF2
# The expected results of \`make check\` on $label: every test it must
# report, "pass NAME" or "skip NAME  # REASON", in the order they ran
# (NAME without the trailing " (...)" a test may fill with figures).
# harness/ktap-summary fails a run on any difference.  Written by
# \`make manifest\` from a green run; read the diff before committing it.
EOF2
		printf '%s\n' "$summary"
	} >"$list.tmp"
	mv "$list.tmp" "$list"
	info "$list: $(grep -c '^pass ' "$list") pass, $(grep -c '^skip ' "$list") skip"
done
