package oracle

import "sync"

var (
	fixtureOnce  sync.Once
	fixtureGraph *Graph
	fixtureErr   error
)
