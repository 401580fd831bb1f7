#!/usr/bin/env bash
# `make lint`, and a stage of `make check`: KTAP on stdout, one test per
# checked item, and exit status 0 whatever failed (the summariser counts
# the failures).
#
# The tests, by name:
#   "checkpatch: BASE/PATCH"        checkpatch.pl --strict of the base's tree
#                                   on each patch of patches/BASE/series, for
#                                   each base: no error, warning or check but
#                                   those excused in config/checkpatch-exceptions
#   "checkpatch exception: ENTRY"   each entry of that file matched a report
#                                   (an entry that matches none is stale)
#   "shellcheck: FILE"              shellcheck -x on each shell script of the
#                                   repo, tracked or untracked-not-ignored
#   "subjects: the BASE series"     each patch's subject at most 75 characters
#   "subjects: this repository"     those of this repository's commits since
#                                   SUBJECTS_SINCE (older ones predate the rule)
#   "mainline: every 6.1 patch names its counterpart"
#                                   a "Mainline:" paragraph in each message
#   "pipes: no reader stops early"  no shell script pipes into grep -q or
#                                   head -n: under pipefail the writer's
#                                   SIGPIPE fails the pipeline at random
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=ktap.sh
. "$TOP/scripts/ktap.sh"

EXCEPTIONS=$TOP/config/checkpatch-exceptions
TMP_ERR=$(mktemp)
trap 'rm -f "$TMP_ERR"' EXIT

# --- what there is to check ------------------------------------------------

# Each base's series, and its tree (whose checkpatch.pl checks it).
declare -A base_patches=()
n_patches=0
for base in $(all_bases); do
	base_patches[$base]=$(SERIES=$TOP/patches/$base/series series_patches)
	n_patches=$((n_patches + $(printf '%s' "${base_patches[$base]}" | grep -c .)))
done

# The exceptions: one entry per non-comment line, as patch, TYPE, reason;
# a malformed line is kept (with an empty TYPE) to be reported as such.
exc_line=() exc_patch=() exc_type=() exc_reason=() exc_used=()
if [ -f "$EXCEPTIONS" ]; then
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in "" | \#*) continue ;; esac
		read -r e_patch e_type e_reason <<<"$line" || true
		[[ ${e_type:-} =~ ^[A-Z0-9_]+$ ]] && [ -n "${e_reason:-}" ] || e_type=""
		exc_line+=("$n") exc_patch+=("${e_patch:-}") exc_type+=("$e_type")
		exc_reason+=("${e_reason:-}") exc_used+=(0)
	done <"$EXCEPTIONS"
fi

