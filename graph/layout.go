package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Layout of an index, all under <repo>/.gitnexus/:
//
//	meta.json            the commit point: names the live DB file
//	lock                 flock'ed by the one analyze that may write
//	db-<stamp>.kuzu      the live Kuzu database (one file, never written after Commit)
//	db-<stamp>.kuzu.pack its search pack (query.Pack), a companion (Build.Attach)
//	db-<stamp>.kuzu.facts its fact cache (ingest.FactCache), a companion too
//	staging-<random>/    a build in progress: NDJSON row files and the new db.kuzu
//	retired-db-<stamp>.kuzu/ a replaced database and its companions, moved out
//	                     at Commit for BuildOptions.Retire to remove (RemoveRetired)
const (
	IndexDirName = ".gitnexus"
	metaFileName = "meta.json"
	lockFileName = "lock"
	stagingGlob  = "staging-*"
	retiredGlob  = "retired-" + dbPrefix + "*"
	dbPrefix     = "db-"
	dbSuffix     = ".kuzu"
)

// IndexDir is the .gitnexus directory of a repository.
func IndexDir(repoRoot string) string { return filepath.Join(repoRoot, IndexDirName) }

// ErrNoIndex means the repository has no committed index.
var ErrNoIndex = errors.New("no gitnexus index")

// ErrSchemaVersion means the index was written with another schema version.
var ErrSchemaVersion = errors.New("index schema version differs")

// Meta is meta.json: what the live index holds and how it was built.
type Meta struct {
	SchemaVersion int       `json:"schemaVersion"`
	ToolVersion   string    `json:"toolVersion"`
	RepoRoot      string    `json:"repoRoot"`
	RepoName      string    `json:"repoName"`
	Commit        string    `json:"commit"`
	Branch        string    `json:"branch"`
	IndexedAt     time.Time `json:"indexedAt"`
	// Build names the executable and the layout of its cached parse
	// results (ingest.FactStamp) that built the index: a re-analyze by the
	// same build over the same files keeps the index (Build.KeepLive).
	// Empty when unknown, and in indexes from an older gitnexus.
	Build string `json:"build,omitempty"`
	// DBFile is the live database, relative to .gitnexus/.
	DBFile string `json:"dbFile"`
	// Counts holds rows actually loaded: nodes by label, edges by rel type.
	// Commit fills it from the load.
	Counts map[string]int `json:"counts"`
	// DroppedEdges counts edges Kuzu refused, by "TYPE:From->To" (an
	// endpoint id that no node has). Commit fills it from the load.
	DroppedEdges map[string]int     `json:"droppedEdges,omitempty"`
	ParseStatus  map[string]int     `json:"parseStatus"`
	Skipped      map[string]int     `json:"skipped"`
	Languages    map[string]int     `json:"languages"`
	Kinds        map[string]int     `json:"kinds"`
	Phases       map[string]float64 `json:"phases"` // seconds
	Embeddings   EmbeddingInfo      `json:"embeddings"`
	// Calls counts call sites by resolution outcome (callSites, resolved,
	// external, dynamic, unresolved).
	Calls map[string]int `json:"calls,omitempty"`
	// Sums holds the size and CRC-32C of the database file and of each
	// companion, by file name in .gitnexus/ (Commit fills it): Open checks
	// the database against it, Verify every file. Absent in indexes from
	// an older gitnexus.
	Sums map[string]FileSum `json:"sums,omitempty"`

	// The per-file maps come last, so that ReadMetaHead can stop before
	// them: on the Linux kernel they are 11 of meta.json's 11.5 MB.

	Files map[string]string `json:"files"` // path → content hash
	// Unresolved names the files with unresolved call sites and how many
	// (callers of symbols they may call are a lower bound).
	Unresolved map[string]int `json:"unresolved,omitempty"`
}

// headStop are the keys of Meta's per-file maps, where ReadMetaHead stops.
var headStop = map[string]bool{"files": true, "unresolved": true}

// EmbeddingInfo says which vectors the index holds (Count 0: none).
type EmbeddingInfo struct {
	Model string `json:"model"`
	Count int    `json:"count"`
	Dim   int    `json:"dim"`
}

