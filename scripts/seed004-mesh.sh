#!/usr/bin/env bash
# seed004-mesh.sh: the study of seed 004 §5 (the dispatch phase of the
# distributed hash table on a 2-D mesh) that results/seed004-mesh/ holds.
# It builds dht and runs `dht mesh` twice on p = 4 … 4096, q = 1, lg p and
# lg² p, block and modular allocation, with the GCel's times of lb's machine
# catalogue: cut-through routing (the seed's zero-load latency t_s + t_h·D +
# t_w·L) and store-and-forward (as lb's gcel model routes). It writes
# mesh-ROUTING.csv, mesh-ROUTING.png and mesh-ROUTING.txt (the command's
# table) into the directory, and provenance.txt: the commands, the commit,
# the host, its CPU and load. The model is deterministic: the same commit
# and seed give the same CSVs, whatever the machine.
#
#   scripts/seed004-mesh.sh [DIR]   # default results/seed004-mesh
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_flags "$@"
cd "$(dirname "$0")/.."
out=${1:-results/seed004-mesh}
export GOFLAGS=-buildvcs=auto # the CSVs' provenance columns name the commit
mkdir -p "$out"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/dht" ./apps/dht
common=(mesh --machine gcel --alloc block,modular --rounds 5 --max-p 4096 --seed 1 --out "$out")
# Before the redirection below, which changes the tracked provenance.txt.
commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
{
	echo "commit: $commit"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(hostname), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, $(go version | cut -d' ' -f3)"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/provenance.txt"
for routing in cut-through store-forward; do
	flags=()
	[ "$routing" = store-forward ] && flags=(--store-forward)
	start=$SECONDS
	"$bin/dht" "${common[@]}" "${flags[@]}" >"$out/mesh-$routing.txt"
	echo "command: dht ${common[*]} ${flags[*]} ($((SECONDS - start)) s)" >>"$out/provenance.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/provenance.txt"
cat "$out/provenance.txt"
