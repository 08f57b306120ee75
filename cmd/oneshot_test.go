package cmd

import "testing"

func TestOneShot(t *testing.T) {
	for args, want := range map[string][]string{
		"query":          {"query", "parse config"},
		"query -r":       {"-r", "gin", "query", "x", "--json"},
		"context":        {"context", "Open"},
		"analyze":        {"analyze", "."},
		"mcp":            {"mcp"},
		"nothing":        {},
		"unknown":        {"frobnicate"},
		"model pull":     {"model", "pull"},
		"impact --depth": {"impact", "x", "--depth", "2"},
	} {
		got := OneShot(want)
		exp := args == "query" || args == "query -r" || args == "context" || args == "impact --depth"
		if got != exp {
			t.Errorf("OneShot(%q) = %v, want %v", want, got, exp)
		}
	}
}
