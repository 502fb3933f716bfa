package lbtest

import "github.com/treelb/treelb/lb"

// What the documentation of the test apps claims, checked by the compiler.
var (
	_ lb.Reducer[TreeResult] = (*Tree)(nil)
	_ lb.Bounded             = (*Tree)(nil)
	_ lb.Stopper             = (*Tree)(nil)
	_ lb.Reducer[int64]      = (*Range)(nil)
	_ lb.Halver              = (*rangeTask)(nil) // a Range's tasks
	_ lb.Task                = (*treeTask)(nil)  // a Tree's tasks
)
