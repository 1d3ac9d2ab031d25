// Package server exposes the inventory over HTTP.
package server

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Store is the minimal storage the handlers need.
type Store interface {
	Get(sku string) (int, bool)
}

// Server wires a Store to HTTP handlers.
type Server struct {
	store Store
	name  string
}

// NewServer builds a server around a store.
func NewServer(store Store, name string) *Server {
	return &Server{store: store, name: name}
}

// HandleGet answers GET /stock?sku=... with the stock level.
func (s *Server) HandleGet(w http.ResponseWriter, r *http.Request) {
	sku := r.URL.Query().Get("sku")
	if sku == "" {
		http.Error(w, "missing sku", http.StatusBadRequest)
		return
	}
	qty, ok := s.store.Get(sku)
	if !ok {
		http.Error(w, fmt.Sprintf("unknown sku %q", sku), http.StatusNotFound)
		return
	}
	payload := map[string]interface{}{"sku": sku, "quantity": qty, "server": s.name}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(payload); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Println("served", sku)
}

// Name reports the server name.
func (s *Server) Name() string {
	return s.name
}
