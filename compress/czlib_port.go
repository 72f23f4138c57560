//go:build !(zipsim_czlib_c && cgo)

package compress

// czlibEngineFor returns the engine behind the CZlib setting: the Go port
// of C zlib's deflate, unless the zipsim_czlib_c tag builds czlib_c.go.
func czlibEngineFor(level int, noReuse bool) engine { return newCZlibEngine(level, noReuse) }

// CZlibImplementation says what the czlib setting runs in this build.
func CZlibImplementation() string { return "Go port of C zlib 1.2.13's deflate" }

// CZlibPerCallState says what the czlib setting builds for each call
// with Options.NoReuse in this build.
func CZlibPerCallState() string {
	return "czlib's encoder, about 330 KiB, for each compression and klauspost's inflater, about 40 KiB, for each decompression"
}
