# shellcheck shell=bash
# KTAP output for the scripts that report tests: source it, then
#   ktap_plan N                      the header and the plan of N tests
#   ktap_skip_all REASON             the header and an empty plan, skipped
#   ktap_result ok NAME              a passed test
#   ktap_result fail NAME [REASON]   a failed test
#   ktap_result skip NAME REASON     a skipped test
#   ktap_missing NAME REASON         a test that cannot run for something
#                                    missing: skipped, or failed where
#                                    KSFT_REQUIRE_FEATURES=1 (our guests)
#   ktap_diag TEXT...                diagnostic lines ("# TEXT") from stdin
#                                    when no TEXT is given
#   ktap_one_failure NAME REASON [DIAG]
#                                    a whole report of one failed test, for
#                                    a stage that left no KTAP of its own
#                                    (DIAG: diagnostic lines before it)
# Tests are numbered in the order they are reported.  It sets no shell
# options of its own, and runs in bash and in the guest's /bin/sh (its init
# sources it): POSIX sh plus `local`, which dash has too.

KTAP_NUMBER=0

ktap_plan() {
	printf 'TAP version 13\n1..%d\n' "$1"
}

ktap_skip_all() {
	printf 'TAP version 13\n1..0 # SKIP %s\n' "$1"
}

ktap_result() { # ok|fail|skip NAME [REASON]
	local verdict=$1 name=$2 reason=${3:-}
	KTAP_NUMBER=$((KTAP_NUMBER + 1))
	case $verdict in
	ok) printf 'ok %d %s\n' "$KTAP_NUMBER" "$name" ;;
	skip) printf 'ok %d %s # SKIP %s\n' "$KTAP_NUMBER" "$name" "$reason" ;;
	fail) printf 'not ok %d %s%s\n' "$KTAP_NUMBER" "$name" "${reason:+ # $reason}" ;;
	*)
		printf 'ktap_result: unknown verdict %s\n' "$verdict" >&2
		return 1
		;;
	esac
}

# As the kselftests' SKIP_MISSING() does (kselftest_harness.h).
ktap_missing() { # NAME REASON
	if [ "${KSFT_REQUIRE_FEATURES:-}" = 1 ]; then
		ktap_result fail "$1" "KSFT_REQUIRE_FEATURES=1, but: $2"
	else
		ktap_result skip "$1" "$2"
	fi
}

# shellcheck disable=SC2120 # no arguments: the lines come from stdin
ktap_diag() {
	if [ $# -gt 0 ]; then
		printf '# %s\n' "$*"
	else
		sed 's/^/# /'
	fi
}

ktap_one_failure() { # NAME REASON [DIAG]
	KTAP_NUMBER=0
	ktap_plan 1
	if [ -n "${3:-}" ]; then printf '%s\n' "$3" | ktap_diag; fi
	ktap_result fail "$1" "$2"
}
