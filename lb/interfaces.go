package lb

// The optional interfaces each balancer's documentation claims, checked
// by the compiler: every registered balancer suspends and resumes a search
// (Suspender) and takes part in progress reports (Progresser); the ring
// schedulers report their queues (Loader). hybrid is
// a randomPolling and koso-star a koso; TestBalancerInterfaces checks the
// registry's factories at run time.
var (
	_ Suspender  = (*randomPolling)(nil)
	_ Progresser = (*randomPolling)(nil)
	_ Suspender  = (*rpLocal)(nil)
	_ Progresser = (*rpLocal)(nil)
	_ Suspender  = (*pollShuffle)(nil)
	_ Progresser = (*pollShuffle)(nil)
	_ Suspender  = (*static)(nil)
	_ Progresser = (*static)(nil)
	_ Suspender  = (*koso)(nil)
	_ Progresser = (*koso)(nil)
	_ Loader     = (*koso)(nil)

	_ RootOptional = (*randomPolling)(nil)
	_ RootOptional = (*rpLocal)(nil)
	_ RootOptional = (*pollShuffle)(nil)
	_ RootOptional = (*static)(nil)
	_ RootOptional = (*koso)(nil)
)
