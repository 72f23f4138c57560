package btree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/latch"
)

func newPadding(o Padding) *padding {
	if o.ThresholdPct == 0 {
		o.ThresholdPct = 5
	}
	if o.MaxPct == 0 {
		o.MaxPct = 50
	}
	p := &padding{}
	p.init(latch.NewRegistry(latch.Options{}), "t", o, 16384)
	return p
}

// round feeds one round of 128 compressions with fails failures.
func (p *padding) round(fails int) {
	for i := range zipPadRoundLen {
		p.record(i >= fails)
	}
}

func TestPaddingRounds(t *testing.T) {
	p := newPadding(Padding{})
	require.Equal(t, 16384, p.optimal())
	// fail_pct is integer, as InnoDB's: 7/128 counts as 5%, not above
	// the threshold; 8/128 counts as 6%.
	p.round(7)
	require.Equal(t, 0, p.current())
	p.round(8)
	require.Equal(t, 128, p.current())
	require.Equal(t, 16384-128, p.optimal())
	p.round(20)
	require.Equal(t, 256, p.current())
	// Four good rounds keep the pad, the fifth takes 128 off.
	for range 4 {
		p.round(0)
	}
	require.Equal(t, 256, p.current())
	p.round(0)
	require.Equal(t, 128, p.current())
	// A bad round resets the count of good ones.
	for range 4 {
		p.round(0)
	}
	p.round(64)
	require.Equal(t, 256, p.current())
	for range 5 {
		p.round(0)
	}
	require.Equal(t, 128, p.current())
}

func TestPaddingCap(t *testing.T) {
	p := newPadding(Padding{})
	for range 200 {
		p.round(128)
	}
	// pad + 128 must stay below 50% of the page: 8064 is the last step.
	require.Equal(t, 8064, p.current())
	require.Equal(t, 16384-8064, p.optimal())

	q := newPadding(Padding{MaxPct: 10})
	for range 200 {
		q.round(128)
	}
	require.Equal(t, 1536, q.current()) // 1536+128 = 1664 >= 1638
	require.Equal(t, 16384-1536, q.optimal())
}

func TestPaddingDisabled(t *testing.T) {
	p := newPadding(Padding{Disabled: true})
	for range 10 {
		p.round(128)
	}
	require.Equal(t, 0, p.current())
	require.Equal(t, 16384, p.optimal())
}

func TestPaddingThreshold(t *testing.T) {
	p := newPadding(Padding{ThresholdPct: 50})
	// fail_pct is integer: 65/128 = 50.8% counts as 50, not above 50.
	p.round(65)
	require.Equal(t, 0, p.current())
	p.round(66)
	require.Equal(t, 128, p.current())
}
