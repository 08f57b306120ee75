package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/mcp"
)

var mcpFlags struct {
	http         string
	token        string
	allowOrigins []string
	repos        []string
	tools        []string
}

var mcpCmd = &cobra.Command{
	Use:   "mcp",
	Short: "Serve every indexed repository to coding agents over MCP (stdio, or streamable HTTP with --http)",
	Long: `mcp serves the Model Context Protocol: tools query, context, impact,
detect_changes, trace, cypher and list_repos, and resources gitnexus://repos and
gitnexus://repo/{name}/{context,processes,process/{id},communities,schema}.

It answers for every registered repository (the "repo" argument may be left
out when only one is registered), opens indexes read-only, keeps them open,
and picks up a re-analyzed index without a restart.

By default it speaks over stdin/stdout. With --http ADDR it serves streamable
HTTP instead, on loopback unless ADDR names another interface; any address
other than loopback requires a bearer token (--auth-token, or the environment
variable GITNEXUS_MCP_TOKEN), sent as "Authorization: Bearer TOKEN". Requests
from a browser page are refused unless its Origin is loopback or named with
--allow-origin (DNS rebinding protection).

Over stdio, a line that is not a valid JSON-RPC message is answered with the
protocol's error (-32700 parse error, -32600 invalid request) and the server
goes on; when stdin closes, every request already received is answered
before it exits.

--repos a,b serves only those registered repositories (others cannot be
reached by name, path or default); --tools a,b serves only those tools.
Prompts: detect_impact (the current diff's blast radius) and generate_map
(an architecture overview).`,
	Example: `  claude mcp add gitnexus -- gitnexus mcp
  gitnexus mcp --http 127.0.0.1:8765`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		cwd, _ := os.Getwd()
		exe, _ := os.Executable() // "" (cypher in process) if the OS cannot say
		srv, err := mcp.NewServer(mcp.Options{Version: Version, Cwd: cwd, Exe: exe, Repos: mcpFlags.repos, Tools: mcpFlags.tools})
		if errors.Is(err, mcp.ErrAllowList) {
			return Usage("%v", err)
		}
		if err != nil {
			return err
		}
		defer srv.Close()
		if !c.Flags().Changed("http") {
			if err := srv.ServeStdio(ctx); err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("mcp over stdio: %w", err)
			}
			return nil
		}
		if strings.TrimSpace(mcpFlags.http) == "" {
			return Usage("--http needs an address: host:port or port, e.g. 127.0.0.1:8765")
		}
		token := mcpFlags.token
		if token == "" {
			token = os.Getenv("GITNEXUS_MCP_TOKEN")
		}
		err = srv.ServeHTTP(ctx, mcp.HTTPOptions{Addr: mcpFlags.http, Token: token, AllowOrigins: mcpFlags.allowOrigins}, func(addr string) {
			auth := "no token (loopback only)"
			if token != "" {
				auth = "bearer token required"
			}
			fmt.Fprintf(os.Stderr, "gitnexus mcp: serving streamable HTTP on http://%s (%s)\n", addr, auth)
		})
		if errors.Is(err, mcp.ErrNeedToken) {
			return Usage("%v", err)
		}
		return err
	},
}

func init() {
	f := mcpCmd.Flags()
	f.StringVar(&mcpFlags.http, "http", "", "serve streamable HTTP on this host:port (or port), e.g. 127.0.0.1:8765, instead of stdio")
	f.StringVar(&mcpFlags.token, "auth-token", "", "bearer token HTTP clients must send (required beyond loopback; default $GITNEXUS_MCP_TOKEN)")
	f.StringSliceVar(&mcpFlags.repos, "repos", nil, "serve only these registered repositories (names or paths, comma-separated)")
	f.StringSliceVar(&mcpFlags.tools, "tools", nil, "serve only these tools (comma-separated; prompts built on a left-out tool are dropped)")
	f.StringSliceVar(&mcpFlags.allowOrigins, "allow-origin", nil, "browser origin (scheme://host:port) allowed besides loopback ones, for --http (repeatable)")
	rootCmd.AddCommand(mcpCmd)
}
