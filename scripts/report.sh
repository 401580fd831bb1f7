#!/usr/bin/env bash
# Run a command that prints KTAP into a file below build/, then print the
# summary of that file ("N passed, N failed, N skipped"; exit status 1 if
# a test failed): `make lint` and `make check-series`.
#   report.sh FILE COMMAND [ARG...]   FILE relative to build/
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: report.sh FILE COMMAND [ARG...]"
file=$BUILD_DIR/$1
shift
build_ktap_summary || die "cannot build harness/ktap-summary.c"
mkdir -p "$(dirname "$file")"
"$@" >"$file"
exec "$KTAP_SUMMARY" "$file"
