#!/usr/bin/env bash
# PostgreSQL 15 + pgvector for the test suites (Debian 12; used by .ci/run).
#
# Developer use (as root, or as a user with sudo):
#   eval "$(bash .ci/postgres.sh start)"  # install what is missing, start a server and set
#                                         # TEST_DATABASE_URL in this shell
#   bash .ci/postgres.sh stop             # stop that server and delete its data
#   bash .ci/postgres.sh install          # only install PostgreSQL 15 + pgvector
#
# `start` prints exactly one line on stdout:
#   export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:<port>/postgres
# (progress goes to stderr). The server is throwaway: data in $PGCI_DIR (default
# /tmp/memory-service-test-pg), 127.0.0.1 only, trust auth, a free port that is never 5432 or
# 55432, and fsync/synchronous_commit/full_page_writes off. Running `start` again while it is
# up just prints the line again.
#
# FORCE_PGVECTOR_BUILD=1 rebuilds and reinstalls pgvector even when it is already installed.
set -euo pipefail

PG_MAJOR=15
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PGBIN/pg_config
VECTOR_CONTROL=/usr/share/postgresql/$PG_MAJOR/extension/vector.control
PGCI_DIR=${PGCI_DIR:-/tmp/memory-service-test-pg}
MARKER=.ci-postgres # a data dir without it is never stopped or deleted by this script

log() { printf '[postgres.sh] %s\n' "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}

# Run a command with its output hidden; show the output if it fails.
quiet() {
	local out rc=0
	out=$(mktemp)
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$out" >&2
		rm -f "$out"
		die "command failed (exit $rc): $*"
	fi
	rm -f "$out"
}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root (or sudo) for: $*"
	fi
}

# PostgreSQL refuses to run as root: as root, run the server tools as the postgres OS user.
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

APT=(apt-get -q -o DPkg::Lock::Timeout=600)
apt_updated=0
apt_update() {
	if [ "$apt_updated" -eq 0 ] || [ "${1:-}" = again ]; then
		log "apt-get update"
		quiet as_root "${APT[@]}" update
		apt_updated=1
	fi
}

pkg_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

install_packages() {
	local need=() p
	for p in postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR build-essential dpkg-dev; do
		pkg_installed "$p" || need+=("$p")
	done
	[ "${#need[@]}" -eq 0 ] && return 0
	apt_update
	log "apt-get install ${need[*]}"
	quiet as_root env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y --no-install-recommends "${need[@]}"
}

pgvector_source_known() {
	apt-cache showsrc pgvector 2>/dev/null | grep -q '^Version:'
}

trixie_src_configured() {
	apt-get indextargets --no-release-info --format '$(TARGET_OF) $(RELEASE)' 'Identifier: Sources' \
		2>/dev/null | grep -qx 'deb-src trixie'
}

# Write a deb-src entry for trixie, derived from this machine's own first Debian source entry
# (so no repository address lives in the project). Prints the file it wrote.
write_trixie_src() {
	local parts list out
	eval "$(apt-config shell parts Dir::Etc::sourceparts/d list Dir::Etc::sourcelist/f)"
	parts=${parts:-/etc/apt/sources.list.d/}
	list=${list:-/etc/apt/sources.list}
	if [ -s "${parts}debian.sources" ]; then
		out=${parts}ci-trixie-src.sources
		# First stanza (up to the first blank line), with Types/Suites replaced.
		awk '
			/^[[:space:]]*$/ { if (seen) exit; next }
			{ seen = 1 }
			/^Types:/ { print "Types: deb-src"; next }
			/^Suites:/ { print "Suites: trixie"; next }
			/^Enabled:/ { next }
			{ print }
		' "${parts}debian.sources" | as_root tee "$out" >/dev/null
		grep -q '^URIs:' "$out" || die "no URIs: in the first stanza of ${parts}debian.sources"
	elif [ -s "$list" ] && grep -qE '^[[:space:]]*deb[[:space:]]' "$list"; then
		out=${parts}ci-trixie-src.list
		# "deb [options] URI suite components..." -> "deb-src [options] URI trixie main"
		grep -E '^[[:space:]]*deb[[:space:]]' "$list" | head -n1 | awk '{
			i = 2; opts = ""
			if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts $i " "; i++ } opts = opts $i " "; i++ }
			print "deb-src " opts $i " trixie main"
		}' | as_root tee "$out" >/dev/null
	else
		die "cannot find a Debian source entry (${parts}debian.sources or $list) to derive a trixie deb-src entry from"
	fi
	printf '%s\n' "$out"
}