// ReadMeta reads <repoRoot>/.gitnexus/meta.json. It returns an error
// wrapping ErrNoIndex when there is none and a *DamageError (ErrDamaged)
// when it is not valid.
func ReadMeta(repoRoot string) (*Meta, error) {
	data, err := readMetaFile(repoRoot)
	if err != nil {
		return nil, err
	}
	if m, ok := decodeMetaFast(data); ok {
		return checkMeta(repoRoot, m)
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &DamageError{Root: repoRoot, File: metaFileName, Reason: err.Error()}
	}
	return checkMeta(repoRoot, &m)
}

// readMetaFile is meta.json's bytes: an error wrapping ErrNoIndex when
// there is none, a *DamageError when it is no regular file of at most
// maxMetaBytes.
func readMetaFile(repoRoot string) ([]byte, error) {
	path := filepath.Join(IndexDir(repoRoot), metaFileName)
	if fi, err := os.Stat(path); err == nil && (!fi.Mode().IsRegular() || fi.Size() > maxMetaBytes) {
		return nil, &DamageError{Root: repoRoot, File: metaFileName, Reason: fmt.Sprintf("not a regular file of at most %d bytes", maxMetaBytes)}
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: run `gitnexus analyze` there first", ErrNoIndex, repoRoot)
	}
	if err != nil {
		return nil, fmt.Errorf("read index metadata: %w", err)
	}
	return data, nil
}

// ReadMetaPaths is ReadMeta for a staleness check (CheckStalePaths): the
// indexed files come back as paths, in meta.json's order, instead of a
// map of their hashes (Files and Unresolved stay nil); on the Linux
// kernel a quarter of ReadMeta's time. Errors as ReadMeta.
func ReadMetaPaths(repoRoot string) (*Meta, []string, error) {
	data, err := readMetaFile(repoRoot)
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	if m, ok := decodeMetaLayout(data, &paths); ok {
		m, err := checkMeta(repoRoot, m)
		return m, paths, err
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, &DamageError{Root: repoRoot, File: metaFileName, Reason: err.Error()}
	}
	paths = slices.Sorted(maps.Keys(m.Files))
	m.Files, m.Unresolved = nil, nil
	checked, err := checkMeta(repoRoot, &m)
	return checked, paths, err
}

// ReadMetaHead reads meta.json up to its per-file maps (Files and
// Unresolved stay nil): what a command needs to find the live database
// and its companions, without decoding a list of every indexed file (a
// fifth of a second on the Linux kernel). Errors as ReadMeta. A meta.json
// written with the maps before other fields (by an older gitnexus) is
// read whole.
func ReadMetaHead(repoRoot string) (*Meta, error) {
	path := filepath.Join(IndexDir(repoRoot), metaFileName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: run `gitnexus analyze` there first", ErrNoIndex, repoRoot)
	}
	if err != nil {
		return nil, fmt.Errorf("read index metadata: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMetaBytes {
		return nil, &DamageError{Root: repoRoot, File: metaFileName, Reason: fmt.Sprintf("not a regular file of at most %d bytes", maxMetaBytes)}
	}
	dec := json.NewDecoder(io.LimitReader(f, maxMetaBytes))
	head := map[string]json.RawMessage{}
	damaged := func(err error) error { return &DamageError{Root: repoRoot, File: metaFileName, Reason: err.Error()} }
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, damaged(fmt.Errorf("not a JSON object (%v)", err))
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, damaged(err)
		}
		key, _ := t.(string)
		if headStop[key] {
			if _, ok := head["sums"]; !ok { // an older layout: the rest may follow the maps
				return ReadMeta(repoRoot)
			}
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, damaged(err)
		}
		head[key] = v
	}
	data, err := json.Marshal(head)
	if err != nil {
		return nil, damaged(err)
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, damaged(err)
	}
	return checkMeta(repoRoot, &m)
}

