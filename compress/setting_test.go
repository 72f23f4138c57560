package compress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettingRoundTrip(t *testing.T) {
	for _, s := range allSettings() {
		require.NoError(t, s.Validate(), s)
		text := s.String()
		got, err := ParseSetting(text)
		require.NoError(t, err, text)
		assert.Equal(t, s, got, text)
		assert.Equal(t, s, s.Canonical(), "canonical settings stay as they are")
	}
}

func TestSettingStrings(t *testing.T) {
	for s, want := range map[Setting]string{
		{}:                             "zlib:6",
		DefaultSetting:                 "zlib:6",
		{Algorithm: Zlib, Level: 1}:    "zlib:1",
		{Algorithm: Deflate, Level: 1}: "deflate:1",
		{Algorithm: Deflate}:           "deflate:6",
		{Algorithm: Zstd}:              "zstd:fastest",
		{Algorithm: Zstd, Level: 2}:    "zstd:default",
		{Algorithm: Zstd, Level: 3}:    "zstd:better",
		{Algorithm: Zstd, Level: 4}:    "zstd:best",
		{Algorithm: S2}:                "s2",
		{Algorithm: S2, Level: 1}:      "s2",
		{Algorithm: S2, Level: 2}:      "s2:better",
		{Algorithm: S2, Level: 3}:      "s2:best",
		{Algorithm: None}:              "none",
		{Algorithm: Zlib, Level: 12}:   "zlib:12",
		{Algorithm: Algorithm(9)}:      "Algorithm(9):0",
	} {
		assert.Equal(t, want, s.String())
	}
	for a, want := range []string{"zlib", "deflate", "zstd", "s2", "none"} {
		assert.Equal(t, want, Algorithm(a).String())
	}
}

func TestSettingZeroIsInnoDBDefault(t *testing.T) {
	assert.Equal(t, DefaultSetting, Setting{}.Canonical())
	c, err := New(Setting{}, Options{})
	require.NoError(t, err)
	assert.Equal(t, DefaultSetting, c.Setting())
}

func TestParseSettingBareAndCase(t *testing.T) {
	for text, want := range map[string]Setting{
		"zlib":           {Algorithm: Zlib, Level: 6},
		"deflate":        {Algorithm: Deflate, Level: 6},
		"zstd":           {Algorithm: Zstd, Level: 1},
		"s2":             {Algorithm: S2, Level: 1},
		"none":           {Algorithm: None},
		"ZLIB:9":         {Algorithm: Zlib, Level: 9},
		"  Zstd:Better ": {Algorithm: Zstd, Level: 3},
		"S2:BEST":        {Algorithm: S2, Level: 3},
	} {
		got, err := ParseSetting(text)
		require.NoError(t, err, text)
		assert.Equal(t, want, got, text)
	}
}

func TestParseSettingErrors(t *testing.T) {
	for _, text := range []string{
		"", "lz4", "zlib:0", "zlib:10", "zlib:-1", "zlib:fast", "zlib:",
		"deflate:x", "zstd:0", "zstd:5", "zstd:fast", "s2:4", "s2:", "none:0", "none:1", "gzip:6",
	} {
		_, err := ParseSetting(text)
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), "allowed: zlib, zlib:1..zlib:9", text)
		assert.Contains(t, err.Error(), "zstd:fastest", text)
	}
}

func TestValidateErrors(t *testing.T) {
	for s, want := range map[Setting]string{
		{Algorithm: Zlib, Level: 10}:    "levels 1..9 (0 means 6)",
		{Algorithm: Deflate, Level: -1}: "levels 1..9 (0 means 6)",
		{Algorithm: Zstd, Level: 5}:     `levels 1="zstd:fastest", 2="zstd:default", 3="zstd:better", 4="zstd:best" (0 means 1)`,
		{Algorithm: S2, Level: 4}:       `levels 1="s2", 2="s2:better", 3="s2:best" (0 means 1)`,
		{Algorithm: None, Level: 1}:     "only level 0",
		{Algorithm: CZlib, Level: 10}:   "levels 1..9 (0 means 6)",
		{Algorithm: Algorithm(6)}:       "unknown algorithm 6",
	} {
		err := s.Validate()
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), want)
		_, err = New(s, Options{})
		require.Error(t, err, s)
	}
}

func TestParseNumericNamedLevels(t *testing.T) {
	for text, want := range map[string]string{"zstd:1": "zstd:fastest", "zstd:4": "zstd:best", "s2:1": "s2", "s2:2": "s2:better"} {
		s, err := ParseSetting(text)
		require.NoError(t, err, text)
		require.Equal(t, want, s.String())
	}
	_, err := ParseSetting("zstd:5")
	require.Error(t, err)
}

func TestSharedCodecIsOnePerSetting(t *testing.T) {
	a, err := Shared(Setting{})
	require.NoError(t, err)
	b, err := Shared(Setting{Algorithm: Zlib, Level: 6})
	require.NoError(t, err)
	require.Same(t, a, b)
	c, err := Shared(Setting{Algorithm: Zstd})
	require.NoError(t, err)
	require.NotSame(t, a, c)
	_, err = Shared(Setting{Algorithm: Zlib, Level: 12})
	require.Error(t, err)
}
