package oracle

import "sync"

var (
	fixtureOnce    sync.Once
	fixtureGraph   *Graph
	fixtureBuilder *builder
	fixtureErr     error
)
