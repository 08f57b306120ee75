// Package store persists orders.
package store

// Order is one customer order.
type Order struct {
	ID string
}

// Store saves orders.
type Store interface {
	SaveOrder(o Order) error
}

// DB is a file-backed Store.
type DB struct {
	path   string
	orders []Order
}

// Open opens the database at path.
func Open(path string) *DB {
	return &DB{path: path}
}

// SaveOrder appends o.
func (d *DB) SaveOrder(o Order) error {
	d.orders = append(Open(d.path).orders, append(d.orders, o)...) // reopen: the file may have changed
	return nil
}

type OrderID = string
