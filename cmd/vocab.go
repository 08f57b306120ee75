package cmd

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gitnexus/gitnexus/tools"
)

// The CLI's words. The tools (package tools) speak to MCP clients: their
// errors and notices name tool parameters (target_uid, base_ref, "the
// query tool"). A CLI user has flags instead, so every error and notice the
// CLI prints passes through cliText, which names the flag that exists for
// each parameter. The flag vocabulary itself (README, "Flags"):
//
//	-n/--limit   most items listed, on every command that lists
//	--depth      hops walked (impact, trace)
//	--uid        the exact id of the one symbol a command takes;
//	             --from-uid/--to-uid for trace's two ends
//	--file       keep symbols in this file; --from-file/--to-file for trace
//	--kind       kinds or tables, comma-separated, validated
//
// Unknown enum values are refused with the allowed ones listed (enumFlag).
var cliWords = strings.NewReplacer(
	"call again with uid (or file_path / kind) to pick one", "pick one with --uid (or narrow with --file / --kind)",
	"call again with target_uid (or file_path / kind) to pick one", "pick one with --uid (or narrow with --file / --kind)",
	"several symbols match from: pass from_uid or from_file", "several symbols match FROM: pick one with --from-uid (or narrow with --from-file)",
	"several symbols match to: pass to_uid or to_file", "several symbols match TO: pick one with --to-uid (or narrow with --to-file)",
	"with the given file_path/kind", "with the given --file/--kind",
	"search for it with the query tool", "search for it with `gitnexus query`",
	"scope compare needs base_ref", "--scope compare needs --base",
	"base_ref ", "--base ",
	"request: scope must be", "request: --scope must be",
	"detect_changes compares against git", "detect-changes compares against git",
	"(see detect_changes)", "(see `gitnexus detect-changes`)",
	"request: minConfidence must", "request: --min-confidence must",
	"narrow relationTypes, raise minConfidence or lower maxDepth", "narrow --relations, raise --min-confidence or lower --depth",
	"raise limit / max_symbols to see them", "raise --flows / --limit to see them",
	"raise limit to see more", "raise --limit to see more",
	"or raise limit (max", "or raise --limit (max",
	"ranked with task_context/goal", "ranked with --task-context/--goal",
	"request: search_query is required", "request: a search text is required",
	"request: min_score must", "request: --min-score must",
	"request: limit and max_symbols must", "request: --flows and --limit must",
	"request: limit must be", "request: --limit must be",
	"request: direction must be", "request: --direction must be",
	"request: name or uid is required", "request: give NAME or --uid",
	"request: name ", "request: --name ",
	"request: lang ", "request: --lang ",
	", or the resource gitnexus://repo/{name}/processes)", ")",
	", or the resource gitnexus://repo/{name}/communities)", ")",
	"search task_context/goal", "search --task-context/--goal",
)

// cliText rewrites a tool's message in the CLI's words.
func cliText(msg string) string { return cliWords.Replace(msg) }

// goErr matches the Go parser errors pflag puts in a bad value's message.
var goErr = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (strconv\.\w+: parsing ".*": )?(.*)$`)

// flagError turns pflag's value errors into plain words: `--limit abc`
// says "--limit wants a whole number, got "abc"", not strconv.ParseInt.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	if m := goErr.FindStringSubmatch(msg); m != nil {
		name := m[2]
		if i := strings.LastIndex(name, "--"); i >= 0 {
			name = name[i:]
		}
		want := "a valid value"
		if f := c.Flags().Lookup(strings.TrimPrefix(name, "--")); f != nil {
			want = typeWords(f)
		}
		return Usage("%s wants %s, got %q", name, want, m[1])
	}
	return Usage("%s", msg)
}

// typeWords says what a flag's value must be.
func typeWords(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int", "int64", "uint":
		return "a whole number"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration like 30s"
	}
	return "a " + f.Value.Type()
}

// checkEnum refuses a value outside allowed, listing them.
func checkEnum(flag, v string, allowed ...string) error {
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return nil
		}
	}
	return Usage("%s must be one of %s (got %q)", flag, strings.Join(allowed, ", "), v)
}

// checkRange refuses an integer flag outside lo..hi.
func checkRange(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return Usage("%s must be %d..%d (got %d)", flag, lo, hi, v)
	}
	return nil
}

// argsNamed is cobra.ExactArgs with a message that names the arguments and
// shows the example (cobra says "accepts 1 arg(s), received 0").
func argsNamed(names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == len(names) {
			return nil
		}
		return Usage("%s takes %s (got %d argument%s)%s", c.Name(), strings.Join(names, " "), len(args), plural(len(args)), exampleHint(c))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// exampleHint is ", e.g. <the command's first example>" or "".
func exampleHint(c *cobra.Command) string {
	ex := strings.TrimSpace(c.Example)
	if ex == "" {
		return ""
	}
	if i := strings.IndexByte(ex, '\n'); i >= 0 {
		ex = ex[:i]
	}
	return fmt.Sprintf(", e.g. %s", strings.TrimSpace(ex))
}

// checkKinds validates a --kind list against the kinds and tables symbols
// have (tools.QueryKinds) and returns it comma-joined, lower-case.
func checkKinds(vs []string) (string, error) {
	known := tools.QueryKinds()
	var out []string
	for _, v := range vs {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" {
			continue
		}
		if !slices.Contains(known, v) {
			return "", Usage("--kind %q is not a kind: use %s (comma-separated for several)", v, strings.Join(known, ", "))
		}
		out = append(out, v)
	}
	return strings.Join(out, ","), nil
}

// nameOrUID settles a command's NAME argument against its --uid flag:
// one of them, not both (a NAME beside --uid was once silently ignored).
func nameOrUID(args []string, uid, flag string) (string, error) {
	switch {
	case len(args) == 1 && uid != "":
		return "", Usage("give NAME or %s, not both", flag)
	case len(args) == 0 && uid == "":
		return "", Usage("give NAME (a symbol name, qualified name or id) or %s ID", flag)
	case len(args) == 1:
		return args[0], nil
	}
	return "", nil
}
