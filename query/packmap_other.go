//go:build !unix

package query

// MapPack is ReadPack where files cannot be mapped.
func MapPack(path string) (*Pack, error) {
	p, err := ReadPack(path)
	if err == nil {
		p.oneShot = true
	}
	return p, err
}
