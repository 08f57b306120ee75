package graph

// This file owns the tuning of the new database's buffer pool: its
// default and minimum size, growing it (GrowBufferPool) and settling the
// database between heavy steps (Settle).

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"syscall"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/internal/cheap"
)

// Buffer pool sizes. Kuzu's own default takes 80% of RAM. A read-only open
// fails at 16 MiB and works at 32 MiB (Kuzu 0.11.3).
const (
	DefaultBuildBufferPool = 256 << 20
	DefaultReadBufferPool  = 256 << 20
)

// minBuildPool is the smallest build pool a COPY works in with this many
// threads: 96 MiB plus 32 MiB a thread. Measured with Kuzu 0.11.3 (a COPY
// of two rows per table): it fails ("buffer pool is full") at 112 MiB and
// works at 120 MiB with 1 thread, fails at 144 and works at 150 with 2,
// fails at 160 and works at 192 with 4.
func minBuildPool(threads int) uint64 {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	return 96<<20 + 32<<20*uint64(threads)
}

// nodeGroupRows is the rows of one Kuzu node group (2^17 in Kuzu 0.11).
const nodeGroupRows = 1 << 17

// copyPool is the buffer pool a node COPY needs when the largest node
// group of its file (nodeGroupRows consecutive rows) takes group bytes of
// NDJSON: Kuzu builds a node group per thread in the pool and then appends
// it to the table's own, so about threads+1 groups are resident at once, on
// top of minBuildPool. NDJSON bytes overstate the in-memory strings (JSON
// escapes), and a quarter more is added for the columns' overheads.
// Measured with Kuzu 0.11.3 (300k rows of ~2.2 KB and ~4.2 KB): 2 threads
// need 0.77-1 GiB for 2.2 KB rows and 1.5-2 GiB for 4.2 KB rows (a 128k-row
// group of 290 and 550 MB); 1 thread needs under 512 MiB for 2.2 KB rows.
// Below that size COPY fails with "The buffer pool is full".
func copyPool(threads int, group int64) uint64 {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	return minBuildPool(threads) + uint64(threads+1)*uint64(group)*5/4
}

// poolForLoad is the buffer pool Load opens the new database with, on
// threads: the build's pool, raised to what the COPY of the largest node
// group needs (copyPool), capped at three quarters of the machine's
// memory. The pool is address space that Kuzu fills only as far as a
// statement needs, but it keeps what it touched until the database is
// closed: Load closes the database at its end, and Exec and Query open it
// again with the build's own pool, so that the statements after the load
// (vectors) do not fill one sized for the COPYs. Callers hold b.mu.
func (b *Build) poolForLoad(threads int) uint64 {
	var group int64
	for _, rf := range b.files {
		if rf.maxGroup > group {
			group = rf.maxGroup
		}
	}
	need := copyPool(threads, group)
	if capped := totalMemory() / 4 * 3; capped > 0 && need > capped {
		b.log.Warn("the largest table needs more buffer pool than the machine can give; its COPY may fail", "need_MiB", need>>20, "using_MiB", capped>>20)
		need = capped
	}
	if need <= b.opts.BufferPoolSize {
		return b.opts.BufferPoolSize
	}
	b.log.Debug("load buffer pool sized for the largest node group", "group_MiB", group>>20, "pool_MiB", b.opts.BufferPoolSize>>20, "load_MiB", need>>20)
	return need
}

// poolDefaults fills the buffer-pool and thread options a caller left
// zero (from GITNEXUS_BUILD_POOL_MB and GITNEXUS_BUILD_THREADS, else the
// defaults) and raises a pool too small for a COPY (minBuildPool), with a
// warning.
func poolDefaults(opts BuildOptions, log *slog.Logger) BuildOptions {
	if opts.BufferPoolSize == 0 {
		opts.BufferPoolSize = DefaultBuildBufferPool
		if mb, err := strconv.Atoi(os.Getenv("GITNEXUS_BUILD_POOL_MB")); err == nil && mb > 0 {
			opts.BufferPoolSize = uint64(mb) << 20
		}
	}
	if opts.MaxThreads == 0 {
		if n, err := strconv.Atoi(os.Getenv("GITNEXUS_BUILD_THREADS")); err == nil && n > 0 {
			opts.MaxThreads = n
		}
	}
	if lo := minBuildPool(opts.MaxThreads); opts.BufferPoolSize < lo {
		log.Warn("build buffer pool too small for Kuzu's COPY; raised", "asked_MiB", opts.BufferPoolSize>>20, "using_MiB", lo>>20)
		opts.BufferPoolSize = lo
	}
	return opts
}

// Settle closes the new database (Kuzu checkpoints it on close) and opens it
// again, so that the next statement starts from an empty buffer pool instead
// of on top of every page the statements before it touched and the C heap
// they left behind. Analyze's peak memory is the largest single step plus
// what Kuzu keeps from the steps before it; settling between the heavy
// steps (the COPYs, the search pack's reads, the vector load) removes the
// second term. It costs a checkpoint and an open (a second open in a
// process: about 0.1 s). Load ends with the database closed instead; Exec
// and Query open it again when called (openedLocked).
func (b *Build) Settle() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return errors.New("graph build: Settle needs a successful Load first")
	}
	return b.settleLocked()
}

// settleLocked reopens the database; a failure fails the build (there is
// no database left to work on). Callers hold b.mu.
func (b *Build) settleLocked() error {
	if err := b.reopen(); err != nil {
		b.state = stateFailed
		b.closeDB()
		return err
	}
	return nil
}

// GrowBufferPool raises the new database's buffer pool to at least bytes
// (capped at half the machine's memory) and settles (see Settle) so that
// the larger pool takes effect; a pool already that large is left alone.
// The pool is address space that Kuzu fills only as far as a statement
// needs, so a larger one costs no memory by itself: it lets a COPY that
// needs more pages than the default pool holds (vectors of a large
// repository) finish instead of failing with "buffer pool is full".
func (b *Build) GrowBufferPool(bytes uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return errors.New("graph build: GrowBufferPool needs a successful Load first")
	}
	if half := totalMemory() / 2; half > 0 && bytes > half {
		bytes = half
	}
	if bytes <= b.opts.BufferPoolSize {
		return nil
	}
	b.log.Debug("growing the build buffer pool", "from_MiB", b.opts.BufferPoolSize>>20, "to_MiB", bytes>>20)
	b.opts.BufferPoolSize = bytes
	return b.settleLocked()
}

// totalMemory is the machine's physical memory in bytes (0 if unknown).
func totalMemory() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}

func (b *Build) reopen() (err error) {
	b.closeDB()
	cheap.Trim()
	if b.db, err = openKuzu(b.dbPath(), systemConfig(b.opts.BufferPoolSize, b.opts.MaxThreads, false)); err != nil {
		return fmt.Errorf("reopen new database: %w", err)
	}
	if b.conn, err = kuzu.OpenConnection(b.db); err != nil {
		return fmt.Errorf("reconnect to new database: %w", err)
	}
	b.log.Debug("database settled", "rss_MiB", RSS)
	return nil
}
