package mcp

// Attacks on the transports, the way a prompt-injected client would send
// them: garbage lines, batches, odd ids, missing "jsonrpc", stdin closed
// right after a request, bad arguments, and on HTTP a lower-case bearer
// scheme and foreign origins. Each case states the protocol's answer.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// reply is one line the server wrote, kept raw so ids are compared byte
// for byte.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

// runStdio feeds lines to `gitnexus mcp` in dir, closes stdin, and returns
// every line it wrote and its exit error.
func runStdio(t *testing.T, env []string, dir string, lines []string) ([]reply, error) {
	t.Helper()
	c := exec.Command(binary, "mcp")
	c.Dir, c.Env = dir, env
	c.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	var replies []reply
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r reply
		if jerr := json.Unmarshal(sc.Bytes(), &r); jerr != nil {
			t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
			continue
		}
		r.line = sc.Text()
		replies = append(replies, r)
	}
	if err != nil {
		err = fmt.Errorf("%w; stderr: %s", err, stderr.String())
	}
	return replies, err
}

func byID(replies []reply, id string) *reply {
	for i := range replies {
		if string(replies[i].ID) == id {
			return &replies[i]
		}
	}
	return nil
}

func TestStdioHostileLines(t *testing.T) {
	w := newWorld(t)
	huge := "123456789012345678901234567890"
	cases := []struct {
		line string
		id   string // the id the answer must carry ("null" when none can be told)
		code int64  // 0: a result
	}{
		{`this is not json`, "null", jsonrpc.CodeParseError},
		{"\x00\x01\xff{", "null", jsonrpc.CodeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, "null", jsonrpc.CodeParseError},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, "null", jsonrpc.CodeInvalidRequest},
		{`[]`, "null", jsonrpc.CodeInvalidRequest},
		{`42`, "null", jsonrpc.CodeInvalidRequest},
		{`{"id":3,"method":"ping"}`, "3", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, "4", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":[5],"method":"ping"}`, "null", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "null", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":6,"method":7}`, "6", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}`, "8", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":9,"method":"no/such/method"}`, "9", jsonrpc.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":` + huge + `,"method":"ping"}`, huge, 0},
		{`{"jsonrpc":"2.0","id":-` + huge + `,"method":"ping"}`, "-" + huge, 0},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, "9007199254740993", 0},
		{`{"jsonrpc":"2.0","id":"s","method":"ping"}`, `"s"`, 0},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"list_repos","arguments":{"limit":-5}}}`, "10", 0},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"query","arguments":{"search_query":"order","limit":null}}}`, "11", 0},
		{`{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"gitnexus://repo/nope/context"}}`, "12", jsonrpc.CodeInvalidParams},
		{`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"context","arguments":{"name":"validate"}}}`, `"last"`, 0},
	}
	lines := []string{initLine, initializedLine, "", "   "}
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	replies, err := runStdio(t, w.env(), w.repo, lines)
	if err != nil {
		t.Fatalf("server exited with an error: %v", err)
	}
	if r := byID(replies, `"init"`); r == nil || r.Result == nil {
		t.Fatalf("no initialize result in %v", replies)
	}
	nullAnswers := 0
	for _, c := range cases {
		if c.id == "null" {
			nullAnswers++
			continue
		}
		r := byID(replies, c.id)
		switch {
		case r == nil:
			t.Errorf("%s: no answer with id %s", c.line, c.id)
		case c.code == 0 && r.Error != nil:
			t.Errorf("%s: error %d %s, want a result", c.line, r.Error.Code, r.Error.Message)
		case c.code != 0 && (r.Error == nil || r.Error.Code != c.code):
			t.Errorf("%s: answer %s, want error code %d", c.line, r.line, c.code)
		}
	}
	// Answers that cannot name their request carry id null, one per line.
	var nulls []int64
	for _, r := range replies {
		if string(r.ID) == "null" {
			if r.Error == nil {
				t.Errorf("id null without an error: %s", r.line)
				continue
			}
			nulls = append(nulls, r.Error.Code)
		}
	}
	if len(nulls) != nullAnswers {
		t.Errorf("%d answers with id null, want %d: %v", len(nulls), nullAnswers, nulls)
	}
	want := map[int64]int{}
	for _, c := range cases {
		if c.id == "null" {
			want[c.code]++
		}
	}
	for _, code := range nulls {
		want[code]--
	}
	for code, n := range want {
		if n != 0 {
			t.Errorf("id-null answers with code %d off by %d", code, n)
		}
	}
	// Tool-level answers: a negative limit is refused by name, null is the
	// default.
	if r := byID(replies, "10"); r != nil && !strings.Contains(string(r.Result), `limit must be 0 or more`) {
		t.Errorf("limit -5: %s", r.line)
	}
	if r := byID(replies, "11"); r != nil && (strings.Contains(string(r.Result), `"isError":true`) || strings.Contains(r.line, "invalid reflect")) {
		t.Errorf("limit null: %s", r.line)
	}
	if r := byID(replies, `"last"`); r != nil && strings.Contains(string(r.Result), `"isError":true`) {
		t.Errorf("a valid call after the garbage failed: %s", r.line)
	}
}

// TestStdioEOFAnswersEverything closes stdin right after the last request,
// 20 times: every request must be answered before the server exits.
func TestStdioEOFAnswersEverything(t *testing.T) {
	w := newWorld(t)
	lines := []string{initLine, initializedLine,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":{"search_query":"order payment"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"impact","arguments":{"target":"validate","direction":"upstream"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cypher","arguments":{"statement":"MATCH (n:Function) RETURN count(n)"}}}`,
	}
	for run := range 20 {
		replies, err := runStdio(t, w.env(), w.repo, lines)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for _, id := range []string{`"init"`, "1", "2", "3", "4"} {
			if r := byID(replies, id); r == nil || r.Result == nil {
				t.Errorf("run %d: request %s unanswered or failed (%d lines)", run, id, len(replies))
			}
		}
	}
}

