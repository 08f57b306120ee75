package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	routesIn    tools.RouteMapInput
	apiImpactIn tools.APIImpactInput
)

var routeMapCmd = &cobra.Command{
	Use:   "route-map",
	Short: "HTTP routes and the symbols that handle them (net/http, gin, echo, chi, Flask, FastAPI, Django, Express, Spring)",
	Long: `route-map reads the routes declared in the indexed source files (test code
left out) and links each to its handler symbol: the function a decorator or
annotation sits on, else a symbol of that name in the same file, else the
one symbol of that name in the repository; otherwise the route is listed
as unresolved, with the reason. --json prints what the MCP route_map tool
returns.`,
	Example: `  gitnexus route-map
  gitnexus route-map --path /users --method GET --json`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		in := routesIn
		if in.Framework != "" {
			if err := checkEnum("--framework", strings.ToLower(in.Framework), tools.RouteFrameworks...); err != nil {
				return err
			}
		}
		return runToolChecked(c.Context(), in, onIndexRoot(tools.RouteMap), printRoutes, func(out *tools.RouteMapOutput) error {
			if len(out.Routes) == 0 {
				return fmt.Errorf("no routes found")
			}
			return nil
		})
	},
}

func printRoutes(out *tools.RouteMapOutput) error {
	scr := stdout()
	if len(out.Routes) == 0 {
		scr.line("no routes found (frameworks read: " + strings.Join(tools.RouteFrameworks, ", ") + ")")
		return nil
	}
	scr.line(scr.paint(styleDim, fmt.Sprintf("%-8s %-32s %-9s %-28s %s", "METHOD", "PATH", "FRAMEWORK", "DECLARED", "HANDLER")))
	for _, r := range out.Routes {
		h := r.HandlerID
		if h == "" {
			h = r.Handler + " (" + r.Resolved + ")"
		}
		scr.linef("%-8s %-32s %-9s %-28s %s", r.Method, r.Path, r.Framework, loc(r.FilePath, r.Line), scr.paint(styleCyan, h))
	}
	printNotices(out.Notices)
	return nil
}

var apiImpactCmd = &cobra.Command{
	Use:   "api-impact ROUTE",
	Short: "Blast radius of an HTTP route: its handler, the flows it is part of, what depends on it",
	Long: `api-impact finds ROUTE as route-map lists it ("GET /users/:id", or a path
with --method) and answers for its handler: the execution flows it takes
part in and impact upstream (what depends on it, a risk level). Several
routes on one path are listed (exit 3): pick one with --method. --json
prints what the MCP api_impact tool returns.`,
	Example: `  gitnexus api-impact "GET /users/:id"
  gitnexus api-impact /login --method POST --json`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := apiImpactIn
		in.Route = args[0]
		return runToolChecked(c.Context(), in, onIndexRoot(tools.APIImpact), printAPIImpact, func(out *tools.APIImpactOutput) error {
			switch out.Status {
			case "ambiguous":
				return ambiguousErr(fmt.Sprintf("%q", in.Route), len(out.Candidates))
			case "unresolved":
				return fmt.Errorf("the handler of %s is not resolved to a symbol", in.Route)
			}
			return nil
		})
	},
}

func printAPIImpact(out *tools.APIImpactOutput) error {
	scr := stdout()
	if out.Status == "ambiguous" {
		scr.line("ROUTE matches several routes; pick one with --method:")
		for _, r := range out.Candidates {
			scr.linef("  %-8s %-32s %s", r.Method, r.Path, loc(r.FilePath, r.Line))
		}
		return nil
	}
	r := out.Route
	scr.linef("%s %s  (%s, %s)", r.Method, scr.paint(styleBold, r.Path), r.Framework, loc(r.FilePath, r.Line))
	if out.Status == "unresolved" {
		printNotices(out.Notices)
		return nil
	}
	scr.linef("  handler %s", scr.paint(styleCyan, r.HandlerID))
	if im := out.Impact; im != nil {
		scr.linef("  risk %s: %d direct, %d in all, %d flows, %d modules", im.Risk, im.Summary.Direct, im.Summary.Total, im.Summary.Processes, im.Summary.Communities)
	}
	for _, p := range out.Processes {
		scr.linef("  flow  step %d/%d  %s", p.StepIndex, p.StepCount, p.Label)
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := routeMapCmd.Flags()
	budgetFlag(f, &routesIn.Budget)
	f.StringVar(&routesIn.Method, "method", "", "keep routes of this HTTP method (GET, POST, ...)")
	f.StringVar(&routesIn.Path, "path", "", "keep routes whose path contains this text")
	f.StringVar(&routesIn.Framework, "framework", "", "keep routes of this framework: "+strings.Join(tools.RouteFrameworks, ", "))
	rootCmd.AddCommand(routeMapCmd)
	g := apiImpactCmd.Flags()
	budgetFlag(g, &apiImpactIn.Budget)
	g.StringVar(&apiImpactIn.Method, "method", "", "the route's HTTP method, when ROUTE is a path")
	rootCmd.AddCommand(apiImpactCmd)
}