// checkMeta validates what both readers decoded.
func checkMeta(repoRoot string, m *Meta) (*Meta, error) {
	if m.DBFile == "" || strings.ContainsAny(m.DBFile, `/\`) || !strings.HasPrefix(m.DBFile, dbPrefix) || !strings.HasSuffix(m.DBFile, dbSuffix) {
		return nil, &DamageError{Root: repoRoot, File: metaFileName, Reason: fmt.Sprintf("names no valid database file (%q)", m.DBFile)}
	}
	return m, nil
}

// maxMetaBytes bounds what ReadMeta reads: meta.json lists every indexed
// file (about 100 bytes each), so 1 GiB is some ten million files.
const maxMetaBytes = 1 << 30

// writeMeta replaces meta.json atomically (temp file, fsync, rename, fsync dir).
func writeMeta(repoRoot string, m *Meta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode index metadata: %w", err)
	}
	return writeFileAtomic(filepath.Join(IndexDir(repoRoot), metaFileName), append(data, '\n'))
}

// writeFileAtomic writes data to path through a temp file in the same
// directory and a rename, so readers see the old or the new file, never half.
func writeFileAtomic(path string, data []byte) error {
	return WriteFileAtomic(path, 0o600, data)
}

// WriteFileAtomic writes the concatenation of parts to path through a temp
// file in the same directory (synced, given perm) and a rename, then syncs
// the directory: readers see the old file or the new one, never half, and a
// crash leaves one of them.
func WriteFileAtomic(path string, perm os.FileMode, parts ...[]byte) error {
	return WriteFileAtomicFunc(path, perm, func(w io.Writer) error {
		for _, data := range parts {
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteFileAtomicFunc is WriteFileAtomic of what write writes (to the
// temporary file itself, an *os.File, unbuffered).
func WriteFileAtomicFunc(path string, perm os.FileMode, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	err = f.Chmod(perm)
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// CompanionSuffixes are the files a build may attach to its database
// (Build.Attach): PackSuffix, the search pack, FactsSuffix, the parse
// results the next analyze reuses, ProcsSuffix, the communities and
// processes the next analyze reuses when its call graph is the same,
// SitesSuffix, the call sites' outcomes the next analyze's resolution
// reuses, StatSuffix, the files' hashes under their stats, which spare the
// next analyze reading unchanged files, and RowsSuffix, the row digest the
// next analyze's in-place load compares its rows with (Commit writes it).
var CompanionSuffixes = []string{PackSuffix, FactsSuffix, ProcsSuffix, SitesSuffix, StatSuffix, RowsSuffix}

// StatSuffix names the stat cache beside a database: db-<stamp>.kuzu.stat
// (ingest.StatCache), each file's content hash and line count with the
// inode, size and times it had when read. Alone of the companions it has
// no sum in meta.json: it checks itself (a recfile), only analyze reads
// it, and an analyze that keeps the live index (KeepLive) replaces it, so
// that files touched without a change are not read again and again.
const StatSuffix = ".stat"

// SitesSuffix names the site cache beside a database:
// db-<stamp>.kuzu.sites (resolve's site cache, a recfile), every file's call sites as
// resolved, under the key of the tables they were resolved against.
const SitesSuffix = ".sites"

// ProcsSuffix names the saved communities and processes beside a
// database: db-<stamp>.kuzu.procs (processes.Result.Save, with the key of
// the graph they were found on).
const ProcsSuffix = ".procs"

// FactsSuffix names the fact cache beside a database: db-<stamp>.kuzu.facts
// (ingest.FactCache), every file's parse result keyed by its content hash.
const FactsSuffix = ".facts"

// PackSuffix names the search pack beside a database: db-<stamp>.kuzu.pack.
const PackSuffix = ".pack"

// CompanionPath is the path of the live database's companion file with
// this suffix (which may not exist: an index built by an older gitnexus).
func CompanionPath(repoRoot string, m *Meta, suffix string) string {
	return filepath.Join(IndexDir(repoRoot), m.DBFile+suffix)
}

// dbFiles are the paths of a database file, its WAL/shadow files and its
// companions.
func dbFiles(path string) []string {
	files := []string{path, path + ".wal", path + ".shadow", path + ".lock", path + ".tmp"}
	for _, s := range CompanionSuffixes {
		files = append(files, path+s)
	}
	return files
}

// removeDBFiles removes a database file, its WAL/shadow files and its
// companions.
func removeDBFiles(path string) error {
	var errs []error
	for _, p := range dbFiles(path) {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// isDBFile reports whether name (in .gitnexus/) is a database file or a
// companion of one, and returns the database file's name.
func isDBFile(name string) (string, bool) {
	if !strings.HasPrefix(name, dbPrefix) {
		return "", false
	}
	i := strings.Index(name, dbSuffix)
	if i < 0 {
		return "", false
	}
	return name[:i+len(dbSuffix)], true
}
