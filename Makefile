# treelb: make run (main job on the embedded world), make test (everything).
GO      ?= go
export GOFLAGS ?= -buildvcs=false

.PHONY: all run test test-go test-fuzz test-mpi test-slurm test-clone test-faults vet bench mpi clean

all: test

# The main job: the shortest 12-mark Golomb ruler by random polling on the
# embedded world, one rank per CPU, with per-rank statistics.
run:
	$(GO) run ./apps/golomb --np $$(nproc) --stats 12

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

test: vet test-clone test-go test-fuzz test-mpi test-slurm test-faults

# The fault campaign's short form (SIGKILLed checkpointing runs restarted on
# other ranks, the bad-input table); FAULTS=full scripts/faults.sh for the
# figures of docs/reliability.md.
test-faults:
	bash scripts/faults.sh

# Every fuzz test of a decoder of outside bytes, a few seconds each on top of
# its committed corpus (which every go test runs).
test-fuzz:
	bash scripts/fuzz.sh

# The repository alone: a fresh clone runs the README's quick start.
test-clone:
	bash scripts/clone-test.sh

# All tests; then the packages with concurrency again under the race
# detector (the simulations are single-threaded and only slow under -race;
# the driver's table runs in its -short form there).
test-go:
	$(GO) test -count=1 ./...
	$(GO) test -race -count=1 ./mpi ./internal/cmdutil
	$(GO) test -race -count=1 -short ./lb/driver

# The MPI world under real mpirun, Open MPI and MPICH (installs them with
# apt-get when root; otherwise says which tests it skipped).
test-mpi:
	bash scripts/mpi-test.sh

# Slurm batch jobs for real: a one-node Slurm on localhost (installs
# slurm-wlm and munge with apt-get when root; otherwise says which tests it
# skipped), scripts/slurm/*.sbatch for both MPIs.
test-slurm:
	bash scripts/slurm-test.sh

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1s ./mpi
	bash scripts/mpi-bench.sh

# Every command under apps/ built for mpirun and srun: Open MPI into
# bin/openmpi/ by default, MPICH into bin/mpich/ with MPI=mpich. Each
# command's --version names its MPI (the "world:" line). The campaign runner
# goes next to them (scripts/slurm/speedup.sbatch runs it).
MPI ?= openmpi
MPI_TAGS = $(if $(filter mpich,$(MPI)),mpi$(comma)mpich,mpi)
comma := ,
mpi:
	@case "$(MPI)" in openmpi|mpich) ;; *) echo "MPI=$(MPI): want openmpi or mpich"; exit 2 ;; esac
	@mkdir -p bin/$(MPI)
	@cmds=$$([ ! -d apps ] || $(GO) list -tags $(MPI_TAGS) -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./apps/...) || exit 1; \
	if [ -z "$$cmds" ]; then echo "no commands under apps/ yet"; else \
		echo $(GO) build -tags $(MPI_TAGS) -o bin/$(MPI)/ $$cmds ./scripts/campaign; \
		$(GO) build -tags $(MPI_TAGS) -o bin/$(MPI)/ $$cmds ./scripts/campaign; fi

clean:
	rm -rf bin out
