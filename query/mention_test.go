package query

import (
	"fmt"
	"reflect"
	"testing"
)

func TestParseMentions(t *testing.T) {
	m := parseMentions("See https://github.com/pydata/xarray/blob/1be777f/xarray/core/nanops.py#L35 and " +
		"`File \"astropy/io/fits/card.py\", line 12, in fromstring`: Header.fromstring fails; also fitsrec.py, www.python.org and e.g. this")
	if got := fmt.Sprint(m.Files); got != "[[github.com pydata xarray blob 1be777f xarray core nanops.py] [astropy io fits card.py] [fitsrec.py]]" {
		t.Errorf("files = %s", got)
	}
	if got := fmt.Sprint(m.Qualified); got != "[[Header fromstring] [www python org] [e g]]" {
		t.Errorf("qualified = %s", got)
	}
	n := parseMentions("`polyval` with timedelta64 fails; pairplot(df) raises; `x.y` is no name; plain words are not")
	if got := fmt.Sprint(n.Names); got != "[polyval pairplot]" {
		t.Errorf("names = %s", got)
	}
}

func TestMentionTargets(t *testing.T) {
	nodes := []node{
		{ID: "xarray/core/nanops.py", Label: "File", FilePath: "xarray/core/nanops.py"},
		{ID: "xarray/core/nanops.py#nansum:function", Name: "nansum", Label: "Function", FilePath: "xarray/core/nanops.py"},
		{ID: "astropy/io/fits/header.py#Header.fromstring:method", Name: "fromstring", Label: "Method", FilePath: "astropy/io/fits/header.py"},
		{ID: "astropy/io/fits/card.py#Card.fromstring:method", Name: "fromstring", Label: "Method", FilePath: "astropy/io/fits/card.py"},
		{ID: "astropy/units/decorators.py#quantity_input:function", Name: "quantity_input", Label: "Function", FilePath: "astropy/units/decorators.py"},
	}
	for _, c := range []struct {
		q    string
		want string
	}{
		{"see .../blob/abc/xarray/core/nanops.py", "[xarray/core/nanops.py]"},
		{"Header.fromstring breaks", "[astropy/io/fits/header.py#Header.fromstring:method]"},
		{"units.quantity_input with a return annotation", "[astropy/units/decorators.py#quantity_input:function]"},
		{"nothing.here or other.py", "[]"},
		{"`nansum` drops the attrs", "[xarray/core/nanops.py#nansum:function]"},
		{"xr.nansum is wrong", "[xarray/core/nanops.py#nansum:function]"}, // a package alias: the module-level symbol
	} {
		var got []string
		for _, i := range mentionTargets(nodes, parseMentions(c.q)) {
			got = append(got, nodes[i].ID)
		}
		if fmt.Sprint(got) != c.want && !(c.want == "[]" && len(got) == 0) {
			t.Errorf("%q: targets %v, want %s", c.q, got, c.want)
		}
	}
}

func TestParseLead(t *testing.T) {
	// "where" is a stop word; the lead keeps the words the search uses.
	q := Parse("xr.where drops attributes\n\nUsing it on a DataArray loses the attrs.")
	if got := fmt.Sprint(q.Lead); got != "[xr drops attributes]" {
		t.Errorf("lead = %s (words %v)", got, q.Words)
	}
	if q := Parse("one line only"); len(q.Lead) != 0 {
		t.Errorf("a one-line query has no lead: %v", q.Lead)
	}
}

func TestSystemMeansSys(t *testing.T) {
	// kernel syscalls are sys_read, sys_write: "read system call" must reach them
	if q := Parse("system read"); !contains(q.Words, "sys") {
		t.Errorf("words %v lack sys", q.Words)
	}
	// and "system call" is a syscall (their search text says so:
	// SYSCALL_DEFINEn), not a system and a call; inside one identifier
	// (system_call_exception) it stays a name
	if q := Parse("read system call"); !reflect.DeepEqual(q.Words, []string{"read", "syscall"}) {
		t.Errorf("read system call: words %v, want [read syscall]", q.Words)
	}
	if q := Parse("system_call_exception"); !contains(q.Words, "system") || !contains(q.Words, "call") || contains(q.Words, "syscall") {
		t.Errorf("system_call_exception: words %v", q.Words)
	}
}