// TestLineTransportInProcess runs the framing over in-process pipes: the
// SDK's own client still works through it, and an oversized line is
// refused without ending the session.
func TestLineTransportInProcess(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	s := New(Options{Cwd: t.TempDir()})
	defer s.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), inR, outW) }()
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(line string) {
		if _, err := inW.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	next := func() string {
		if !sc.Scan() {
			t.Fatalf("no answer: %v", sc.Err())
		}
		return sc.Text()
	}
	send(initLine)
	if l := next(); !strings.Contains(l, `"id":"init"`) {
		t.Fatalf("initialize: %s", l)
	}
	send(initializedLine)
	send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxLine) + `"}}`)
	if l := next(); !strings.Contains(l, `"code":-32600`) || !strings.Contains(l, `"id":null`) {
		t.Errorf("oversized line: %s", l)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if l := next(); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("ping after an oversized line: %s", l)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeIO after EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeIO did not return after EOF")
	}
}

// TestToolSchemasPlain walks every tool's input and output schema: no
// `type` array (nullable types) and no bare boolean schema may appear
// (the MCP Inspector's --strict refuses both), and every tool says it is
// read-only and idempotent.
func TestToolSchemasPlain(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	cs := connect(ctx, t, New(Options{Cwd: t.TempDir()}))
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed.Tools) < 7 {
		t.Fatalf("%d tools", len(listed.Tools))
	}
	for _, tl := range listed.Tools {
		a := tl.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint {
			t.Errorf("%s: annotations %+v, want readOnlyHint and idempotentHint", tl.Name, a)
		}
		for kind, sch := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			data, err := json.Marshal(sch)
			if err != nil || sch == nil {
				t.Fatalf("%s %s schema: %v", tl.Name, kind, err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			for _, p := range badSchemaParts(v, "#") {
				t.Errorf("%s %s schema: %s", tl.Name, kind, p)
			}
		}
	}
}

