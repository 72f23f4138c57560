//go:build !unix

package latch

import (
	"errors"
	"time"
)

// ProcessCPU is not implemented on this OS; it returns an error wrapping
// errors.ErrUnsupported.
func ProcessCPU() (time.Duration, error) {
	return 0, errors.Join(errors.New("latch: ProcessCPU needs getrusage"), errors.ErrUnsupported)
}
