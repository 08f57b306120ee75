package mcp

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP endpoint.
type HTTPOptions struct {
	// Addr is host:port (a bare port means 127.0.0.1:port).
	Addr string
	// Token, when set, is required as "Authorization: Bearer TOKEN" (the
	// scheme in any case). It must be set for any address that is not
	// loopback.
	Token string
	// AllowOrigins are the browser origins (scheme://host[:port]) allowed
	// besides loopback ones; see CheckOrigin.
	AllowOrigins []string
}

// ErrNeedToken means a non-loopback address was asked for without a token.
var ErrNeedToken = errors.New("serving MCP beyond loopback needs a bearer token: pass --auth-token or set GITNEXUS_MCP_TOKEN")

// NormalizeAddr fills a bare port with 127.0.0.1 and reports whether the
// address is loopback only.
func NormalizeAddr(addr string) (string, bool, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		addr = "127.0.0.1:8765"
	}
	if !strings.Contains(addr, ":") {
		addr = "127.0.0.1:" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, fmt.Errorf("bad --http address %q (want host:port or port): %w", addr, err)
	}
	switch {
	case host == "localhost":
		return net.JoinHostPort(host, port), true, nil
	case host == "":
		return addr, false, nil // every interface
	}
	ip := net.ParseIP(host)
	return addr, ip != nil && ip.IsLoopback(), nil
}

// HTTPHandler serves the server over streamable HTTP, checking the Origin
// header (CheckOrigin) and, when token is set, the bearer token.
func (s *Server) HTTPHandler(token string, allowOrigins ...string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.SDK }, nil)
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := CheckOrigin(r, allowOrigins); err != nil {
			slog.Warn("mcp http: refused a request", "origin", r.Header.Get("Origin"), "err", err)
			httpError(w, http.StatusForbidden, err.Error())
			return
		}
		if token != "" {
			got, ok := bearerToken(r.Header.Get("Authorization"))
			if !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="gitnexus"`)
				httpError(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer <token>")
				return
			}
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, MaxLine+1))
			r.Body.Close()
			if err != nil {
				httpError(w, http.StatusBadRequest, "reading the request: "+err.Error())
				return
			}
			if len(body) > MaxLine {
				httpErrorCode(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxLine))
				return
			}
			// The same checks as on stdio; integer ids beyond ±2^53 are
			// refused (the SDK would answer with a corrupted id).
			if _, rid, code, text := checkMessage(body, nil); code != 0 {
				httpErrorCode(w, http.StatusBadRequest, rid, code, text)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		h.ServeHTTP(w, r)
	})
}

// bearerToken reads "Bearer TOKEN" from an Authorization header; the
// scheme is case-insensitive (RFC 9110 §11.1).
func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// CheckOrigin guards against DNS rebinding and cross-site requests, as the
// MCP transport spec asks: a request without an Origin header (any
// non-browser client) passes, as does one whose Origin is a loopback host
// (localhost, 127.0.0.0/8, ::1) or is listed in allow; any other origin,
// "null" included, is refused.
func CheckOrigin(r *http.Request, allow []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	for _, a := range allow {
		if strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return nil
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("forbidden: Origin %q is not allowed", origin)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("forbidden: Origin %q is not allowed (only loopback origins are, unless listed with --allow-origin)", origin)
}

// httpError answers with a JSON-RPC error without an id, as the transport
// spec allows for refused HTTP requests.
func httpError(w http.ResponseWriter, status int, msg string) {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// httpErrorCode answers a malformed message with its JSON-RPC error (id:
// the request's when it could be read, else null).
func httpErrorCode(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// ServeHTTP listens on opts.Addr and serves until ctx ends. A non-loopback
// address without a token is refused.
func (s *Server) ServeHTTP(ctx context.Context, opts HTTPOptions, ready func(addr string)) error {
	addr, loopback, err := NormalizeAddr(opts.Addr)
	if err != nil {
		return err
	}
	if !loopback && opts.Token == "" {
		return ErrNeedToken
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.HTTPHandler(opts.Token, opts.AllowOrigins...), ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
