package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Answers and their schemas. Every tool's Input and Output struct has a JSON
// schema derived from it and then made plain, because strict clients (the
// MCP Inspector's --strict) refuse what the generator emits for Go's
// nil-able types:
//
//   - `type: ["null", T]` (slices and pointers) becomes `type: T`. Output
//     values are normalized to match (Answer): a null array becomes [],
//     any other null property is left out (and is not required).
//   - a bare `true` schema (an `any` value) becomes anyOf one branch per
//     JSON type.
//   - every integer input property gets `minimum: 0` (0 means "default"
//     wherever the tools take a count or a depth), so `limit: -5` is
//     refused with a clear message before a tool runs.
//
// Answer is what both front ends print: the MCP server returns it as a
// tool's structured content, and `gitnexus X --json` prints it, so the two
// are the same JSON.

// InputSchema is the plain schema of a tool's input type T.
func InputSchema[T any]() (*jsonschema.Schema, error) { return plainSchema(reflect.TypeFor[T](), true) }

// OutputSchema is the plain schema of a tool's output type T, the one
// Answer normalizes to (cached per type).
func OutputSchema[T any]() (*jsonschema.Schema, error) { return outputSchema(reflect.TypeFor[T]()) }

func outputSchema(t reflect.Type) (*jsonschema.Schema, error) {
	if s, ok := outSchemas.Load(t); ok {
		return s.(*jsonschema.Schema), nil
	}
	s, err := plainSchema(t, false)
	if err != nil {
		return nil, err
	}
	outSchemas.Store(t, s)
	return s, nil
}

var outSchemas sync.Map // reflect.Type → *jsonschema.Schema

// Answer turns a tool's output into the JSON value its plain output schema
// describes (null arrays become [], other null properties are dropped): the
// one JSON form of every answer, printed by the CLI and returned by MCP.
func Answer(out any) (any, error) {
	if out == nil {
		return nil, nil
	}
	s, err := outputSchema(reflect.TypeOf(out))
	if err != nil {
		return nil, err
	}
	return PlainValue(out, s)
}

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

// plainSchema derives t's schema and makes it plain; input says whether it
// is an input schema (integers get minimum 0).
func plainSchema(t reflect.Type, input bool) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %v: %w", t, err)
	}
	plain(s, input)
	return s, nil
}

// isEmpty reports a schema that marshals as a bare `true`. A schema with
// a type, properties, items or a reference does not, and is told at once:
// marshalling every subtree at every level took a one-shot CLI command
// 4 ms of its 40.
func isEmpty(s *jsonschema.Schema) bool {
	if s.Type != "" || len(s.Types) > 0 || len(s.Properties) > 0 || s.Items != nil || s.Ref != "" {
		return false
	}
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

// PlainValue turns a tool's output into the JSON value its plain schema
// describes: null arrays become [], other null properties are dropped.
func PlainValue(v any, s *jsonschema.Schema) (any, error) {
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
