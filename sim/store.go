package sim

import (
	"fmt"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/storage"
)

// defaultPoolBytes is the pool when neither PoolBytes nor PoolRatio says.
const defaultPoolBytes = 128 << 20

// StoreOptions returns the store options of c for a workload whose data
// takes dataBytes uncompressed (Workload.DataBytes).
func (c Config) StoreOptions(dataBytes int64) (zipsim.Options, error) {
	pool := c.PoolBytes
	if pool == 0 && c.PoolRatio > 0 {
		if pool = int64(c.PoolRatio * float64(dataBytes)); pool < 1 {
			return zipsim.Options{}, fmt.Errorf("pool ratio %v of %d bytes of data is no pool at all", c.PoolRatio, dataBytes)
		}
	}
	if pool == 0 {
		pool = defaultPoolBytes
	}
	page := c.PageSize
	if page == 0 {
		page = 16384
	}
	if min := int64(page) * bufpool.MinFramesPerInstance * int64(max(c.Instances, 1)); pool < min {
		return zipsim.Options{}, fmt.Errorf("pool of %d bytes is smaller than %d frames of %d bytes per instance (%d instances): use at least %d", pool, bufpool.MinFramesPerInstance, page, max(c.Instances, 1), min)
	}
	o := zipsim.Options{
		Pool: bufpool.Options{Bytes: pool, PageSize: c.PageSize, Instances: c.Instances,
			PageCleaner: c.PageCleaner, LRUScanDepth: c.LRUScanDepth, OldBlocksTime: c.OldBlocksTime},
		Padding:               btree.Padding{Disabled: c.PadDisabled},
		NoSync:                true,
		NoCodecReuse:          c.NoZlibReuse,
		LogCompressedPages:    c.LogCompressedPages,
		NoSiblingInsert:       c.NoSiblingInsert,
		SXIndexLock:           c.SXIndexLock,
		CompressedLeafReserve: c.CompressedLeafReserve,
		AdaptiveHashIndex:     c.AdaptiveHash,
		AdaptiveHashParts:     c.AdaptiveHashParts,
		ChangeBuffering:       c.ChangeBuffering,
		Purge:                 c.Purge,
		ThreadConcurrency:     c.ThreadConcurrency,
	}
	if c.Frames == "per-miss" {
		o.Pool.Frames = bufpool.PerMiss
	}
	switch c.Latches {
	case "builtin":
		o.Pool.Latching = bufpool.BuiltinLatches
	case "plugin":
		o.Pool.Latching = bufpool.PluginLatches
	}
	switch c.Locking {
	case "legacy":
		o.Pool.Locking = bufpool.Legacy
	case "global":
		o.Pool.Locking = bufpool.Global
	}
	if c.IOLatency > 0 {
		o.Latency = &storage.LatencyModel{Read: c.IOLatency, Write: c.IOLatency}
		if c.NoTimerPump {
			o.Latency.Sleep = time.Sleep // an injected Sleep runs without the pump
		}
	}
	return o, nil
}

// apply sets o's row format, compression, partitions and merge threshold
// from c.
func (c Config) apply(o *zipsim.TableOptions) {
	switch c.RowFormat {
	case "compact":
		o.RowFormat = zipsim.Compact
	case "compressed":
		o.RowFormat = zipsim.Compressed
		o.KeyBlockSize = c.KBS
		o.Codec = c.Codec
	case "transparent":
		o.Compression = c.Codec
		if o.Compression == "" {
			o.Compression = "zlib"
		}
	}
	if o.Partitions == 0 {
		o.Partitions = c.Partitions
	}
	o.MergeThresholdPct = c.MergeThreshold
}
