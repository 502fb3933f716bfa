# treelb: make (the commands into bin/), make run (main job on the embedded
# world), make test (everything), make test-short
# (the edit loop), make mpi (the MPI build), make slurm-up.
GO      ?= go
# Stamp the binaries with the VCS commit (--version, the provenance of every
# JSON record) wherever go can: a git clone with git installed. -buildvcs=auto
# builds unstamped, without failing, from a copy without .git or a linked git
# worktree; it overrides a -buildvcs=false in `go env`, not in the environment.
export GOFLAGS ?= -buildvcs=auto

.PHONY: all build install run test test-short test-go test-examples test-race test-fuzz test-mpi test-slurm test-clone test-docs test-faults test-allcore test-arch vet lint bench mpi slurm-up slurm-down slurm-status clean

all: build

# The user-facing commands, embedded world (goroutine ranks, no MPI): every
# command under apps/ and the campaign runner, into bin/.
CMDS = $$($(GO) list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./apps/... | grep -v /internal/) ./scripts/campaign
build:
	@mkdir -p bin
	$(GO) build -o bin/ $(CMDS)

# The same commands into GOBIN (go install ./... installs just these).
install:
	$(GO) install $(CMDS)

# The main job: the shortest 12-mark Golomb ruler by random polling on the
# embedded world, one rank per CPU, with per-rank statistics.
run:
	$(GO) run ./apps/golomb --np $$(nproc) --stats 12

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags aborttest ./mpi/internal/aborttest
	$(GO) vet -tags tools ./scripts/theorem1 ./scripts/seed003figures ./scripts/idalast

