package mpi

import (
	"fmt"
	"time"
)

// Idle is how a rank of the MPI world waits in a blocking call (Probe,
// Recv, Wait and the collectives): spinning in MPI's own blocking call, or
// yielding its CPU. The zero value, IdleDefault, takes the TREELB_IDLE
// environment variable, and IdleAuto when it is unset.
//
// MPI's blocking calls poll the network in a loop: a waiting rank keeps a
// core busy (MPICH's always; Open MPI's yields when mpirun sees the node
// oversubscribed). That is the fastest way to wait when every rank has a
// core, and ruinous when ranks outnumber cores: the busy ranks share their
// cores with spinning ones (mpirun.mpich -np 64 on two cores ran golomb 10
// twenty times slower than Open MPI). Under IdleYield a rank polls with the
// non-blocking call (MPI_Iprobe, MPI_Test, a non-blocking collective) and
// sleeps between polls, from a few microseconds doubling to a millisecond.
//
// In the embedded world ranks are goroutines that block without spinning
// whatever the policy.
type Idle int

// The idle policies.
const (
	IdleDefault Idle = iota // TREELB_IDLE if set, else IdleAuto
	IdleAuto                // spin when this node runs no more ranks than it has CPUs, yield otherwise
	IdleSpin                // MPI's blocking calls
	IdleYield               // poll with back-off sleeps
)

// IdleEnv is the environment variable that chooses the idle policy of every
// rank that does not choose one with Comm.SetIdle: auto, spin or yield.
const IdleEnv = "TREELB_IDLE"

var idleNames = [...]string{"default", "auto", "spin", "yield"}

// String returns the policy's name, as ParseIdle accepts it.
func (p Idle) String() string {
	if p >= 0 && int(p) < len(idleNames) {
		return idleNames[p]
	}
	return fmt.Sprintf("Idle(%d)", int(p))
}

// ParseIdle returns the policy called s: auto, spin or yield, or default
// (and the empty string) for IdleDefault. A command's --idle flag passes its
// value here.
func ParseIdle(s string) (Idle, error) {
	if s == "" {
		return IdleDefault, nil
	}
	for i, name := range idleNames {
		if s == name {
			return Idle(i), nil
		}
	}
	return IdleDefault, fmt.Errorf("idle policy %q: want auto, spin or yield", s)
}

// envIdle reads the policy of IdleEnv through getenv; a bad value is a
// *LaunchError.
func envIdle(getenv func(string) string) (Idle, error) {
	p, err := ParseIdle(getenv(IdleEnv))
	if err != nil {
		return IdleDefault, &LaunchError{Msg: fmt.Sprintf("%s=%s: %v", IdleEnv, getenv(IdleEnv), err)}
	}
	return p, nil
}

// resolveIdle turns a policy into IdleSpin or IdleYield: p itself if it is
// one of them, else env's (the policy of IdleEnv), else the automatic
// choice for launch l on a node of cpus CPUs (auto).
func resolveIdle(p, env Idle, l Launcher, cpus int) Idle {
	if p == IdleDefault {
		p = env
	}
	if p == IdleSpin || p == IdleYield {
		return p
	}
	return autoIdle(l, cpus)
}

// autoIdle is IdleAuto's choice: IdleYield when the launcher put more tasks
// on this node than it has CPUs (Slurm's allocation of CPUs when it says,
// else the node's cpus; the lesser of the two when both are known, since
// a Slurm whose node declares more CPUs than it has allocates them all),
// IdleSpin otherwise, and when the launcher does not say how many tasks
// share the node.
func autoIdle(l Launcher, cpus int) Idle {
	if l.CPUs > 0 && (cpus <= 0 || l.CPUs < cpus) {
		cpus = l.CPUs
	}
	if l.LocalTasks > 0 && cpus > 0 && l.LocalTasks > cpus {
		return IdleYield
	}
	return IdleSpin
}

// The back-off of IdleYield: idleSpinPolls polls back to back, then sleeps
// from idleMinSleep doubling to idleMaxSleep. A message that arrives while a
// rank sleeps waits at most idleMaxSleep. Measured with mpirun.mpich -np 64
// golomb 10 on two cores, longest sleeps of 0.25 to 2 ms gave about the same
// time (Open MPI's), 16 ms three times as long and 64 ms ten times: a rank
// that sleeps long delays every exchange that passes through it, while a
// wake-up and an Iprobe cost only microseconds.
const (
	idleSpinPolls = 16
	idleMinSleep  = 2 * time.Microsecond
	idleMaxSleep  = time.Millisecond
)

// backoff paces the polls of one idle wait under IdleYield. The zero value
// starts a wait.
type backoff struct {
	polls int
	sleep time.Duration
}

// next returns how long to sleep after a poll that found nothing: 0 for the
// first idleSpinPolls polls, then idleMinSleep doubling up to idleMaxSleep.
func (b *backoff) next() time.Duration {
	b.polls++
	if b.polls <= idleSpinPolls {
		return 0
	}
	b.sleep = min(max(2*b.sleep, idleMinSleep), idleMaxSleep)
	return b.sleep
}
