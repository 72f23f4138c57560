//go:build !unix

package storage

import "time"

// kernelSleep falls back to time.Sleep where there is no nanosleep: the
// pump then does not sharpen the timers.
func kernelSleep(d time.Duration) { time.Sleep(d) }
