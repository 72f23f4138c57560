package zipsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DropTable removes table name [row_drop_table_for_mysql,
// fil_delete_tablespace]: its pages leave the buffer pool unwritten
// (bufpool.Pool.DropSpace), its tablespaces are closed and, in a store on
// disk, their files deleted, and the catalog is rewritten at once so that
// the drop survives a reopen. It returns how long that took, the figure
// seed 004 compares: deleting a file full of punched holes can take the
// filesystem long. The table must no longer be in use; its methods return
// ErrDropped afterwards.
func (s *Store) DropTable(ctx context.Context, name string) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return 0, ErrClosed
	}
	key := strings.ToLower(name)
	t, ok := s.tables[key]
	if !ok {
		return 0, fmt.Errorf("zipsim: drop table %s: %w", name, errNoTable)
	}
	start := time.Now()
	if s.purge != nil {
		s.purge.running.Lock() // no batch is purging the table meanwhile
	}
	t.dropped.Store(true)
	if s.purge != nil {
		s.purge.running.Unlock()
	}
	delete(s.tables, key)
	var errs []error
	for _, p := range t.parts {
		errs = append(errs, s.dropPart(ctx, p))
		if s.path != "" {
			errs = append(errs, os.Remove(filepath.Join(s.path, p.name+".ibd")))
		}
	}
	if s.path != "" {
		errs = append(errs, writeCatalog(s.path, s.catalog(), !s.opts.NoSync))
	}
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return took, fmt.Errorf("zipsim: drop table %s: %w", name, err)
	}
	return took, nil
}

// errNoTable is DropTable's error for a name the store does not know.
var errNoTable = errors.New("no such table")