# staticcheck (honnef.co/go/tools, from the Go module proxy into GOPATH/bin) over
# every build of the tree: the embedded world's, both MPI builds' (whose
# files go vet sees only in test-mpi), the tagged tools' and the example
# modules' (examples/*, modules of their own). The MPI builds need the MPI
# packages: installed first as scripts/mpi-test.sh does (apt-get as root),
# otherwise those two are SKIPPED, saying so (on a fresh machine lint
# failed before test-mpi installed them). About a minute on a fresh
# machine, seconds once its cache is warm.
STATICCHECK_VERSION = v0.8.2
lint:
	@command -v "$$($(GO) env GOPATH)/bin/staticcheck" >/dev/null && "$$($(GO) env GOPATH)/bin/staticcheck" -version | grep -q "($(STATICCHECK_VERSION:v%=%))" || \
		{ echo "lint: installing staticcheck $(STATICCHECK_VERSION) into $$($(GO) env GOPATH)/bin"; GOBIN="$$($(GO) env GOPATH)/bin" $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); }
	"$$($(GO) env GOPATH)/bin/staticcheck" ./...
	@MPI_TESTS=install bash scripts/mpi-test.sh
	@for b in "mpi ompi-c" "mpi,mpich mpich"; do \
		set -- $$b; \
		if pkg-config --exists $$2 2>/dev/null; then \
			echo "staticcheck -tags $$1 ./..."; "$$($(GO) env GOPATH)/bin/staticcheck" -tags $$1 ./... || exit 1; \
		else echo "SKIPPED: staticcheck -tags $$1 (no pkg-config $$2: install the MPI packages as root)"; fi; \
	done
	"$$($(GO) env GOPATH)/bin/staticcheck" -tags tools ./scripts/theorem1 ./scripts/seed003figures ./scripts/idalast
	"$$($(GO) env GOPATH)/bin/staticcheck" -tags aborttest ./mpi/internal/aborttest
	@for d in examples/*/; do \
		echo "cd $$d && staticcheck ./..."; \
		(cd $$d && "$$($(GO) env GOPATH)/bin/staticcheck" ./...) || exit 1; \
	done

test: vet lint test-clone test-go test-fuzz test-mpi test-slurm test-docs test-faults test-allcore test-arch

# The edit loop: every package's tests in their -short form (small
# instances, the diagonal of the variant table, no command builds), about a
# minute on two idle cores; go caches the packages that did not change.
# make test runs everything.
test-short:
	$(GO) test -short ./...

# The fault campaign's short form (SIGKILLed checkpointing runs restarted on
# other ranks, the bad-input table); FAULTS=full scripts/faults.sh for the
# figures of docs/reliability.md.
test-faults:
	bash scripts/faults.sh

# scripts/allcore.sh, the machine's all-core penalty (docs/scaling.md),
# once on small instances: it runs, and its summary names both.
test-allcore:
	bash scripts/allcore.sh --copies 2 --rounds 1 'golomb 9' 'uts --tree T1' >/tmp/allcore-test.txt
	grep -q '^golomb 9: lone .*x$$' /tmp/allcore-test.txt && grep -q '^uts --tree T1: lone .*x$$' /tmp/allcore-test.txt

# Other platforms: the tree and its tests type-check for 32-bit Linux and
# FreeBSD (go vet; both failed to build once; PLATFORMS="... darwin/arm64"
# adds macOS, 30 s each), and scripts/cross-arch.sh finds the counts,
# certificates, simulations and checkpoint chains of an s390x build
# (big-endian, multiply-adds fused) run under qemu-user the same as here
# (installs qemu-user with apt-get when root; CROSS_ARCH="arm64 s390x"
# for more).
PLATFORMS ?= linux/386 freebsd/amd64
CROSS_ARCH ?= s390x
test-arch:
	@for p in $(PLATFORMS); do \
		echo "GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) vet ./..."; \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) vet ./... || exit 1; \
	done
	bash scripts/cross-arch.sh --arch "$(CROSS_ARCH)"

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
	@$(MAKE) --no-print-directory test-examples
	@$(MAKE) --no-print-directory test-race

# The example apps, modules of their own written against the public API
# only (examples/*/go.mod replaces the treelb module by this checkout), so
# that the public API cannot regress: vet and their tests.
test-examples:
	@for d in examples/*/; do \
		echo "cd $$d && $(GO) vet ./... && $(GO) test -count=1 ./..."; \
		(cd $$d && $(GO) vet ./... && $(GO) test -count=1 ./...) || exit 1; \
	done

# The race detector needs cgo and a C compiler: without them this step alone
# is skipped, and says so. apps/golomb stands for the apps: its tests run
# whole commands in one process at once (runner.Execute), as a library
# user may; a race of urfave/cli's help flag was found there. GOMAXPROCS=4
# so that its parallel subtests run at once even on one CPU: there, without
# it, the race went unseen (and with -parallel 4 or -cpu 4 alone too).
# RACE_SKIP: tests with no concurrency of the test process to race, which
# test-go has just run: the committed simulations (single-threaded, 42 s
# under -race) and the abort test (mpirun and the programs it builds are
# other processes; scripts/mpi-test.sh runs it again per MPI).
RACE_SKIP = ^(TestCommittedSimulations|TestAbortUnderMpirun)$$
test-race:
	@cc=$$($(GO) env CC); why=; \
	if [ "$$($(GO) env CGO_ENABLED)" != 1 ]; then why="CGO_ENABLED is not 1"; \
	elif ! command -v "$${cc%% *}" >/dev/null; then why="no C compiler: CC=$$cc is not found"; fi; \
	if [ -n "$$why" ]; then \
		echo "SKIPPED: go test -race (the race detector needs cgo and a C compiler; $$why)"; \
	else \
		echo "$(GO) test -race -count=1 -skip '$(RACE_SKIP)' ./mpi ./runner ./internal/campaign" && $(GO) test -race -count=1 -skip '$(RACE_SKIP)' ./mpi ./runner ./internal/campaign && \
		echo "GOMAXPROCS=4 $(GO) test -race -count=1 -short ./apps/golomb" && GOMAXPROCS=4 $(GO) test -race -count=1 -short ./apps/golomb && \
		echo "$(GO) test -race -count=1 -short ./lb/driver" && $(GO) test -race -count=1 -short ./lb/driver; \
	fi

# The MPI world under real mpirun, Open MPI and MPICH (installs them with
# apt-get when root; otherwise says which tests it skipped).
test-mpi:
	bash scripts/mpi-test.sh

# Slurm batch jobs for real: a one-node Slurm on localhost (installs
# slurm-wlm and munge with apt-get when root; otherwise says which tests it
# skipped), scripts/slurm/*.sbatch for both MPIs.
test-slurm:
	bash scripts/slurm-test.sh

# Every command of docs/cluster.md, in order, against real mpirun and the
# local Slurm the guide starts (as root; elsewhere it says it skipped them).
test-docs:
	bash scripts/doc-test.sh --doc docs/cluster.md

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1s ./mpi
	bash scripts/mpi-bench.sh

# Every command under apps/ built for mpirun and srun, against the MPI named
# by MPI: Open MPI into bin/openmpi/ by default, MPICH into bin/mpich/ with
# MPI=mpich, any other MPI-3.0 library with MPI=NAME into bin/NAME/
# (MPI_BIN=DIR elsewhere; MPI_PKGS="./apps/golomb ..." builds only those
# packages). scripts/mpi-build.sh finds the library's flags:
# CGO_CFLAGS/CGO_LDFLAGS or MPICC when set, else pkg-config, else the mpicc
# wrapper on PATH (docs/cluster.md). Each command's --version names the
# library it loads (the "world:" line). The campaign runner goes next to
# them (scripts/slurm/speedup.sbatch runs it).
MPI ?= openmpi
MPI_BIN ?= bin/$(MPI)
mpi:
	bash scripts/mpi-build.sh --mpi $(MPI) --out $(MPI_BIN) $(MPI_PKGS)

# A one-node Slurm on localhost (as root), for trying the batch scripts:
# make slurm-up prints the SLURM_CONF to export (CPUS=N declares N CPUs);
# make slurm-down stops every daemon it started. make test starts its own
# with the same script (docs/cluster.md).
slurm-up:
	bash scripts/slurm.sh up $(if $(CPUS),--cpus $(CPUS))
slurm-down:
	bash scripts/slurm.sh down
slurm-status:
	bash scripts/slurm.sh status

clean:
	rm -rf bin out
