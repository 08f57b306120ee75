package cheap

import (
	"runtime"
	"testing"
)

// Under Tune a 1 MiB block gets a mapping of its own (the mmap threshold
// stays at 128 KiB); under Bulk it comes from an arena; restore puts Tune's
// threshold back.
func TestBulkServesLargeBlocksFromTheArenas(t *testing.T) {
	Tune()
	alloc := func() int {
		before := mapped()
		p := cmalloc(1 << 20)
		if p == nil {
			t.Fatal("malloc failed")
		}
		n := mapped() - before
		cfree(p)
		return n
	}
	if n := alloc(); n != 1 {
		t.Errorf("under Tune a 1 MiB block made %d mappings, want 1", n)
	}
	restore := Bulk()
	if n := alloc(); n != 0 {
		t.Errorf("under Bulk a 1 MiB block made %d mappings, want 0", n)
	}
	restore()
	if n := alloc(); n != 1 {
		t.Errorf("after restore a 1 MiB block made %d mappings, want 1", n)
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
