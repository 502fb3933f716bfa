#!/usr/bin/env bash
# Diagnostics of the per-core slowdown at 16 ranks. usage: diag.sh BINTAR OUT [quick]
# BINTAR holds emb/ (static: CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o emb/
# ./apps/golomb ./apps/uts ./apps/fifteen ./apps/knapsack ./apps/integrate ./scripts/campaign), mpi/ (GOFLAGS=
# '-buildvcs=auto -trimpath' scripts/mpi-build.sh --out mpi/ and the five apps: Open MPI 4.1.4's pkg-config) and,
# for final.sh, old/ (emb/ of the older commit); see README.md. Run from the repository's root.
set -u
tarball=$1 out=$2 quick=${3:-}
b=/tmp/treelb-bin; rm -rf $b; mkdir -p $b; tar xJf "$tarball" -C $b || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t=$out/diag.tsv
r() { # TAG CMD...: one run, its JSON on one line
	local tag=$1; shift; local l s e o
	l=$(cut -d' ' -f1 /proc/loadavg); s=$(date +%s.%N); o=$("$@" 2>/dev/null | tr -d '\n'); e=$(date +%s.%N)
	printf '%s\t%s\t%s\t%s\t%s\n' "$tag" "$l" "$s" "$e" "$o" >>$t
}
conc() { # TAG N CMD...: N copies at once
	local tag=$1 n=$2; shift 2; local i
	for i in $(seq $n); do ( o=$("$@" 2>/dev/null | tr -d '\n'); printf '%s\t%s\t-\t-\t%s\n' "$tag" "$n" "$o" >>$t ) & done; wait
}
if [ -n "$quick" ]; then G='9' U1='--tree T1' U3='--tree T3' I='func osc --theta-a 1e-12 --theta-r 1e-13' n=4; else
G='12' U1='--tree T1L' U3='--tree T3L' I='func osc --theta-a 1e-20 --theta-r 1e-21' n=16; fi
E=$b/emb M=$b/mpi
echo "E1: lone vs $n concurrent sequential runs $(cat /proc/loadavg)"
for rep in 1 2; do
	for a in "golomb:$G" "uts:$U1" "uts:$U3" "integrate:$I"; do
		app=${a%%:*} args=${a#*:}
		r "e1 lone $app $args" $E/$app --json --balancer seq $args
		conc "e1 conc $app $args" $n $E/$app --json --balancer seq $args
	done
done
echo "E2: GOGC at P=16 $(cat /proc/loadavg)"
for rep in 1 2 3; do
	for a in "golomb:$G" "uts:$U1" "uts:$U3"; do
		app=${a%%:*} args=${a#*:}
		for g in 100 800 off; do GOGC=$g r "e2 gogc=$g $app $args" $E/$app --json --stats --np 16 --balancer rp --seed 1 $args; done
	done
done
for a in "golomb:$G" "uts:$U3"; do app=${a%%:*} args=${a#*:}
	GODEBUG=gctrace=1 $E/$app --json --np 16 --balancer rp --seed 1 $args 2>$out/gc.txt >/dev/null
	echo "gctrace $app $args: $(grep -c '^gc ' $out/gc.txt) GCs; last: $(grep '^gc ' $out/gc.txt | tail -1)"
done
echo "E3: embedded vs mpirun at P=16 $(cat /proc/loadavg)"
for rep in 1 2 3 4 5; do
	for a in "golomb:$G" "uts:$U1" "uts:$U3" "integrate:$I"; do
		app=${a%%:*} args=${a#*:}
		r "e3 emb $app $args" $E/$app --json --stats --np 16 --balancer rp --seed 1 $args
		r "e3 mpi $app $args" mpirun --oversubscribe -np 16 $M/$app --json --stats --balancer rp --seed 1 $args
	done
done
echo "done $(cat /proc/loadavg)"