install_pgvector() {
	if [ -f "$VECTOR_CONTROL" ] && [ "${FORCE_PGVECTOR_BUILD:-0}" != 1 ]; then
		return 0
	fi
	log "building pgvector from Debian trixie sources"
	local added="" work rc=0 src
	if ! trixie_src_configured; then
		added=$(write_trixie_src)
		apt_update again
	elif ! pgvector_source_known; then
		apt_update again
	fi
	work=$(mktemp -d /tmp/pgvector-build.XXXXXX)
	chmod 755 "$work" # lets apt download as its sandbox user
	(
		cd "$work"
		quiet "${APT[@]}" source pgvector
		src=$(find . -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n1)
		[ -n "$src" ] || die "apt-get source pgvector produced no source tree"
		quiet make -C "$src" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
		quiet as_root make -C "$src" install PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
	) || rc=$?
	# Remove the entry again if we added it (the next apt-get update forgets its index).
	[ -z "$added" ] || as_root rm -f "$added"
	rm -rf "$work"
	[ "$rc" -eq 0 ] || exit "$rc"
	[ -f "$VECTOR_CONTROL" ] || die "pgvector install did not create $VECTOR_CONTROL"
	log "pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$VECTOR_CONTROL") installed"
}

install_all() {
	install_packages
	[ -x "$PGBIN/postgres" ] || die "$PGBIN/postgres missing after install"
	install_pgvector
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

url_line() { printf 'export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:%s/postgres\n' "$1"; }

start_cluster() {
	local data=$PGCI_DIR/data logf=$PGCI_DIR/server.log port locale attempt
	if [ -f "$PGCI_DIR/$MARKER" ] && [ -f "$PGCI_DIR/port" ] &&
		as_pg "$PGBIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		url_line "$(cat "$PGCI_DIR/port")"
		return 0
	fi
	if [ -d "$PGCI_DIR" ] && [ -n "$(ls -A "$PGCI_DIR")" ]; then
		[ -f "$PGCI_DIR/$MARKER" ] || die "$PGCI_DIR exists and was not made by this script"
		stop_cluster
	fi
	mkdir -p "$PGCI_DIR"
	touch "$PGCI_DIR/$MARKER"
	[ "$(id -u)" -ne 0 ] || chown -R postgres: "$PGCI_DIR"
	chmod 700 "$PGCI_DIR"

	locale=C
	if locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$'; then locale=C.UTF-8; fi
	quiet as_pg "$PGBIN/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale="$locale" \
		--no-sync --no-instructions
	cat >>"$data/postgresql.conf" <<-EOF

		# Test settings (.ci/postgres.sh)
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$PGCI_DIR'
		max_connections = 200
		fsync = off
		synchronous_commit = off
		full_page_writes = off
	EOF

	for attempt in $(seq 1 40); do
		port=$((20000 + RANDOM % 30000))
		if [ "$port" -eq 5432 ] || [ "$port" -eq 55432 ] || port_in_use "$port"; then continue; fi
		: >"$logf"
		[ "$(id -u)" -ne 0 ] || chown postgres: "$logf"
		if as_pg "$PGBIN/pg_ctl" -D "$data" -l "$logf" -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
			echo "$port" >"$PGCI_DIR/port"
			break
		fi
		if grep -qE 'could not (bind|create listen socket)|Address already in use' "$logf"; then
			port=""
			continue # somebody took the port meanwhile: try another
		fi
		cat "$logf" >&2
		die "PostgreSQL did not start (log above)"
	done
	[ -n "${port:-}" ] && [ -f "$PGCI_DIR/port" ] || die "no free port found"

	for attempt in $(seq 1 60); do
		"$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" && break
		sleep 0.5
	done
	# Check that it accepts connections and that pgvector loads (without leaving it created).
	quiet "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres \
		-c "BEGIN; CREATE EXTENSION vector; SELECT '[1,2]'::vector <-> '[3,4]'::vector; ROLLBACK;"
	log "PostgreSQL $PG_MAJOR + pgvector running on 127.0.0.1:$port (data in $PGCI_DIR)"
	url_line "$port"
}

stop_cluster() {
	[ -d "$PGCI_DIR" ] || return 0
	[ -f "$PGCI_DIR/$MARKER" ] || die "refusing to touch $PGCI_DIR: not made by this script"
	local data=$PGCI_DIR/data pid
	if [ -f "$data/postmaster.pid" ]; then
		if ! as_pg "$PGBIN/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1; then
			pid=$(head -n1 "$data/postmaster.pid" 2>/dev/null || true)
			if [ -n "$pid" ] && [ "$(readlink -f "/proc/$pid/cwd" 2>/dev/null)" = "$(readlink -f "$data")" ]; then
				kill -9 "$pid" 2>/dev/null || true
			fi
		fi
	fi
	rm -rf "$PGCI_DIR"
}

case "${1:-}" in
install) install_all ;;
start)
	install_all
	start_cluster
	;;
stop) stop_cluster ;;
*)
	echo "usage: bash .ci/postgres.sh start|stop|install   (see the comment at the top)" >&2
	exit 2
	;;
esac
