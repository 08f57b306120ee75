package cheap

import (
	"runtime"
	"testing"
)

// Under Tune a 4 MiB block gets a mapping of its own (the mmap threshold
// stays at 128 KiB); under Bulk a 1 MiB block comes from an arena; restore
// puts Tune's threshold back, so a 4 MiB block is mapped again. The block
// after restore is larger than the one freed under Bulk: malloc_trim does
// not shrink a thread's own arena (only the main one), so that freed 1 MiB
// may still lie at the arena's top and serve a block of its size without a
// mapping, whatever the threshold (CI failed on this once, 1056b2d).
func TestBulkServesLargeBlocksFromTheArenas(t *testing.T) {
	runtime.LockOSThread() // one thread, one arena, for the whole test
	defer runtime.UnlockOSThread()
	Tune()
	alloc := func(size int) int {
		before := mapped()
		p := cmalloc(size)
		if p == nil {
			t.Fatal("malloc failed")
		}
		n := mapped() - before
		cfree(p)
		return n
	}
	if n := alloc(4 << 20); n != 1 {
		t.Errorf("under Tune a 4 MiB block made %d mappings, want 1", n)
	}
	restore := Bulk()
	if n := alloc(1 << 20); n != 0 {
		t.Errorf("under Bulk a 1 MiB block made %d mappings, want 0", n)
	}
	restore()
	if n := alloc(4 << 20); n != 1 {
		t.Errorf("after restore a 4 MiB block made %d mappings, want 1", n)
	}
}

// BulkBeside serves a 1 MiB block from an arena as Bulk does, but where
// Bulk keeps a freed 24 MiB block's memory in the arena, BulkBeside gives
// it back (its trim threshold is 8 MiB).
func TestBulkBesideKeepsLess(t *testing.T) {
	runtime.LockOSThread() // one thread, one arena, for the whole test
	defer runtime.UnlockOSThread()
	Tune()
	kept := func(restore func()) (maps, free int) {
		defer restore()
		before := mapped()
		p := cmalloc(1 << 20)
		maps = mapped() - before
		cfree(p)
		Trim()
		f0 := freeInArenas()
		p = cmalloc(24 << 20)
		if p == nil {
			t.Fatal("malloc failed")
		}
		cfree(p)
		return maps, freeInArenas() - f0
	}
	if maps, free := kept(Bulk()); maps != 0 || free < 16<<20 {
		t.Errorf("under Bulk: a 1 MiB block made %d mappings (want 0), a freed 24 MiB block left %d bytes free (want at least 16 MiB)", maps, free)
	}
	if maps, free := kept(BulkBeside()); maps != 0 || free >= 8<<20 {
		t.Errorf("under BulkBeside: a 1 MiB block made %d mappings (want 0), a freed 24 MiB block left %d bytes free (want under 8 MiB)", maps, free)
	}
}
