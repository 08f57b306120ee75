package server

import (
	"errors"
	"log"

	"example.com/goshop/store"
)

// audit logs a saved order. It is a method of Server declared in another file.
func (s *Server) audit(o store.Order) {
	log.Printf("saved %s (valid: %v)", o.ID, validate(o) == nil)
}

func validate(o store.Order) error {
	if o.ID == "" {
		return errors.New("missing id")
	}
	return nil
}
