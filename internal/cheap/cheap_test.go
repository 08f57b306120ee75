package cheap

import "testing"

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
