# treelb: make run (main job on the embedded world), make test (everything).
GO      ?= go
export GOFLAGS ?= -buildvcs=false

.PHONY: all run test test-go vet bench mpi clean

all: test

run:
	$(GO) test -count=1 -run 'TestScale' -v ./mpi

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

test: vet test-go

test-go:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1s ./mpi

clean:
	rm -rf bin out
