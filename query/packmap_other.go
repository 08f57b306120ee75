//go:build !unix

package query

// MapPack is ReadPack where files cannot be mapped.
func MapPack(path string) (*Pack, error) { return ReadPack(path) }
