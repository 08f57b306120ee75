package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/tools"
)

// cypher answers the cypher tool. Statements pass the same gate in process
// (tools.CheckReadOnly: a refusal costs no child); with Options.Exe set the
// admitted statement then runs in a child process, `Exe cypher --json`,
// the CLI command that prints exactly this tool's answer. Why: Kuzu builds
// a statement's whole result before returning it and checks interrupts
// only between chunks of work, so one admitted statement (UNWIND over
// range(1, 100000000)) can take tens of gigabytes before it can be
// stopped. In the child, graph's memory watchdog ends the process past
// graph.DefaultQueryMemory; the server loses one call, never itself or its
// other repositories. Without Exe (tests that run the server in process)
// the statement runs here.
func (s *Server) cypher(ctx context.Context, r *Repo, in tools.CypherInput) (*tools.CypherOutput, error) {
	if s.exe == "" {
		return tools.Cypher(ctx, r.DB, in)
	}
	if err := tools.CheckReadOnly(in.Statement); err != nil {
		return nil, err
	}
	args := []string{"cypher", "--json", "-r", r.Entry.Path}
	if in.Limit > 0 {
		args = append(args, "--limit", strconv.Itoa(in.Limit))
	}
	if len(in.Params) > 0 {
		p, err := json.Marshal(in.Params)
		if err != nil {
			return nil, fmt.Errorf("%w: params: %v", tools.ErrInput, err)
		}
		args = append(args, "--params", string(p))
	}
	args = append(args, "--", in.Statement)
	cmd := exec.CommandContext(ctx, s.exe, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runErr == nil {
		var out tools.CypherOutput
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			return nil, fmt.Errorf("cypher child: decode its answer: %w", err)
		}
		return &out, nil
	}
	var fail struct {
		Error string `json:"error"`
		Code  int    `json:"code"`
	}
	if json.Unmarshal(stdout.Bytes(), &fail) != nil || fail.Error == "" {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500]
		}
		return nil, fmt.Errorf("cypher child: %w: %s", runErr, msg)
	}
	var ee *exec.ExitError
	code := fail.Code
	if errors.As(runErr, &ee) && code == 0 {
		code = ee.ExitCode()
	}
	switch code {
	case 2:
		return nil, fmt.Errorf("%w: %s", tools.ErrInput, strings.TrimPrefix(fail.Error, tools.ErrInput.Error()+": "))
	case 3:
		return nil, fmt.Errorf("%w: %s", tools.ErrNotFound, strings.TrimPrefix(fail.Error, tools.ErrNotFound.Error()+": "))
	}
	return nil, errors.New(fail.Error)
}
