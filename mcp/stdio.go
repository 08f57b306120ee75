package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine bounds one inbound stdio message (one line of JSON). A longer
// line is answered with an invalid-request error and skipped.
const MaxLine = 8 << 20

// DrainTimeout bounds how long the stdio server, its input closed, waits
// for the answers to requests it already received before it exits.
var DrainTimeout = 5 * time.Second

// LineTransport is the stdio framing in front of the SDK: it reads one
// JSON-RPC message per line and validates it before the SDK sees it, so no
// input ends the session. A line that is not JSON is answered with -32700
// (parse error, id null); a batch, a message without "jsonrpc":"2.0", an
// id that is not a string or an integer, a method that is not a string or
// params that are not an object or array with -32600 (invalid request). An
// integer id outside ±2^53 (which the SDK would corrupt) is carried under a
// private id and echoed back exactly. When the input ends, every request
// received before is answered (within ToolTimeout plus DrainTimeout)
// before the session closes.
type LineTransport struct {
	In  io.ReadCloser
	Out io.Writer
}

// Connect implements sdk.Transport.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{
		out:      t.Out,
		in:       t.In,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		eof:      make(chan struct{}),
		pending:  map[any]bool{},
		idle:     make(chan struct{}, 1),
		aliases:  map[string]json.RawMessage{},
		aliasOf:  map[string]string{},
	}
	go c.readLoop()
	return c, nil
}

type lineConn struct {
	in  io.ReadCloser
	out io.Writer

	incoming chan jsonrpc.Message
	closed   chan struct{} // closed by Close
	eof      chan struct{} // closed when the input ended
	closeMu  sync.Once

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[any]bool               // ids of calls passed to the SDK and not yet answered
	idle    chan struct{}              // signalled when pending empties
	aliases map[string]json.RawMessage // private id → the client's raw id
	aliasOf map[string]string          // the client's raw id → private id
	nextID  int
}

func (c *lineConn) SessionID() string { return "" }

// readLoop reads lines until the input ends, answering malformed ones and
// handing valid ones to Read.
func (c *lineConn) readLoop() {
	defer close(c.eof)
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxLine)
		if tooLong {
			c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxLine))
		} else if len(bytes.TrimSpace(line)) > 0 {
			msg, rid, code, text := c.decode(line)
			if code != 0 {
				c.reply(rid, code, text)
			} else {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				slog.Debug("mcp stdio read", "err", err)
			}
			return
		}
	}
}

// readLine returns the next line without its newline; a line longer than
// max is consumed and reported as tooLong.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// aliasPrefix starts the private ids of aliased calls; clients may not
// use it.
const aliasPrefix = "\x00gitnexus-id-"

// maxSafeID is the largest integer id the SDK carries exactly (it decodes
// ids as float64).
const maxSafeID = 1 << 53

// decode validates one line (checkMessage) and records a call as pending.
func (c *lineConn) decode(line []byte) (jsonrpc.Message, json.RawMessage, int64, string) {
	msg, rid, code, text := checkMessage(line, c.alias)
	if req, ok := msg.(*jsonrpc.Request); ok {
		if req.Method == "notifications/cancelled" {
			req.Params = c.unaliasCancel(req.Params)
		}
		if req.ID.IsValid() {
			c.mu.Lock()
			c.pending[req.ID.Raw()] = true
			c.mu.Unlock()
		}
	}
	return msg, rid, code, text
}

// checkMessage validates one JSON-RPC message. It returns the message for
// the SDK, or the error code and text to answer with and the id to answer
// (raw JSON, nil for null). alias gives an integer id the SDK cannot carry
// exactly (beyond ±2^53) a private string id; without it such ids are
// refused.
func checkMessage(line []byte, alias func(json.RawMessage) string) (jsonrpc.Message, json.RawMessage, int64, string) {
	if !json.Valid(line) {
		return nil, nil, jsonrpc.CodeParseError, "parse error: not a JSON value"
	}
	switch bytes.TrimSpace(line)[0] {
	case '[':
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching): send one message per line"
	case '{':
	default:
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: a message must be a JSON object"
	}
	var w struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	// The id: absent (a notification), a string, or an integer.
	var id jsonrpc.ID
	var rid json.RawMessage // what an error answer echoes
	hasID := len(w.ID) > 0
	if hasID {
		var err error
		id, rid, err = makeID(w.ID, alias)
		if err != nil {
			return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
		}
	}
	if w.JSONRPC == nil || *w.JSONRPC != "2.0" {
		return nil, rid, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	}
	if len(w.Method) == 0 {
		// A response to one of our requests.
		if !hasID || (len(w.Result) > 0) == (len(w.Error) > 0) {
			return nil, nil, jsonrpc.CodeInvalidRequest, `invalid request: neither a request ("method") nor a response ("id" and one of "result", "error")`
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
		}
		return msg, nil, 0, ""
	}
	var method string
	if err := json.Unmarshal(w.Method, &method); err != nil {
		return nil, rid, jsonrpc.CodeInvalidRequest, `invalid request: "method" must be a string`
	}
	if p := bytes.TrimSpace(w.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
		return nil, rid, jsonrpc.CodeInvalidRequest, `invalid request: "params" must be an object or an array`
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, nil, 0, ""
}

