package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool schemas are derived from the tools package's Input and Output
// structs and then made plain, because strict clients (the MCP Inspector's
// --strict) refuse what the generator emits for Go's nil-able types:
//
//   - `type: ["null", T]` (slices and pointers) becomes `type: T`. Output
//     values are normalized to match (plainValue): a null array becomes
//     [], any other null property is left out (and is not required).
//   - a bare `true` schema (an `any` value) becomes anyOf one branch per
//     JSON type.
//   - every integer input property gets `minimum: 0` (0 means "default"
//     wherever the tools take a count or a depth), so `limit: -5` is
//     refused with a clear message before a handler runs.

// checkArguments is receiving middleware in front of every tool call:
//
//   - an argument given as null means "not given" (the tools' zero value,
//     their default), so `limit: null` is the default limit rather than a
//     decoding error;
//   - a negative integer where the input schema has `minimum: 0` is
//     refused with a message naming the argument (the schema validator's
//     own message prints fractions).
func (s *Server) checkArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		r, ok := req.(*sdk.CallToolRequest)
		if !ok || r.Params == nil || len(r.Params.Arguments) == 0 {
			return next(ctx, method, req)
		}
		var args map[string]json.RawMessage
		if json.Unmarshal(r.Params.Arguments, &args) != nil {
			return next(ctx, method, req) // the SDK reports it
		}
		changed := false
		for k, v := range args {
			v = bytes.TrimSpace(v)
			if string(v) == "null" {
				delete(args, k)
				changed = true
				continue
			}
			schema := s.inputSchemas[r.Params.Name]
			if schema == nil || schema.Properties[k] == nil || schema.Properties[k].Type != "integer" || len(v) == 0 || v[0] != '-' {
				continue
			}
			var res sdk.CallToolResult
			res.SetError(fmt.Errorf("%s must be 0 or more (0 or absent: the default), got %s", k, v))
			return &res, nil
		}
		if changed {
			if data, err := json.Marshal(args); err == nil {
				r.Params.Arguments = data
			}
		}
		return next(ctx, method, req)
	}
}
