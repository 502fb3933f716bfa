// Package reliability holds the tests that hold every treelb command to
// issue 23's promises at once, from the outside: each command is built and
// run as a user runs it. The tables cover every command, mode and world
// whose answer is written to a full device or a closed pipe (exit status
// 74 and a message, never a silent success), and every flag of every
// command fed hostile values (exit status 2 and one line naming the flag,
// never a stack trace), and every command's simulator report means the same
// in its JSON output. scripts/faults.sh runs the first two in its bad-input
// stage.
//
// The package has no code of its own but this comment and its tests.
package reliability
