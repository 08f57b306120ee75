//go:build !unix

package query

// ReadPack reads the pack file at path into memory (see readPackFile).
func ReadPack(path string) (*Pack, error) { return readPackFile(path) }

// MapPack is ReadPack where files cannot be mapped.
func MapPack(path string) (*Pack, error) {
	p, err := ReadPack(path)
	if err == nil {
		p.oneShot = true
	}
	return p, err
}

// release is a no-op where files are not mapped.
func (s *section) release() {}
