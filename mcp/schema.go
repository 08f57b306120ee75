package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
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

// anySchema describes a value of any JSON type without a bare `true` (or
// a schema with no validation keyword, which strict checkers count as
// one): one anyOf branch per JSON type.
func anySchema() *jsonschema.Schema {
	var branches []*jsonschema.Schema
	for _, t := range []string{"string", "number", "boolean", "object", "array", "null"} {
		branches = append(branches, &jsonschema.Schema{Type: t})
	}
	return &jsonschema.Schema{Description: "any JSON value", AnyOf: branches}
}

// plainSchema derives T's schema and makes it plain; input says whether it
// is an input schema (integers get minimum 0).
func plainSchema[T any](input bool) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %T: %w", *new(T), err)
	}
	plain(s, input)
	return s, nil
}

// isEmpty reports a schema that marshals as a bare `true`.
func isEmpty(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "true"
}

func plain(s *jsonschema.Schema, input bool) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		rest := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(rest) == 1 {
			s.Type, s.Types = rest[0], nil
		} else {
			s.Types = rest
		}
	}
	if input && s.Type == "integer" && s.Minimum == nil {
		s.Minimum = new(float64)
	}
	for name, p := range s.Properties {
		nullable := p != nil && slices.Contains(p.Types, "null")
		if p == nil || isEmpty(p) {
			s.Properties[name] = anySchema()
			continue
		}
		plain(p, input)
		if nullable && p.Type != "array" {
			// A nil pointer is left out of the output, so it cannot be required.
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
	}
	if s.Items != nil {
		if isEmpty(s.Items) {
			s.Items = anySchema()
		} else {
			plain(s.Items, input)
		}
	}
	if s.AdditionalProperties != nil {
		if isEmpty(s.AdditionalProperties) {
			s.AdditionalProperties = anySchema()
		} else {
			plain(s.AdditionalProperties, input)
		}
	}
}

// plainValue turns a tool's output into the JSON value its plain schema
// describes: null arrays become [], other null properties are dropped.
func plainValue(v any, s *jsonschema.Schema) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("decode output: %w", err)
	}
	return fixNulls(out, s), nil
}

func fixNulls(v any, s *jsonschema.Schema) any {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case nil:
		if s.Type == "array" {
			return []any{}
		}
		return nil
	case map[string]any:
		for k, e := range x {
			ps := s.Properties[k]
			if ps == nil {
				ps = s.AdditionalProperties
			}
			f := fixNulls(e, ps)
			if f == nil {
				delete(x, k)
			} else {
				x[k] = f
			}
		}
		return x
	case []any:
		for i, e := range x {
			if f := fixNulls(e, s.Items); f != nil {
				x[i] = f
			}
		}
		return x
	}
	return v
}

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
