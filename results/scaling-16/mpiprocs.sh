#!/usr/bin/env bash
# Issue 22 on 16 cores, second lend: the MPI processes' GOMAXPROCS (part M) and the large UTS trees (parts T1XL,
# T3XXL), golomb 13 in both worlds (part G). usage: mpiprocs.sh BINTAR OUT PART... (M, G, T1XL, T3XXL; quick: small instances on 4 ranks)
# BINTAR holds emb/ (static: CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o emb/ ./apps/golomb
# ./apps/uts ./apps/fifteen ./apps/knapsack ./apps/integrate ./scripts/campaign) and mpi/ (GOFLAGS='-buildvcs=auto
# -trimpath' scripts/mpi-build.sh --out mpi/ ./apps/golomb ./apps/uts ./apps/integrate: Open MPI 4.1.4's pkg-config).
# Run from the repository's root. Each run is one line of OUT/mpiprocs.tsv: tag, 1-minute load, start, end, its JSON.
set -u
tarball=$1 out=$2; shift 2
b=/tmp/treelb-bin; [ -d $b/emb ] || { mkdir -p $b; tar xJf "$tarball" -C $b || exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t=$out/mpiprocs.tsv
r() { local tag=$1; shift; local l s e o
	l=$(cut -d' ' -f1 /proc/loadavg); s=$(date +%s.%N); o=$("$@" 2>/dev/null | tr -d '\n'); e=$(date +%s.%N)
	printf '%s\t%s\t%s\t%s\t%s\n' "$tag" "$l" "$s" "$e" "$o" >>$t; }
n=16 G='12' U1='--tree T1L' U3='--tree T3L' I='func osc --theta-a 1e-20 --theta-r 1e-21' L1='--tree T1XL' L3='--tree T3XXL' G3=13
t0=$(date +%s)
for part; do case $part in
quick) n=4 G='9' U1='--tree T1' U3='--tree T3' I='func osc --theta-a 1e-12 --theta-r 1e-13' L1='--tree T1' L3='--tree T3' G3=10 ;;
M)	echo "M: embedded and mpirun -np $n, GOMAXPROCS as Main sets it (auto), 16, 2, and bound to cores $(cat /proc/loadavg)"
	core=core; [ "$(nproc)" -ge $n ] || core=core:overload-allowed
	for rep in 1 2 3 4 5; do
		for a in "golomb:$G" "uts:$U1" "uts:$U3" "integrate:$I"; do app=${a%%:*} args=${a#*:}
			set -- --json --stats --balancer rp --seed 1 $args
			r "m emb $app $args" $b/emb/$app --np $n "$@"
			r "m mpi-auto $app $args" mpirun --oversubscribe -np $n $b/mpi/$app "$@"
			r "m mpi-16 $app $args" mpirun --oversubscribe -np $n -x GOMAXPROCS=16 $b/mpi/$app "$@"
			r "m mpi-2 $app $args" mpirun --oversubscribe -np $n -x GOMAXPROCS=2 $b/mpi/$app "$@"
			r "m mpi-core $app $args" mpirun --oversubscribe --bind-to $core -np $n $b/mpi/$app "$@"
		done
	done ;;
G)	echo "G: golomb $G3 embedded and mpirun -np $n (auto, bound to cores), 3 alternations $(cat /proc/loadavg)"
	core=core; [ "$(nproc)" -ge $n ] || core=core:overload-allowed
	for rep in 1 2 3; do set -- --json --stats --balancer rp --seed 1 $G3
		r "g emb golomb $G3" $b/emb/golomb --np $n "$@"
		r "g mpi-auto golomb $G3" mpirun --oversubscribe -np $n $b/mpi/golomb "$@"
		r "g mpi-core golomb $G3" mpirun --oversubscribe --bind-to $core -np $n $b/mpi/golomb "$@"
	done ;;
T1XL|T3XXL) args=$L1; [ $part = T3XXL ] && args=$L3
	echo "$part: uts $args, seq and rp on $n ranks, 3 repeats $(cat /proc/loadavg)"
	$b/emb/campaign --timeout 300s --repeats 3 --preset scaling --bin-dir $b/emb --np $n --csv $out/$part.csv \
		--plots /tmp/p-$part --inputs /tmp/in-$part --instance "uts $args" 2>&1 | grep -v '^campaign: \(run\|warning\)'
	for rep in 1 2; do r "l mpi-auto uts $args" mpirun --oversubscribe -np $n $b/mpi/uts --json --stats --balancer rp --seed 1 $args; done ;;
*) echo "mpiprocs.sh: unknown part $part" >&2; exit 2 ;;
esac; echo "== $part done at $(( $(date +%s) - t0 )) s $(cat /proc/loadavg)"; done
