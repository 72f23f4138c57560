// Package table prints the ASCII tables zipsim's metrics use, in the style
// of the mysql client, so that reports read like InnoDB's
// INFORMATION_SCHEMA tables (INNODB_CMP, INNODB_CMPMEM, ...).
package table

import (
	"fmt"
	"strings"
)

// Write draws a titled table with right-aligned cells. Every row must have
// as many cells as header.
func Write(b *strings.Builder, title string, header []string, rows [][]string) {
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
		for _, r := range rows {
			width[i] = max(width[i], len(r[i]))
		}
	}
	rule := func() {
		for _, w := range width {
			b.WriteString("+" + strings.Repeat("-", w+2))
		}
		b.WriteString("+\n")
	}
	line := func(cells []string) {
		for i, c := range cells {
			fmt.Fprintf(b, "| %*s ", width[i], c)
		}
		b.WriteString("|\n")
	}
	b.WriteString(title + "\n")
	rule()
	line(header)
	rule()
	for _, r := range rows {
		line(r)
	}
	rule()
}
