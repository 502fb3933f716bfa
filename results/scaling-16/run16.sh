#!/usr/bin/env bash
# Issue 22 on a 16-core machine: the scaling preset with prebuilt binaries.
# BINTAR holds emb/ (static: CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o emb/
# ./apps/golomb ./apps/uts ./apps/fifteen ./apps/knapsack ./apps/integrate ./scripts/campaign), mpi/ (GOFLAGS=
# '-buildvcs=auto -trimpath' scripts/mpi-build.sh --out mpi/ and the five apps: Open MPI 4.1.4's pkg-config) and,
# for final.sh, old/ (emb/ of the older commit); see README.md. Run from the repository's root.
# usage: run16.sh BINTAR OUT [quick]
set -u
tarball=$1 out=$2 quick=${3:-}
b=/tmp/treelb-bin; rm -rf $b; mkdir -p $b; tar xJf "$tarball" -C $b || exit 1
m=$out/machine.txt
{ date -u; echo "nproc $(nproc)"; lscpu; free -g; cat /proc/loadavg; uname -a; cat /etc/os-release; } >$m 2>&1
mpirun=$(command -v mpirun || ls /opt/hpcx/ompi/bin/mpirun /usr/local/mpi/bin/mpirun /usr/mpi/gcc/openmpi*/bin/mpirun 2>/dev/null | head -1)
if [ -z "$mpirun" ]; then echo "no mpirun on PATH: libmpi.so.40 at:" >>$m; find /usr /opt -name 'libmpi.so*' 2>/dev/null | head >>$m; fi
if [ -n "$mpirun" ]; then
	d=$(dirname "$(dirname "$mpirun")"); export PATH=$d/bin:$PATH LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	{ echo "mpirun: $mpirun"; "$mpirun" --version; ldd $b/mpi/golomb; } >>$m 2>&1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
c="$b/emb/campaign --timeout 200s --repeats 3"
kn='knapsack --search hs <(knapsack gen --class sanders -m 2000 --seed 42)'
if [ -n "$quick" ]; then
	ga='golomb 9' gc='golomb 10' f='fifteen --korf 5' i='integrate func osc --theta-a 1e-12 --theta-r 1e-13' kn='knapsack --search hs <(knapsack gen --class sanders -m 200 --seed 42)'
	ua='uts --tree T1' ub='uts --tree T3'
else
	ga='golomb 12' gc='golomb 13' f='fifteen --korf 60' i='integrate func osc --theta-a 1e-20 --theta-r 1e-21'
	ua='uts --tree T1L' ub='uts --tree T3L'
fi
t0=$(date +%s)
echo "== A: embedded, P = 4, 16, 32 $(cat /proc/loadavg)"
$c --preset scaling --bin-dir $b/emb --np 4,16,32 --csv $out/emb-a.csv --plots /tmp/p-a --inputs /tmp/in-a \
	--instance "$ga" --instance "$ua" --instance "$ub" --instance "$i" --instance "$kn"
echo "== A done in $(( $(date +%s) - t0 )) s"
if [ -n "$mpirun" ]; then
	echo "== B: mpirun, P = 16 $(cat /proc/loadavg)"
	$c --preset scaling-mpi --bin-dir $b/mpi --np 16 --csv $out/mpi-b.csv --plots /tmp/p-b --inputs /tmp/in-b \
		--launcher "$mpirun --oversubscribe -np {np}" \
		--instance "$ga" --instance "$ua" --instance "$ub" --instance "$i"
	echo "== B done in $(( $(date +%s) - t0 )) s"
fi
echo "== C: embedded, P = 16, 32 $(cat /proc/loadavg)"
$c --preset scaling --bin-dir $b/emb --np 16,32 --csv $out/emb-c.csv --plots /tmp/p-c --inputs /tmp/in-c --instance "$gc" --instance "$f"
echo "== C done in $(( $(date +%s) - t0 )) s $(cat /proc/loadavg)"
