package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestNormalizeAddr(t *testing.T) {
	cases := []struct {
		in       string
		addr     string
		loopback bool
	}{
		{"8765", "127.0.0.1:8765", true},
		{"127.0.0.1:9", "127.0.0.1:9", true},
		{"localhost:9", "localhost:9", true},
		{"[::1]:9", "[::1]:9", true},
		{":9", ":9", false},
		{"0.0.0.0:9", "0.0.0.0:9", false},
		{"10.1.2.3:9", "10.1.2.3:9", false},
	}
	for _, c := range cases {
		addr, lb, err := NormalizeAddr(c.in)
		if err != nil || addr != c.addr || lb != c.loopback {
			t.Errorf("NormalizeAddr(%q) = %q, %v, %v; want %q, %v", c.in, addr, lb, err, c.addr, c.loopback)
		}
	}
	s := New(Options{})
	defer s.Close()
	if err := s.ServeHTTP(context.Background(), HTTPOptions{Addr: "0.0.0.0:0"}, nil); err != ErrNeedToken {
		t.Errorf("ServeHTTP beyond loopback without a token = %v, want ErrNeedToken", err)
	}
}

func TestHTTPToken(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	s := New(Options{Cwd: t.TempDir()}) // not inside any indexed repo
	defer s.Close()
	ts := httptest.NewServer(s.HTTPHandler("s3cret"))
	defer ts.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func(auth string) int {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(""); c != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", c)
	}
	if c := post("Bearer wrong"); c != http.StatusUnauthorized {
		t.Errorf("wrong token: status %d, want 401", c)
	}
	if c := post("Bearer s3cret"); c != http.StatusOK {
		t.Errorf("right token: status %d, want 200", c)
	}

	// And a real client over streamable HTTP lists the tools.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(listed.Tools) < 7 {
		t.Errorf("tools over HTTP: %v %v", err, listed)
	}
	// No repository is indexed: a clear tool error, not a crash.
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "query", Arguments: map[string]any{"search_query": "x"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "no repository is indexed") {
		t.Errorf("query with no repos: %v %+v", err, res)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
