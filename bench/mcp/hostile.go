package main

// Hostile calls for the soak (-hostile N): what a prompt-injected client
// can send. Raw lines go straight to the server's stdin (the SDK client
// cannot send them); their answers are taken out of the server's stdout
// before the client reads it, counted, and checked to be errors.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawLines writes lines to the server's stdin between the client's
// messages and counts the answers to them.
type rawLines struct {
	mu    sync.Mutex
	stdin io.WriteCloser
	sent  int
	got   int
	wrong int
	first string
}

// Write is the client's side of stdin: one whole message per call (the
// SDK writes each message with one Write), never inside a raw line.
func (r *rawLines) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdin.Write(p)
}

func (r *rawLines) Close() error { return r.stdin.Close() }

func (r *rawLines) send(line string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent++
	_, err := r.stdin.Write([]byte(line + "\n"))
	return err
}

// answered returns how many raw lines were answered, waiting briefly for
// the last ones.
func (r *rawLines) answered() int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		r.mu.Lock()
		got, sent := r.got, r.sent
		r.mu.Unlock()
		if got >= sent || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// isHostileAnswer reports whether a line of the server's output answers
// a raw hostile line: id null, a "hostile-" string id, or a huge integer.
func isHostileAnswer(line []byte) (bool, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Error  json.RawMessage `json:"error"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "" {
		return false, false
	}
	id := string(bytes.TrimSpace(m.ID))
	switch {
	case id == "null" || strings.HasPrefix(id, `"hostile-`):
		return true, len(m.Error) > 0 // must be an error
	case len(id) >= 20 && strings.Trim(id, "-0123456789") == "":
		return true, len(m.Error) == 0 // a valid ping with a huge id: a result
	}
	return false, false
}

// connectRaw spawns the server with the client's stdio going through a
// rawLines and a filter of its output.
func connectRaw(ctx context.Context, argv []string) (*sdk.ClientSession, *exec.Cmd, *rawLines, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if serverStderr != nil {
		cmd.Stderr = serverStderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	raw := &rawLines{stdin: stdin}
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if hostile, ok := isHostileAnswer(line); hostile {
					raw.mu.Lock()
					raw.got++
					if !ok {
						raw.wrong++
						if raw.first == "" {
							raw.first = string(bytes.TrimSpace(line))
						}
					}
					raw.mu.Unlock()
				} else if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &sdk.IOTransport{Reader: pr, Writer: raw}, nil)
	if err != nil {
		cmd.Process.Kill()
		return nil, nil, nil, err
	}
	return cs, cmd, raw, nil
}

// hostileCall sends the n-th hostile input and returns "" when the
// server answered it as it must (raw lines are checked as their answers
// arrive), else what went wrong.
func hostileCall(ctx context.Context, cs *sdk.ClientSession, raw *rawLines, repo string, n int) string {
	withRepo := func(a map[string]any) map[string]any {
		if repo != "" {
			a["repo"] = repo
		}
		return a
	}
	switch n % 13 {
	case 0:
		return sendRaw(raw, "this is not JSON {{{")
	case 1:
		return sendRaw(raw, fmt.Sprintf(`[{"jsonrpc":"2.0","id":"hostile-%d","method":"ping"}]`, n))
	case 2:
		return sendRaw(raw, fmt.Sprintf(`{"id":"hostile-%d","method":"ping"}`, n))
	case 3:
		return sendRaw(raw, fmt.Sprintf(`{"jsonrpc":"2.0","id":{"n":%d},"method":"ping"}`, n))
	case 4:
		return sendRaw(raw, fmt.Sprintf(`{"jsonrpc":"2.0","id":1234567890123456789012345%05d,"method":"ping"}`, n%100000))
	case 5:
		return sendRaw(raw, "\x00\xff\xfe{\"jsonrpc\":")
	case 6:
		return sendRaw(raw, fmt.Sprintf(`{"jsonrpc":"2.0","id":"hostile-%d","method":7}`, n))
	case 7:
		return wantToolError(ctx, cs, "query", withRepo(map[string]any{"search_query": "router", "limit": -5}), "limit must be 0 or more")
	case 8:
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "context", Arguments: withRepo(map[string]any{"name": "New", "limit": nil})})
		if err != nil {
			return "context limit null: " + err.Error()
		}
		if t := text(res); strings.Contains(t, "invalid reflect") {
			return "context limit null: " + t
		}
		return ""
	case 9:
		return wantToolError(ctx, cs, "query", map[string]any{"search_query": "x", "repo": "/etc"}, "")
	case 10:
		_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/no-such-repo/context"})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code == 0 {
			return fmt.Sprintf("resource of an unknown repo: %v, want a JSON-RPC error with a code", err)
		}
		return ""
	case 11:
		// The cypher attacks of the security report, in turn; the statement
		// that needs gigabytes (each costs ~2 s in the server's child
		// process) one time in twenty.
		switch (n / 13) % 20 {
		case 1:
			return wantToolError(ctx, cs, "cypher", withRepo(map[string]any{"statement": "UNWIND [1] AS `x\\` LOAD FROM \"/etc/passwd\" (file_format=\"csv\", header=false, delim=\":\") RETURN column1"}), "statement refused")
		case 2:
			return wantToolError(ctx, cs, "cypher", withRepo(map[string]any{"statement": "RETURN 1 AS `a\\`; CHECKPOINT"}), "statement refused")
		case 3:
			return wantToolError(ctx, cs, "cypher", withRepo(map[string]any{"statement": "RETURN " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)}), "statement refused")
		case 4:
			return wantToolError(ctx, cs, "cypher", withRepo(map[string]any{"statement": "RETURN $p", "params": map[string]any{"p": strings.Repeat("a", 100<<10)}}), "bytes long")
		case 5:
			return wantToolError(ctx, cs, "cypher", withRepo(map[string]any{"statement": "UNWIND range(1, 100000000) AS x RETURN x"}), "too much memory")
		}
		return wantToolError(ctx, cs, "cypher", withRepo(map[string]any{"statement": "CREATE (n:Function {id: 'x'})"}), "")
	default:
		// A 64 KB question: any answer, as long as the server keeps serving.
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "query", Arguments: withRepo(map[string]any{"search_query": strings.Repeat("router ", 9400)})}); err != nil {
			return "64 KB query: " + err.Error()
		}
		return ""
	}
}

func sendRaw(raw *rawLines, line string) string {
	if err := raw.send(line); err != nil {
		return "writing a raw line: " + err.Error()
	}
	return ""
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// wantToolError calls a tool that must answer with a tool error
// (containing want, when set).
func wantToolError(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, want string) string {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Sprintf("%s %v: %v, want a tool error", tool, args, err)
	}
	if !res.IsError || !strings.Contains(text(res), want) {
		return fmt.Sprintf("%s %v: %s, want a tool error %q", tool, args, text(res), want)
	}
	return ""
}

// exited reports whether the process is gone (or a zombie).
func exited(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	if i := bytes.LastIndexByte(data, ')'); i >= 0 && i+2 < len(data) {
		return data[i+2] == 'Z' || data[i+2] == 'X'
	}
	return false
}
