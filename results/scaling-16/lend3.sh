#!/usr/bin/env bash
# Issue 22 on 16 cores, third lend: the current build in both worlds (parts P and G), the scaling preset's
# standard instances again (A), every balancer on golomb 13 (B), the machine's all-core penalty on UTS T1XL (E)
# the hard Korf sum (K);
# second call: golomb 13 twice more (S), the penalty on golomb 12, T3L and golomb 13 (F). usage: lend3.sh BINTAR OUT SECONDS PART... (quick: small instances on 4 ranks).
# A part whose estimate would end after SECONDS is skipped, so that what ran comes back whole.
# BINTAR holds emb/ (static: CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o emb/ ./apps/golomb
# ./apps/uts ./apps/fifteen ./apps/knapsack ./apps/integrate ./scripts/campaign) and mpi/ (GOFLAGS='-buildvcs=auto
# -trimpath' scripts/mpi-build.sh --out mpi/ ./apps/golomb ./apps/uts ./apps/integrate: Open MPI 4.1.4's pkg-config).
# Run from the repository's root. Each run is one line of OUT/lend3.tsv: tag, 1-minute load, start, end, its JSON
# (summarize.py reads it).
set -u
tarball=$1 out=$2 limit=$3; shift 3
b=/tmp/treelb-bin; [ -d $b/emb ] || { mkdir -p $b; tar xJf "$tarball" -C $b || exit 1; }
{ date -u; echo "nproc $(nproc)"; lscpu; free -g; cat /proc/loadavg; uname -a; cat /etc/os-release; mpirun --version; ldd $b/mpi/golomb; } >$out/machine.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t=$out/lend3.tsv
r() { local tag=$1; shift; local l s e o
	l=$(cut -d' ' -f1 /proc/loadavg); s=$(date +%s.%N); o=$("$@" 2>/dev/null | tr -d '\n'); e=$(date +%s.%N)
	printf '%s\t%s\t%s\t%s\t%s\n' "$tag" "$l" "$s" "$e" "$o" >>$t; }
n=16 G='12' U1='--tree T1L' U3='--tree T3L' I='func osc --theta-a 1e-20 --theta-r 1e-21' G3=13 XL='--tree T1XL'
K='82 88 60' kn='knapsack --search hs <(knapsack gen --class sanders -m 2000 --seed 42)'
t0=$(date +%s)
# est: seconds each part took on the machine of the earlier lends
for part; do case $part in quick) est=0;; P) est=50;; G) est=25;; A) est=75;; B) est=110;; E) est=130;; K) est=90;; S) est=85;; F) est=110;; *) est=0;; esac
	if [ $(( $(date +%s) - t0 + est )) -gt "$limit" ]; then echo "== $part skipped at $(( $(date +%s) - t0 )) s (estimate $est s)"; continue; fi
	case $part in
quick) n=4 G='9' U1='--tree T1' U3='--tree T3' I='func osc --theta-a 1e-12 --theta-r 1e-13' G3=10 XL='--tree T1' K='5 6'
	kn='knapsack --search hs <(knapsack gen --class sanders -m 200 --seed 42)' ;;
P)	echo "P: embedded and mpirun -np $n, 5 alternations $(cat /proc/loadavg)"
	for rep in 1 2 3 4 5; do
		for a in "golomb:$G" "uts:$U1" "uts:$U3" "integrate:$I"; do app=${a%%:*} args=${a#*:}
			set -- --json --stats --balancer rp --seed 1 $args
			r "p emb $app $args" $b/emb/$app --np $n "$@"
			r "p mpi-auto $app $args" mpirun --oversubscribe -np $n $b/mpi/$app "$@"
		done
	done ;;
G)	echo "G: golomb $G3 embedded and mpirun -np $n, 3 alternations $(cat /proc/loadavg)"
	for rep in 1 2 3; do set -- --json --stats --balancer rp --seed 1 $G3
		r "g emb golomb $G3" $b/emb/golomb --np $n "$@"
		r "g mpi-auto golomb $G3" mpirun --oversubscribe -np $n $b/mpi/golomb "$@"
	done ;;
A)	echo "A: the scaling preset, seq and rp on $n and $((2 * n)) ranks, 3 repeats $(cat /proc/loadavg)"
	$b/emb/campaign --timeout 200s --repeats 3 --preset scaling --bin-dir $b/emb --np $n,$((2 * n)) --csv $out/scaling-A.csv \
		--plots none --inputs /tmp/in-a --instance "golomb $G" --instance "uts $U1" --instance "uts $U3" \
		--instance "integrate $I" --instance "$kn" 2>&1 | grep -v '^campaign: \(run\|warning\)' ;;
B)	echo "B: golomb $G3, seq once, every other balancer at its defaults on $n ranks once $(cat /proc/loadavg)"
	r "b seq golomb $G3" $b/emb/golomb --json --stats --balancer seq $G3
	for bal in 'rp --fast-init' rp-local hybrid static ps koso koso-star; do
		r "b $bal golomb $G3" $b/emb/golomb --np $n --json --stats --seed 1 --balancer $bal $G3
	done ;;
E)	echo "E: the all-core penalty on uts $XL, 1 round $(cat /proc/loadavg)"
	bash scripts/allcore.sh --bin-dir $b/emb --copies $n --rounds 1 "uts $XL" >$out/allcore-E.txt 2>&1; tail -5 $out/allcore-E.txt ;;
K)	echo "K: Korf $K, seq and rp on $n ranks once each $(cat /proc/loadavg)"
	for k in $K; do
		r "k seq fifteen --korf $k" $b/emb/fifteen --json --stats --balancer seq --korf $k
		r "k rp fifteen --korf $k" $b/emb/fifteen --np $n --json --stats --seed 1 --balancer rp --korf $k
	done ;;
S)	echo "S: golomb $G3, seq and rp on $n ranks, 2 alternations $(cat /proc/loadavg)"
	for rep in 1 2; do
		r "s seq golomb $G3" $b/emb/golomb --json --stats --balancer seq $G3
		r "s rp golomb $G3" $b/emb/golomb --np $n --json --stats --seed 1 --balancer rp $G3
	done ;;
F)	echo "F: the all-core penalty on golomb $G and uts $U3 (2 rounds) and golomb $G3 (1 round) $(cat /proc/loadavg)"
	bash scripts/allcore.sh --bin-dir $b/emb --copies $n --rounds 2 "golomb $G" "uts $U3" >$out/allcore-F.txt 2>&1
	bash scripts/allcore.sh --bin-dir $b/emb --copies $n --rounds 1 "golomb $G3" >>$out/allcore-F.txt 2>&1; grep -A3 summary $out/allcore-F.txt ;;
*) echo "lend3.sh: unknown part $part" >&2; exit 2 ;;
esac; echo "== $part done at $(( $(date +%s) - t0 )) s $(cat /proc/loadavg)"; done
