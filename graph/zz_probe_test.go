package graph

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestZZProbe(t *testing.T) {
	src := os.Getenv("PROBE_DB")
	if src == "" {
		t.Skip()
	}
	ctx := context.Background()
	dst := "/tmp/probe/db.kuzu"
	os.RemoveAll(dst)
	os.Remove(dst + ".wal")
	if _, err := copySummed(src, dst, true, nil); err != nil {
		t.Fatal(err)
	}
	db, err := openKuzu(dst, systemConfig(256<<20, 2, false))
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := kuzu.OpenConnection(db)
	res, err := run(ctx, conn, "MATCH (n:Function) WHERE n.filePath STARTS WITH 'pkg/kubelet/' RETURN n.id, n.filePath LIMIT 200", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := collect(res, 0)
	res.Close()
	ids := []string{}
	for _, row := range r.Rows {
		ids = append(ids, row[0].(string))
	}
	mode := os.Getenv("PROBE_MODE")
	t0 := time.Now()
	var stmt string
	switch mode {
	case "int":
		stmt = fmt.Sprintf("MATCH (n:Function {id: %s}) SET n.startLine = 7", schema.Quote(ids[5]))
	case "content":
		stmt = fmt.Sprintf("MATCH (n:Function {id: %s}) SET n.content = 'func x() { changed }'", schema.Quote(ids[5]))
	case "longer":
		stmt = fmt.Sprintf("MATCH (n:Function {id: %s}) SET n.content = n.content + ' and a longer tail to it'", schema.Quote(ids[5]))
	case "create":
		stmt = "CREATE (n:Function {id: 'zz#x:function', content: 'func x() {}', filePath: 'zz'})"
	case "edge":
		stmt = fmt.Sprintf("MATCH (a:Function {id: %s}), (b:Function {id: %s}) CREATE (a)-[:CALLS {line: 1, confidence: 0.5, reason: 'x', step: 0}]->(b)", schema.Quote(ids[5]), schema.Quote(ids[6]))
	case "deledge":
		stmt = fmt.Sprintf("MATCH (a:Function {id: %s})-[r:CALLS]->() DELETE r", schema.Quote(ids[5]))
	case "none":
		stmt = "RETURN 1"
	}
	if err := exec(ctx, conn, stmt); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if err := exec(ctx, conn, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(dst)
	t.Logf("mode=%s stmt %v checkpoint %v size %d", mode, t1.Sub(t0), time.Since(t1), fi.Size())
	conn.Close()
	db.Close()
}
