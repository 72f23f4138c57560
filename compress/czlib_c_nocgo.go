//go:build zipsim_czlib_c && !cgo

package compress

// The zipsim_czlib_c tag asks for C zlib, which needs cgo: without it
// (CGO_ENABLED=0, or no C compiler) the build stops here rather than
// measure the port while claiming C zlib.
var _ = zipsim_czlib_c_needs_cgo_and_a_C_compiler
