// Command gitnexus is a code knowledge-graph explorer: see DEVELOPERS.md and
// README.md, or run `gitnexus --help`.
package main

import (
	"os"

	"github.com/gitnexus/gitnexus/cmd"
)

func main() { os.Exit(cmd.Execute()) }
