#!/usr/bin/env bash
# clone-test.sh: the repository stands on its own. It clones the committed
# HEAD into an empty temporary directory, checks that nothing in it refers to
# a path outside the repository (the sibling directory of the project's
# reference material, and the like), and runs the
# README's quick-start commands there: `make run` and a 15-puzzle instance
# from the built-in table. It also checks the conventions a fresh clone
# offers: plain `make` builds the commands into bin/ without testing, and
# `go install ./...` installs the user-facing commands and nothing else,
# and without a C compiler `make test-race` skips and says so.
# `make test` itself is what CI runs on a fresh clone, so it is not
# repeated here.
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$repo" "$tmp/treelb"
cd "$tmp/treelb"
# No code, test, script or Makefile may reach outside the repository.
# The patterns are built from pieces so that this file does not match itself.
outside=shar
if git grep -n -I -e "\.\./${outside}ed" -e "/work/${outside}ed" -- ':!*.md'; then
	echo "FAIL clone: files above refer to a path outside the repository"
	exit 1
fi
start=$SECONDS
out=$(make --no-print-directory run 2>&1) || { echo "$out"; echo "FAIL clone: make run"; exit 1; }
grep -q 'optimal length 85' <<<"$out" || { echo "$out"; echo "FAIL clone: make run gave no 12-mark ruler of length 85"; exit 1; }
echo "ok   clone: make run ($((SECONDS - start))s)"
start=$SECONDS
out=$(go run ./apps/fifteen --np 2 --korf 12 -q 2>&1) || { echo "$out"; echo "FAIL clone: fifteen --korf 12"; exit 1; }
[ "${out%% *}" = 45 ] || { echo "$out"; echo "FAIL clone: fifteen --korf 12 gave $out, want length 45"; exit 1; }
echo "ok   clone: go run ./apps/fifteen --np 2 --korf 12 ($((SECONDS - start))s)"
start=$SECONDS
# The user-facing commands: the apps and the campaign runner.
commands="campaign dht fifteen golomb integrate knapsack uts"
out=$(make --no-print-directory 2>&1) || { echo "$out"; echo "FAIL clone: make"; exit 1; }
got=$(ls bin | tr '\n' ' ')
if [ "$got" != "$commands " ] || grep -q "go test" <<<"$out"; then
	echo "$out"
	echo "FAIL clone: make built '$got' into bin/ (want $commands) or ran tests"
	exit 1
fi
echo "ok   clone: make builds $commands into bin/, no tests ($((SECONDS - start))s)"
start=$SECONDS
out=$(GOBIN="$tmp/gobin" go install ./... 2>&1) || { echo "$out"; echo "FAIL clone: go install ./..."; exit 1; }
got=$(ls "$tmp/gobin" | tr '\n' ' ')
if [ "$got" != "$commands " ]; then
	echo "FAIL clone: go install ./... installed '$got', want the user-facing commands only: $commands"
	exit 1
fi
echo "ok   clone: go install ./... installs $commands only ($((SECONDS - start))s)"
# Without a C compiler, make test skips the race detector's step alone, and
# says so (the other steps need none).
out=$(CC=/nonexistent/cc make --no-print-directory test-race 2>&1) || { echo "$out"; echo "FAIL clone: make test-race without a C compiler failed"; exit 1; }
grep -q "^SKIPPED: go test -race .*no C compiler" <<<"$out" || { echo "$out"; echo "FAIL clone: make test-race without a C compiler does not say it skipped"; exit 1; }
echo "ok   clone: make test-race without a C compiler: $out"
