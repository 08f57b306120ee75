// Package server has the HTTP handlers.
package server

import (
	"net/http"

	"example.com/goshop/store"
)

// Server handles order requests.
type Server struct {
	db store.Store
}

// New returns a Server backed by db.
func New(db store.Store) *Server {
	return &Server{db: db}
}

// HandleOrder validates and saves one order.
func (s *Server) HandleOrder(w http.ResponseWriter, r *http.Request) {
	o := parseOrder(r)
	if err := validate(o); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.db.SaveOrder(o); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.audit(o)
}

func parseOrder(r *http.Request) store.Order {
	return store.Order{ID: r.URL.Query().Get("id")}
}
