#!/usr/bin/env bash
# Stub apt-get and apt-cache for tests/pin/run.sh, which copies this file
# into a temp dir under both names, first on PATH.  It never touches the
# network or the system: it answers from a fake mirror in $PIN_APT and
# appends each call, as "apt-get ARGS" or "apt-cache ARGS", to $PIN_APT/log.
#
#   $PIN_APT/lists      present once apt "has package lists"
#                       (`apt-get update` creates it)
#   $PIN_APT/pool/PKG_VERSION_all.deb   what the mirror offers
#
# Its answers and exit statuses are those of apt 2.6 (Debian bookworm).
set -euo pipefail
apt=${PIN_APT:?PIN_APT is unset: this stub runs only under tests/pin/run.sh}
me=${0##*/}
printf '%s %s\n' "$me" "$*" >>"$apt/log"

err() { # message [status]
	printf '%s\n' "$1" >&2
	exit "${2:-100}"
}

# The versions of package $1 in the lists, newest first, one a line.
versions() {
	local f v
	[ -e "$apt/lists" ] || return 0
	for f in "$apt/pool/$1"_*_all.deb; do
		[ -e "$f" ] || continue
		v=${f##*/}
		v=${v#"$1"_}
		echo "${v%_all.deb}"
	done | sort -rV
}

mirror='http://deb.debian.org/debian bookworm/main all Packages'

case $me:${1-} in
apt-cache:madison)
	for v in $(versions "${2:?}"); do
		printf '%s | %s | %s\n' "$2" "$v" "$mirror"
	done
	;;
apt-cache:policy)
	vs=$(versions "${2:?}")
	[ -n "$vs" ] || exit 0
	printf '%s:\n  Installed: (none)\n  Candidate: %s\n  Version table:\n' \
		"$2" "${vs%%$'\n'*}"
	for v in $vs; do
		printf '     %s 500\n        500 %s\n' "$v" "${mirror% Packages}"
	done
	;;
apt-cache:show)
	pkg=${2:?}
	pkg=${pkg%%=*}
	ver=${2#"$pkg"}
	ver=${ver#=}
	vs=$(versions "$pkg")
	[ -n "$vs" ] || err "E: No packages found"
	# apt 2.6 prints nothing and exits 0 for a version it does not have.
	for v in $vs; do
		[ -z "$ver" ] || [ "$v" = "$ver" ] || continue
		printf 'Package: %s\nVersion: %s\nArchitecture: all\n\n' "$pkg" "$v"
	done
	;;
apt-get:update)
	: >"$apt/lists"
	echo "Reading package lists..."
	;;
apt-get:download)
	shift
	want=()
	while [ $# -gt 0 ]; do
		case $1 in
		-o | -c | -t) shift 2 ;;
		-*) shift ;;
		*)
			want+=("$1")
			shift
			;;
		esac
	done
	[ ${#want[@]} -gt 0 ] || err "E: Must specify at least one package to fetch source for"
	for w in "${want[@]}"; do
		pkg=${w%%=*}
		ver=${w#"$pkg"}
		ver=${ver#=}
		vs=$(versions "$pkg")
		[ -n "$vs" ] || err "E: Unable to locate package $pkg"
		[ -n "$ver" ] || ver=${vs%%$'\n'*}
		grep -qxF -- "$ver" <<<"$vs" || err "E: Version '$ver' for '$pkg' was not found"
		deb=$apt/pool/${pkg}_${ver}_all.deb
		printf 'Get:1 %s %s all %s [%s B]\n' "${mirror% Packages}" "$pkg" "$ver" "$(stat -c %s "$deb")"
		cp "$deb" "./${pkg}_${ver//:/%3a}_all.deb"
	done
	;;
*)
	err "$me (the stub of tests/pin/run.sh) has no answer for: $me $*" 1
	;;
esac
