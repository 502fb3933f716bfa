//go:build mpi

package mpi

// The user-defined reduction's callback lives in a file of its own: a file
// with //export may declare but not define C functions in its preamble.

import "C"

import (
	"fmt"
	"runtime/debug"
	"unsafe"
)

// treelbCombine is the MPI_User_function of ReduceFunc and AllreduceFunc:
// MPI calls it on its own thread, inside the reduction, with n elements of
// theWorld.combineLen bytes each, and it sets inout[i] = in[i] ∘ inout[i].
// A panic is kept for reduceFunc to raise again once MPI has returned.
//
//export treelbCombine
func treelbCombine(in, inout unsafe.Pointer, n *C.int, _ unsafe.Pointer) {
	w := &theWorld
	if w.combine == nil || w.combinePanic != nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			w.combinePanic = fmt.Sprintf("%v (in a CombineFunc)\n%s", p, debug.Stack())
		}
	}()
	size, count := w.combineLen, int(*n)
	a := unsafe.Slice((*byte)(inout), size*count)
	b := unsafe.Slice((*byte)(in), size*count)
	for i := range count {
		lo, hi := i*size, (i+1)*size
		w.combine(a[lo:hi:hi], b[lo:hi:hi])
	}
}