// makeID turns the raw id into the SDK's, aliasing integers the SDK cannot
// carry exactly (refusing them when alias is nil).
func makeID(raw json.RawMessage, alias func(json.RawMessage) string) (jsonrpc.ID, json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, nil, fmt.Errorf("bad id: %w", err)
		}
		if strings.HasPrefix(s, aliasPrefix) {
			return jsonrpc.ID{}, nil, errors.New("ids starting with NUL \"gitnexus-id-\" are reserved")
		}
		id, err := jsonrpc.MakeID(s)
		return id, raw, err
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if bytes.ContainsAny(raw, ".eE") {
			return jsonrpc.ID{}, nil, fmt.Errorf("id %s is not an integer (MCP ids are strings or integers)", raw)
		}
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n <= maxSafeID && n >= -maxSafeID {
			id, err := jsonrpc.MakeID(float64(n))
			return id, raw, err
		}
		if alias == nil {
			return jsonrpc.ID{}, nil, fmt.Errorf("integer id %s is beyond ±2^53: use a string or a smaller integer", raw)
		}
		id, err := jsonrpc.MakeID(alias(raw))
		return id, raw, err
	case 'n':
		return jsonrpc.ID{}, nil, errors.New("id must not be null (MCP ids are strings or integers)")
	default:
		return jsonrpc.ID{}, nil, fmt.Errorf("id must be a string or an integer, not %s", kindOf(raw[0]))
	}
}

// alias returns the private id of a raw integer id.
func (c *lineConn) alias(raw json.RawMessage) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := string(raw)
	a, ok := c.aliasOf[key]
	if !ok {
		c.nextID++
		a = fmt.Sprintf("%s%d", aliasPrefix, c.nextID)
		c.aliasOf[key] = a
		c.aliases[a] = append(json.RawMessage(nil), raw...)
	}
	return a
}

func kindOf(b byte) string {
	switch b {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "this"
}

// unaliasCancel rewrites the requestId of a cancellation to the private
// id of an aliased call.
func (c *lineConn) unaliasCancel(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	c.mu.Lock()
	alias, ok := c.aliasOf[string(bytes.TrimSpace(p["requestId"]))]
	c.mu.Unlock()
	if !ok {
		return params
	}
	p["requestId"], _ = json.Marshal(alias)
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// reply writes an error answer of the framing layer itself.
func (c *lineConn) reply(id json.RawMessage, code int64, text string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	e, _ := json.Marshal(struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, text})
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   json.RawMessage `json:"error"`
	}{"2.0", id, e})
	slog.Debug("mcp stdio: refused a message", "code", code, "err", text)
	if err := c.writeLine(data); err != nil {
		slog.Debug("mcp stdio write", "err", err)
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return sdk.ErrConnectionClosed
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Read implements sdk.Connection. After the input ends it returns io.EOF
// only once every call already received has been answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.eof:
	}
	deadline := time.NewTimer(ToolTimeout + DrainTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return nil, io.EOF
		}
		select {
		case <-c.idle:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-deadline.C:
			slog.Warn("mcp stdio: input closed with calls still unanswered", "calls", n)
			return nil, io.EOF
		}
	}
}

// Write implements sdk.Connection, restoring aliased ids.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer c.answered(resp.ID.Raw())
		if s, ok := resp.ID.Raw().(string); ok {
			c.mu.Lock()
			raw, aliased := c.aliases[s]
			if aliased {
				delete(c.aliases, s)
				delete(c.aliasOf, string(raw))
			}
			c.mu.Unlock()
			if aliased {
				var w map[string]json.RawMessage
				if err := json.Unmarshal(data, &w); err != nil {
					return fmt.Errorf("re-encode message: %w", err)
				}
				w["id"] = raw
				if data, err = json.Marshal(w); err != nil {
					return fmt.Errorf("re-encode message: %w", err)
				}
			}
		}
	}
	return c.writeLine(data)
}

func (c *lineConn) answered(id any) {
	c.mu.Lock()
	delete(c.pending, id)
	empty := len(c.pending) == 0
	c.mu.Unlock()
	if empty {
		select {
		case c.idle <- struct{}{}:
		default:
		}
	}
}

// Close implements sdk.Connection.
func (c *lineConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}
