#!/usr/bin/env bash
# fuzz.sh: every Go fuzz test of the repository (the decoders of bytes from
# outside: task encodings, input files, parsers, checkpoints) fuzzed for a
# short bounded time each. The committed corpora (testdata/fuzz/) run with
# every `go test`; this adds new random inputs on top.
#
#   scripts/fuzz.sh              # FUZZTIME per target (default 10000x)
#   FUZZTIME=1m scripts/fuzz.sh  # longer, by hand
#
# The default budget is a count of executions, not a duration: with a
# duration, Go 1.26's fuzz coordinator sometimes reports "context deadline
# exceeded" as a failure when the time runs out while a worker is busy, with
# no failing input (golang/go#75804, fixed in Go 1.27). A count never races
# a clock. 10000 executions take 1-4 s per target on this machine, 43 s
# for all 19 (30000 took 97 s, a twelfth of make test, whose CI run went
# over 20 minutes; the committed corpora run in every go test either way).
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10000x}
failed=0 targets=0
# Every package with a fuzz test, and its fuzz tests' names.
pkgs=$($GO list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}' ./...)
for pkg in $pkgs; do
	for name in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$pkg"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		targets=$((targets + 1))
		rel=./${pkg#"$PWD"/}
		start=$SECONDS
		if out=$($GO test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$rel" 2>&1); then
			echo "ok   fuzz $rel $name ($((SECONDS - start))s)"
		else
			echo "$out" | tail -20
			echo "FAIL fuzz $rel $name"
			failed=1
		fi
	done
done
# A search that found nothing would pass having fuzzed nothing.
if [ "$targets" -lt 10 ]; then
	echo "FAIL fuzz: $targets fuzz targets found, want the repository's (over 10)"
	failed=1
fi
exit $failed
