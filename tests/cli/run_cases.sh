#!/usr/bin/env bash
# CLI cases as data (jq's tests/*.test, jansson's test/suites): every
# directory under CASES holds
#   cmd          a bash fragment run with $ST (the binary), $DATA (the sample
#                dataset), $TMP (an empty scratch directory, outputs go to
#                $TMP/out)
#   exit         the expected exit status
#   stdout.grep  (optional) fixed strings, one per line, that stdout contains
#   stderr.grep  (optional) the same for stderr
#   no-output    (optional) after the run $TMP/out holds no file at all:
#                a failed run leaves nothing behind, not even a temporary
# Usage: run_cases.sh STREAMTIME CASES_DIR
set -u
ST=$(realpath "$1")
CASES=$(realpath "$2")
DATA=$(realpath "$CASES/../../../data")
export ST DATA
pass=0 fail=0
for dir in "$CASES"/*/; do
	name=$(basename "$dir")
	TMP=$(mktemp -d)
	mkdir -p "$TMP/out"
	export TMP
	(cd "$TMP" && bash -c "$(cat "$dir/cmd")") >"$TMP/.stdout" 2>"$TMP/.stderr"
	rc=$?
	why=""
	want=$(cat "$dir/exit")
	[ "$rc" = "$want" ] || why="exit $rc, expected $want"
	for stream in stdout stderr; do
		[ -f "$dir/$stream.grep" ] || continue
		while IFS= read -r pat; do
			[ -n "$pat" ] || continue
			grep -qF -- "$pat" "$TMP/.$stream" || why="$why; $stream lacks '$pat'"
		done <"$dir/$stream.grep"
	done
	if [ -f "$dir/no-output" ] && [ -n "$(find "$TMP/out" -mindepth 1 -type f | head -1)" ]; then
		why="$why; left files behind: $(find "$TMP/out" -type f | tr '\n' ' ')"
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: $why"
		sed 's/^/  stderr: /' "$TMP/.stderr" | head -5
	fi
	rm -rf "$TMP"
done
echo "cli cases: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