// badSchemaParts lists type arrays, bare boolean schemas (except
// additionalProperties: false, which strict validators accept) and
// schemas without any validation keyword, as the MCP Inspector's --strict
// does.
func badSchemaParts(v any, path string) []string {
	var bad []string
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if _, ok := m["type"].([]any); ok {
		bad = append(bad, path+"/type is an array")
	}
	constrained := false
	for _, k := range []string{"type", "anyOf", "oneOf", "allOf", "enum", "const", "$ref"} {
		if _, ok := m[k]; ok {
			constrained = true
		}
	}
	if !constrained {
		bad = append(bad, path+" has no validation keyword (a bare true in object form)")
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if l, ok := m[k].([]any); ok {
			for i, s := range l {
				bad = append(bad, badSchemaParts(s, fmt.Sprintf("%s/%s/%d", path, k, i))...)
			}
		}
	}
	check := func(p string, s any) {
		if b, ok := s.(bool); ok {
			if !(b == false && strings.HasSuffix(p, "/additionalProperties")) {
				bad = append(bad, fmt.Sprintf("%s is a bare %v", p, b))
			}
			return
		}
		bad = append(bad, badSchemaParts(s, p)...)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, s := range props {
			check(path+"/properties/"+k, s)
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if s, ok := m[k]; ok {
			check(path+"/"+k, s)
		}
	}
	return bad
}

// TestResourceErrorCodes: a resource's error carries a JSON-RPC code, not 0.
func TestResourceErrorCodes(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	cs := connect(ctx, t, New(Options{Cwd: t.TempDir()}))
	for _, uri := range []string{"gitnexus://repo/nope/context", "gitnexus://repo/%2Fetc/schema", "gitnexus://repo/x/nothing"} {
		_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code == 0 {
			t.Errorf("%s: error %v, want a JSON-RPC error with a code", uri, err)
		}
	}
}

func TestHTTPBearerAndOrigin(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	s := New(Options{Cwd: t.TempDir()})
	defer s.Close()
	ts := httptest.NewServer(s.HTTPHandler("s3cret", "https://app.example"))
	defer ts.Close()
	post := func(auth, origin string) (int, string) {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initLine))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String()
	}
	cases := []struct {
		auth, origin string
		want         int
	}{
		{"bearer s3cret", "", http.StatusOK},
		{"BEARER s3cret", "", http.StatusOK},
		{"Bearer   s3cret ", "", http.StatusOK},
		{"Bearer s3cret", "http://localhost:3000", http.StatusOK},
		{"Bearer s3cret", "http://127.0.0.1:6274", http.StatusOK},
		{"Bearer s3cret", "http://[::1]:6274", http.StatusOK},
		{"Bearer s3cret", "https://app.example", http.StatusOK},
		{"Bearer s3cret", "https://evil.example", http.StatusForbidden},
		{"Bearer s3cret", "http://localhost.evil.example", http.StatusForbidden},
		{"Bearer s3cret", "null", http.StatusForbidden},
		{"", "https://evil.example", http.StatusForbidden},
		{"Basic s3cret", "", http.StatusUnauthorized},
		{"bearer wrong", "", http.StatusUnauthorized},
		{"bearer", "", http.StatusUnauthorized},
		{"s3cret", "", http.StatusUnauthorized},
	}
	for _, c := range cases {
		if got, body := post(c.auth, c.origin); got != c.want {
			t.Errorf("Authorization %q Origin %q: status %d, want %d (%s)", c.auth, c.origin, got, c.want, body)
		} else if got == http.StatusForbidden && !strings.Contains(body, `"code":-32600`) {
			t.Errorf("Origin %q: refusal body %q is not a JSON-RPC error", c.origin, body)
		}
	}
}

// TestHTTPMalformed: the streamable HTTP transport gives malformed
// messages the protocol's answers (as JSON-RPC errors, not plain text),
// refuses ids it could not echo exactly, and keeps serving.
func TestHTTPMalformed(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	s := New(Options{Cwd: t.TempDir()})
	defer s.Close()
	ts := httptest.NewServer(s.HTTPHandler(""))
	defer ts.Close()
	cases := []struct {
		body   string
		status int
		id     string
		code   int64
	}{
		{`garbage`, 400, "null", jsonrpc.CodeParseError},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 400, "null", jsonrpc.CodeInvalidRequest},
		{`{"id":3,"method":"ping"}`, 400, "3", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, 400, "null", jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, 400, "null", jsonrpc.CodeInvalidRequest},
		{initLine, 200, "", 0},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.body, resp.StatusCode, c.status, body)
			continue
		}
		if c.code == 0 {
			continue
		}
		var r reply
		if err := json.Unmarshal(body, &r); err != nil || r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id {
			t.Errorf("%s: answer %s, want code %d id %s", c.body, body, c.code, c.id)
		}
	}
}

// TestLineTransportDrain closes the input right after a burst of calls,
// in process (so the race detector sees the framing): every call is
// answered before ServeIO returns.
func TestLineTransportDrain(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	for run := range 20 {
		s := New(Options{Cwd: t.TempDir()})
		lines := []string{initLine, initializedLine}
		for i := range 10 {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_repos","arguments":{}}}`, i),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
		}
		in := io.NopCloser(strings.NewReader(strings.Join(lines, "\n")))
		var out lockedBuffer
		if err := s.ServeIO(context.Background(), in, &out); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		s.Close()
		got := out.String()
		for i := range 10 {
			for _, id := range []string{fmt.Sprintf(`"id":%d,`, i), fmt.Sprintf(`"id":"p%d",`, i)} {
				if !strings.Contains(got, id) {
					t.Errorf("run %d: no answer with %s", run, id)
				}
			}
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
