# treelb: make run (main job on the embedded world), make test (everything).
GO      ?= go
export GOFLAGS ?= -buildvcs=false

.PHONY: all run test test-go vet bench mpi clean

all: test

# The main job: the shortest 12-mark Golomb ruler by random polling on the
# embedded world, one rank per CPU, with per-rank statistics.
run:
	$(GO) run ./apps/golomb --np $$(nproc) --stats 12

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

test: vet test-go

# All tests; then the packages with concurrency again under the race
# detector (the simulations are single-threaded and only slow under -race).
test-go:
	$(GO) test -count=1 ./...
	$(GO) test -race -count=1 ./mpi
	$(GO) test -race -count=1 -run 'Driver' ./lb

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1s ./mpi

clean:
	rm -rf bin out
