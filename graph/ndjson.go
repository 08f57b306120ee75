package graph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
)

// rowFile is one NDJSON file of rows for one COPY: a node table, or one
// FROM/TO pair of a rel table. Kuzu 0.11.3 reads newline-delimited JSON only
// from files named *.json ("*.ndjson" is refused as an unknown file type).
type rowFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	rows int
	// text is the row texts' file beside a symbol table's rows (textFile):
	// nil for every other table.
	text *textFile
	// bytes is the size of the file; groupBytes the bytes of the rows of
	// the current node group (nodeGroupRows rows each, in file order) and
	// maxGroup the largest group's bytes: what Kuzu's node COPY holds in its
	// buffer pool at once (see copyPool).
	bytes, groupBytes, maxGroup int64
}

func createRowFile(path string) (*rowFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create row file: %w", err)
	}
	return &rowFile{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (r *rowFile) write(line []byte) error {
	if _, err := r.w.Write(line); err != nil {
		return fmt.Errorf("write %s: %w", r.path, err)
	}
	r.rows++
	r.bytes += int64(len(line))
	r.groupBytes += int64(len(line))
	if r.groupBytes > r.maxGroup {
		r.maxGroup = r.groupBytes
	}
	if r.rows%nodeGroupRows == 0 {
		r.groupBytes = 0
	}
	return nil
}

// close flushes and closes the file (and its text file). Safe to call
// twice.
func (r *rowFile) close() error {
	if r.f == nil {
		return nil
	}
	err := r.w.Flush()
	if r.text != nil {
		if terr := r.text.close(); err == nil {
			err = terr
		}
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.f = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", r.path, err)
	}
	return nil
}

// encodeRow is the NDJSON line of v (a record struct), newline included.
//
// Kuzu stores strings as C strings: a NUL byte ends the value there. Strings
// holding NUL are therefore stored with the NULs removed (json escapes them
// as \u0000, which is how they are detected). Invalid UTF-8 is replaced by
// U+FFFD by encoding/json. Every other string, "" included, round-trips
// exactly; "" stays "" (not NULL) in Kuzu's JSON reader.
func encodeRow(v any) ([]byte, error) {
	line, err := marshalLine(v)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(line, []byte(`\u0000`)) {
		rv := reflect.New(reflect.TypeOf(v)).Elem()
		rv.Set(reflect.ValueOf(v))
		stripNUL(rv)
		if line, err = marshalLine(rv.Interface()); err != nil {
			return nil, err
		}
	}
	return line, nil
}

func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b.Bytes(), nil
}

// stripNUL removes NUL bytes from every string in the addressable struct or
// slice rv.
func stripNUL(rv reflect.Value) {
	switch rv.Kind() {
	case reflect.String:
		if rv.CanSet() && strings.IndexByte(rv.String(), 0) >= 0 {
			rv.SetString(strings.ReplaceAll(rv.String(), "\x00", ""))
		}
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			stripNUL(rv.Field(i))
		}
	case reflect.Slice:
		if rv.Len() > 0 && rv.Type().Elem().Kind() == reflect.String {
			cp := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
			reflect.Copy(cp, rv)
			for i := 0; i < cp.Len(); i++ {
				stripNUL(cp.Index(i))
			}
			if rv.CanSet() {
				rv.Set(cp)
			}
		}
	}
}
