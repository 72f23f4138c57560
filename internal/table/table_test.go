package table

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	var b strings.Builder
	Write(&b, "INNODB_CMP", []string{"PAGE_SIZE", "OPS"}, [][]string{{"8192", "12"}, {"16384", "7"}})
	require.Equal(t, `INNODB_CMP
+-----------+-----+
| PAGE_SIZE | OPS |
+-----------+-----+
|      8192 |  12 |
|     16384 |   7 |
+-----------+-----+
`, b.String())
}
