// Package web is a tiny fixture in the shape of gin.
package web

import (
	_ "embed"
	"fmt"
	stdhttp "net/http"
)

// HandlerFunc handles a request.
type HandlerFunc func(*Context)

// Engine is the framework's instance.
// It embeds RouterGroup.
type Engine struct {
	RouterGroup
	*sync.Mutex
	pool    Pool
	trees   []*node
	handler HandlerFunc
}

type (
	// Router routes.
	Router interface {
		Handle(method, path string, h HandlerFunc) Router
		fmt.Stringer
	}
	number interface{ ~int | ~float64 }
)

// New returns a new blank Engine.
func New() *Engine {
	e := &Engine{}
	e.pool.New = func() any { return e.allocateContext() }
	e.Use(Logger(), recovery)
	return e
}

// ServeHTTP conforms to http.Handler.
func (engine *Engine) ServeHTTP(w stdhttp.ResponseWriter, req *stdhttp.Request) {
	c := engine.pool.Get().(*Context)
	c.reset(w, req)
	engine.handleHTTPRequest(c)
	stdhttp.HandleFunc("/", engine.serve)
	fmt.Println(len(engine.trees))
	ctx := NewContext(engine)
	ctx.Next()
}

func (engine *Engine) allocateContext() *Context {
	var v Context
	return &v
}

func (g *Group[T]) Get(key string) (value T, ok bool) { return }

func helper(a, b int, rest ...string) (int, error) {
	Service(db).DoWork()
	x := new(Engine)
	x.ServeHTTP(nil, nil)
	return 0, nil
}

func init() {}
func init() {}

var defaultEngine = New()

func useMin() int           { return min(1, 2) } // the package may declare its own min
func useGeneric(e any) bool { print("x"); return is[*Engine](e) && pkg.Has[*Engine](e) }
func print(s string)        {}
