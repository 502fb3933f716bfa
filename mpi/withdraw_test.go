//go:build !mpi

package mpi

import (
	"errors"
	"testing"
)

// TestWaitWithdrawsReceive: a receive that the world's abort ended is no
// longer posted, so a send that passed its checks before the abort and
// lands after it does not write into the buffer the caller got back.
func TestWaitWithdrawsReceive(t *testing.T) {
	for _, wait := range []string{"Wait", "Test"} {
		err := Run(2, func(c *Comm) error {
			if c.Rank() != 0 {
				return nil
			}
			buf := make([]byte, 4)
			r, err := c.Irecv(buf, 1, 7)
			if err != nil {
				return err
			}
			c.w.fail(errors.New("another rank failed"))
			if wait == "Wait" {
				_, err = r.Wait()
			} else {
				_, _, err = r.Test()
			}
			var me *Error
			if !errors.As(err, &me) || me.Class != ClassAborted {
				t.Errorf("%s: %v, want the world's abort", wait, err)
			}
			c.w.deliver(ctxP2P, 1, 0, 7, []byte("late"))
			if string(buf) != "\x00\x00\x00\x00" || r.done.Load() {
				t.Errorf("%s: a message delivered after the abort filled the receive (%q)", wait, buf)
			}
			return nil
		})
		if err == nil {
			t.Errorf("%s: Run returned no error after the abort", wait)
		}
	}
}
