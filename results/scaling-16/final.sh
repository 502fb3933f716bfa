#!/usr/bin/env bash
# The GC floor (7df98af) against 2436ff2 and mpirun on 16 cores, then the scaling rows. usage: final.sh BINTAR OUT [quick]
# BINTAR holds emb/ (static: CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o emb/
# ./apps/golomb ./apps/uts ./apps/fifteen ./apps/knapsack ./apps/integrate ./scripts/campaign), mpi/ (GOFLAGS=
# '-buildvcs=auto -trimpath' scripts/mpi-build.sh --out mpi/ and the five apps: Open MPI 4.1.4's pkg-config) and,
# for final.sh, old/ (emb/ of the older commit); see README.md. Run from the repository's root.
set -u
tarball=$1 out=$2 quick=${3:-}
b=/tmp/treelb-bin; rm -rf $b; mkdir -p $b; tar xJf "$tarball" -C $b || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t=$out/final.tsv
r() { local tag=$1; shift; local l s e o
	l=$(cut -d' ' -f1 /proc/loadavg); s=$(date +%s.%N); o=$("$@" 2>/dev/null | tr -d '\n'); e=$(date +%s.%N)
	printf '%s\t%s\t%s\t%s\t%s\n' "$tag" "$l" "$s" "$e" "$o" >>$t; }
conc() { local tag=$1 n=$2; shift 2; local i
	for i in $(seq $n); do ( o=$("$@" 2>/dev/null | tr -d '\n'); printf '%s\t%s\t-\t-\t%s\n' "$tag" "$n" "$o" >>$t ) & done; wait; }
if [ -n "$quick" ]; then G='9' U1='--tree T1' U3='--tree T3' I='func osc --theta-a 1e-12 --theta-r 1e-13' n=4 K='--korf 5' K2='--korf 7'
	kn='knapsack --search hs <(knapsack gen --class sanders -m 200 --seed 42)'
else G='12' U1='--tree T1L' U3='--tree T3L' I='func osc --theta-a 1e-20 --theta-r 1e-21' n=16 K='--korf 82' K2='--korf 88'
	kn='knapsack --search hs <(knapsack gen --class sanders -m 2000 --seed 42)'; fi
t0=$(date +%s)
echo "P3: old, new, mpi at P=16 $(cat /proc/loadavg)"
for rep in 1 2 3 4 5; do
	for a in "golomb:$G" "uts:$U1" "uts:$U3" "integrate:$I"; do app=${a%%:*} args=${a#*:}
		r "p3 old $app $args" $b/old/$app --json --stats --np 16 --balancer rp --seed 1 $args
		r "p3 new $app $args" $b/emb/$app --json --stats --np 16 --balancer rp --seed 1 $args
		r "p3 mpi $app $args" mpirun --oversubscribe -np 16 $b/mpi/$app --json --stats --balancer rp --seed 1 $args
	done
done
echo "== P3 done in $(( $(date +%s) - t0 )) s; A: the scaling campaign, new build $(cat /proc/loadavg)"
$b/emb/campaign --timeout 200s --repeats 3 --preset scaling --bin-dir $b/emb --np 4,16,32 --csv $out/emb-a.csv --plots /tmp/p-a --inputs /tmp/in-a \
	--instance "golomb $G" --instance "uts $U1" --instance "uts $U3" --instance "integrate $I" --instance "$kn" 2>&1 | grep -v '^campaign: \(run\|warning\)'
echo "== A done in $(( $(date +%s) - t0 )) s; E1: lone vs $n concurrent sequential runs $(cat /proc/loadavg)"
for rep in 1 2; do
	for a in "golomb:$G" "uts:$U1" "uts:$U3" "integrate:$I"; do app=${a%%:*} args=${a#*:}
		r "e1 lone $app $args" $b/emb/$app --json --balancer seq $args
		conc "e1 conc $app $args" $n $b/emb/$app --json --balancer seq $args
	done
done
echo "== E1 done in $(( $(date +%s) - t0 )) s; C2: Korf $K and $K2 $(cat /proc/loadavg)"
$b/emb/campaign --timeout 200s --repeats 3 --preset scaling --bin-dir $b/emb --np 16,32 --csv $out/emb-c2.csv --plots /tmp/p-c2 --inputs /tmp/in-c2 \
	--instance "fifteen $K" --instance "fifteen $K2" 2>&1 | grep -v '^campaign: \(run\|warning\)'
echo "== C2 done in $(( $(date +%s) - t0 )) s $(cat /proc/loadavg)"
