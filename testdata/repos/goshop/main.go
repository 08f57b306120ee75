// Command goshop serves orders over HTTP.
package main

import (
	"log"
	"net/http"

	"example.com/goshop/server"
	"example.com/goshop/store"
)

func main() {
	db := store.Open("orders.db")
	s := server.New(db)
	http.HandleFunc("/orders", s.HandleOrder)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
