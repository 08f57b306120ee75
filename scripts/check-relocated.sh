#!/usr/bin/env bash
# check-relocated.sh BIN_DIR: the shipped binary loads its native libraries
# from beside itself and from nowhere else (issue: a RUNPATH with an empty
# entry made the loader search the current directory, so any repository
# holding a libkuzu.so ran its code in every command started inside it).
#
# It copies BIN_DIR's three files to a fresh directory, plants a libkuzu.so
# whose constructor leaves a marker file in the working directory, and runs
# the copy there with an empty environment, as an unprivileged user when run
# as root: --version, analyze and query on a small repository must succeed and
# the marker must not appear. A control run with LD_LIBRARY_PATH=. shows that
# the planted library is loadable and the marker check does detect it.
set -euo pipefail
src=${1:?usage: check-relocated.sh BIN_DIR}
fail() { echo "check-relocated: FAIL: $*" >&2; exit 1; }

runpath=$(LC_ALL=C readelf -d "$src/gitnexus" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[ "$runpath" = '$ORIGIN' ] || fail "RUNPATH is [$runpath], want exactly [\$ORIGIN]"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/app" "$work/repo" "$work/home"
cp "$src/gitnexus" "$src/libkuzu.so" "$src/libonnxruntime.so.1" "$work/app/"

# The planted library, in the repository the command runs in.
cat > "$work/evil.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
	int fd = open("PLANTED-LIBRARY-RAN", O_CREAT | O_WRONLY, 0644);
	if (fd >= 0) close(fd);
	_exit(42);
}
C
gcc -shared -fPIC -o "$work/repo/libkuzu.so" "$work/evil.c"
cat > "$work/repo/main.go" <<'GO'
package main

// Serve starts the server.
func Serve() { handle() }

func handle() {}

func main() { Serve() }
GO

as_user=()
if [ "$(id -u)" = 0 ]; then
  chown -R nobody "$work/repo" "$work/home"
  as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
  echo "check-relocated: running as nobody with an empty environment"
else
  echo "check-relocated: not root: running as $(id -un) with an empty environment (no user switch)"
fi
run() { (cd "$work/repo" && "${as_user[@]}" env -i HOME="$work/home" "$@"); }

# Control: with the planted library on the search path it runs and is seen.
set +e
(cd "$work/repo" && "${as_user[@]}" env -i LD_LIBRARY_PATH=. "$work/app/gitnexus" --version >/dev/null 2>&1)
rc=$?
set -e
[ -e "$work/repo/PLANTED-LIBRARY-RAN" ] && [ $rc = 42 ] || fail "control run did not load the planted library (rc $rc): the check cannot see a planted library"
rm -f "$work/repo/PLANTED-LIBRARY-RAN"

run "$work/app/gitnexus" --version >/dev/null || fail "relocated --version failed"
run "$work/app/gitnexus" analyze --skip-embeddings . >"$work/analyze.log" 2>&1 || { cat "$work/analyze.log" >&2; fail "relocated analyze failed"; }
run "$work/app/gitnexus" query --mode keyword "serve" >"$work/query.log" 2>&1 || { cat "$work/query.log" >&2; fail "relocated query failed"; }
grep -q Serve "$work/query.log" || { cat "$work/query.log" >&2; fail "relocated query did not find Serve"; }
[ ! -e "$work/repo/PLANTED-LIBRARY-RAN" ] || fail "the planted libkuzu.so in the working directory was loaded"
echo "check-relocated: ok (RUNPATH \$ORIGIN; relocated copy ran --version, analyze, query; planted libkuzu.so never loaded)"
