// Package runnertest builds a command and runs it, for the tests of the
// commands built on package runner: their exit status and what they print
// on stdout and stderr.
//
// A command is tested as its users run it: built into a temporary directory
// by the test that needs it (Build, skipped under -short), then run as a process
// with its arguments (Run), with standard input (RunStdin), or interrupted
// by a signal after a while (Interrupt, for checkpoints). The exit status is
// the contract of every treelb command: 0 for success, 2 for bad flags or
// input (Refuses checks the status and that stderr says why), 1 for any
// other failure, 3 for a search checkpointed and not finished.
// CheckProvenance checks the provenance object that ends every JSON record.
//
// The helpers fail the test only when the binary cannot be started;
// otherwise they return what the process printed and its exit status, so a
// test reads as the command line and what it must print.
package runnertest