# Shell scripts: *.sh, a "#!" naming sh or bash, and .ci/run, among the
# tracked files and the untracked ones git does not ignore.
is_shell_script() { # path relative to TOP
	local first
	case $1 in *.sh | .ci/run) return 0 ;; esac
	first=$(head -c 256 "$TOP/$1" | sed -n '1,1p' | tr -d '\0') || true
	[[ $first =~ ^#![[:space:]]*[^[:space:]]*/(env[[:space:]]+)?(ba)?sh([[:space:]]|$) ]]
}
scripts=()
while IFS= read -r -d '' f; do
	# Deleted or renamed in the work tree but not yet in the index.
	[ -f "$TOP/$f" ] || continue
	is_shell_script "$f" && scripts+=("$f")
done < <({
	git -C "$TOP" ls-files -z
	git -C "$TOP" ls-files -z --others --exclude-standard
} | sort -zu)

ktap_plan $((n_patches + ${#exc_line[@]} + $(all_bases | wc -l) + 3 + ${#scripts[@]}))

# --- checkpatch --------------------------------------------------------------

# The index of the first exception excusing a TYPE report in PATCH, or
# nothing.
exception_for() { # patch type
	local i
	for i in "${!exc_line[@]}"; do
		if [ "${exc_type[i]}" = "$2" ] && { [ "${exc_patch[i]}" = "*" ] || [ "${exc_patch[i]}" = "$1" ]; }; then
			echo "$i"
			return 0
		fi
	done
}

checkpatch_one() { # patch file name; PATCH_DIR, PATCH_REL and TREE of its base
	local p=$1 name="checkpatch: ${PATCH_REL#patches/}/$1" out err rc=0 line block="" type="" i blocks=0 total="" bad=()
	if [ ! -f "$PATCH_DIR/$p" ]; then
		ktap_result fail "$name" "$PATCH_REL/series names it but $PATCH_REL/$p does not exist: fix $PATCH_REL/series or run make refresh"
		return 0
	fi
	err=$TMP_ERR
	# Debian's python3 first: spdxcheck.py needs its python3-ply and
	# python3-git, which another python3 on PATH (pyenv's) lacks.
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --show-types \
		--color=never "$PATCH_DIR/$p" 2>"$err") || rc=$?

	# Reports are blocks "LEVEL:TYPE: message" + the offending lines, ended
	# by an empty line; then "total: E errors, W warnings, C checks, ...".
	flush() {
		[ -n "$type" ] || return 0
		blocks=$((blocks + 1))
		i=$(exception_for "$p" "$type")
		if [ -n "$i" ]; then
			exc_used[i]=1
		else
			bad+=("$block")
		fi
		block="" type=""
	}
	while IFS= read -r line; do
		if [[ $line =~ ^(ERROR|WARNING|CHECK):([A-Z0-9_]+): ]]; then
			flush
			type=${BASH_REMATCH[2]} block=$line
		elif [ -z "$line" ]; then
			flush
		elif [[ $line =~ ^total:\ ([0-9]+)\ errors,\ ([0-9]+)\ warnings,\ ([0-9]+)\ checks ]]; then
			flush
			total=$((BASH_REMATCH[1] + BASH_REMATCH[2] + BASH_REMATCH[3]))
		elif [ -n "$type" ]; then
			block+=$'\n'$line
		fi
	done <<<"$out"
	flush

	if [ -z "$total" ]; then
		ktap_result fail "$name" "checkpatch.pl printed no summary (exit $rc): see its output below"
		{ printf '%s\n' "$out"; cat "$err"; } | tail -n 30 | ktap_diag
	elif [ "$total" != "$blocks" ]; then
		ktap_result fail "$name" "checkpatch.pl counted $total reports but lint.sh parsed $blocks: fix the parser in scripts/lint.sh"
		printf '%s\n' "$out" | ktap_diag
	else
		# checkpatch carries on when a helper fails and skips that check
		# (spdxcheck.py without python3-ply passes every SPDX tag): a
		# message on stderr fails the patch too.
		local reason=""
		[ ${#bad[@]} -eq 0 ] ||
			reason="${#bad[@]} report(s) of checkpatch.pl --strict: fix the patch, or excuse the TYPE with a reason in config/checkpatch-exceptions"
		if grep -q "No module named" "$err"; then
			reason+="${reason:+; }checkpatch.pl could not check the SPDX tags: scripts/spdxcheck.py needs Debian's python3 with python3-ply and python3-git (make deps)"
		elif [ -s "$err" ]; then
			reason+="${reason:+; }checkpatch.pl wrote errors, some of its checks did not run: see below"
		fi
		if [ -z "$reason" ]; then
			ktap_result ok "$name"
		else
			ktap_result fail "$name" "$reason"
			[ ${#bad[@]} -eq 0 ] || printf '%s\n\n' "${bad[@]}" | ktap_diag
			# Once each: spdxcheck.py fails the same way for every tag.
			[ ! -s "$err" ] || awk '!seen[$0]++' "$err" | sed -n '1,20p' | ktap_diag
		fi
	fi
}

tree_ok=1
for base in $(all_bases); do
	TREE=$(base_build "$base")/linux PATCH_REL=patches/$base PATCH_DIR=$TOP/patches/$base
	mapfile -t patches < <(printf '%s' "${base_patches[$base]}" | grep . || true)
	if [ ! -f "$TREE/scripts/checkpatch.pl" ]; then
		tree_ok=0
		for p in "${patches[@]}"; do
			ktap_result fail "checkpatch: $base/$p" "no ${TREE#"$TOP"/}/scripts/checkpatch.pl: run make tree KERNEL_BASE=$base"
		done
	else
		for p in "${patches[@]}"; do
			checkpatch_one "$p"
		done
	fi
done
for i in "${!exc_line[@]}"; do
	name="checkpatch exception: ${exc_patch[i]} ${exc_type[i]:-?}"
	where="config/checkpatch-exceptions:${exc_line[i]}"
	if [ -z "${exc_type[i]}" ]; then
		ktap_result fail "$name" "$where: not '<patch or *> <TYPE> <reason>' (TYPE in capitals, a reason given)"
	elif [ "$tree_ok" = 0 ]; then
		ktap_result skip "$name" "checkpatch.pl did not run (no kernel tree: run make tree)"
	elif [ "${exc_used[i]}" = 1 ]; then
		ktap_result ok "$name"
	else
		ktap_result fail "$name" "$where: stale, no checkpatch report of the series matches it: delete the line"
	fi
done

# --- commit subjects -----------------------------------------------------------

# At most this long, as `git log --oneline` and a mailing list show them.
SUBJECT_MAX=75
SUBJECTS_SINCE=89609c54aa9d53c443007b37e0f9bfa6e481d100

# The subject of a patch file, unfolded, without "[PATCH] ".
patch_subject() { # file
	awk '/^Subject: / { s = $0; sub(/^Subject: (\[[^]]*\] )?/, "", s)
		while ((getline line) > 0 && line ~ /^[ \t]/) s = s line
		print s; exit }' "$1"
}
for base in $(all_bases); do
	long=()
	while IFS= read -r p; do
		[ -f "$TOP/patches/$base/$p" ] || continue
		subject=$(patch_subject "$TOP/patches/$base/$p")
		[ "${#subject}" -le "$SUBJECT_MAX" ] || long+=("${#subject}: $p")
	done < <(printf '%s' "${base_patches[$base]}" | grep . || true)
	if [ "${#long[@]}" = 0 ]; then
		ktap_result ok "subjects: the $base series"
	else
		ktap_result fail "subjects: the $base series" "${#long[@]} subject(s) over $SUBJECT_MAX characters: shorten them in the tree (make tree KERNEL_BASE=$base) and make refresh"
		printf '%s\n' "${long[@]}" | ktap_diag
	fi
done
# A shallow clone may lack SUBJECTS_SINCE: then HEAD's own subject.
if git -C "$TOP" cat-file -e "$SUBJECTS_SINCE^{commit}" 2>/dev/null; then
	range=("$SUBJECTS_SINCE..HEAD")
else
	range=(-1 HEAD)
fi
long=()
while IFS= read -r line; do
	subject=${line#* }
	[ "${#subject}" -le "$SUBJECT_MAX" ] || long+=("${#subject}: ${line%% *}")
done < <(git -C "$TOP" log --format='%h %s' "${range[@]}")
if [ "${#long[@]}" = 0 ]; then
	ktap_result ok "subjects: this repository"
else
	ktap_result fail "subjects: this repository" "${#long[@]} commit subject(s) over $SUBJECT_MAX characters: reword them before they land"
	printf '%s\n' "${long[@]}" | ktap_diag
fi

# --- the backport names its mainline counterpart ----------------------------

# Each 6.1 patch says in its message what it is on mainline (the 7.2
# series): a "Mainline:" paragraph naming the counterpart and what differs,
# or why there is none (docs/mainline.md maps them).
silent=()
while IFS= read -r p; do
	[ -f "$TOP/patches/6.1/$p" ] || continue
	sed -n '/^---$/q; p' "$TOP/patches/6.1/$p" | grep '^Mainline: ' >/dev/null || silent+=("$p")
done < <(printf '%s' "${base_patches[6.1]}" | grep . || true)
if [ "${#silent[@]}" = 0 ]; then
	ktap_result ok "mainline: every 6.1 patch names its counterpart"
else
	ktap_result fail "mainline: every 6.1 patch names its counterpart" "${#silent[@]} patch(es) without a 'Mainline:' paragraph: say what each is on 7.2, or why 6.1 alone needs it"
	printf '%s\n' "${silent[@]}" | ktap_diag
fi

# --- pipes -----------------------------------------------------------------

# A reader that exits at its first match leaves the writer to die of
# SIGPIPE; pipefail then turns a match into a failure, depending on timing
# (CI's run of 2026-11-28 failed so).  grep >/dev/null and sed -n reads it all.
early=()
for f in "${scripts[@]}"; do
	while IFS= read -r hit; do
		early+=("$f:$hit")
	done < <(grep -nE '\|[[:space:]]*(grep[[:space:]]+-[a-zA-Z]*q|head[[:space:]]+-n)' "$TOP/$f" || true)
done
if [ "${#early[@]}" = 0 ]; then
	ktap_result ok "pipes: no reader stops early"
else
	ktap_result fail "pipes: no reader stops early" "${#early[@]} pipe(s) into grep -q or head -n: use grep >/dev/null or sed -n"
	printf '%s\n' "${early[@]}" | ktap_diag
fi

# --- shellcheck --------------------------------------------------------------

if ! command -v shellcheck >/dev/null 2>&1; then
	for f in "${scripts[@]}"; do
		ktap_result fail "shellcheck: $f" "shellcheck is not installed: run make deps (scripts/deps.sh installs it)"
	done
	exit 0
fi
for f in "${scripts[@]}"; do
	# From the top, where .shellcheckrc is, with its default severity.
	if out=$(cd "$TOP" && shellcheck -x "$f" 2>&1); then
		ktap_result ok "shellcheck: $f"
	else
		ktap_result fail "shellcheck: $f" "shellcheck -x $f: fix what it reports"
		printf '%s\n' "$out" | ktap_diag
	fi
done
exit 0
