package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/models"
	"github.com/spf13/cobra"
)

var embedFlags struct {
	query    bool
	modelDir string
	device   string
	dims     int
}

var embedCmd = &cobra.Command{
	Use:   `embed "text"`,
	Short: "Tokenize and embed a text (debugging aid)",
	Long: `embed prints the token ids of a text and, when the model is present, its
vector: the first dimensions and the norm, or the whole vector with --json.
--query adds the query prefix the model expects for search queries. With only
the tokenizer files (no ONNX model) it prints the ids and says the vector
needs the model.`,
	Example: `  gitnexus embed "parse config file"
  gitnexus embed --query "parse config file" --json`,
	Args: func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return Usage(`embed takes exactly one text argument (quote it): gitnexus embed "some text"`)
		}
		return nil
	},
	RunE: runEmbed,
}

func init() {
	f := embedCmd.Flags()
	f.BoolVar(&embedFlags.query, "query", false, "embed as a search query (adds the model's query prefix)")
	f.StringVar(&embedFlags.modelDir, "model-dir", "", "model directory (default $GITNEXUS_MODEL_DIR, else $GITNEXUS_HOME/models/snowflake-arctic-embed-xs)")
	f.StringVar(&embedFlags.device, "device", "auto", "inference device: auto, cpu, cuda or dml")
	f.IntVar(&embedFlags.dims, "dims", 8, "dimensions to print in text mode")
	rootCmd.AddCommand(embedCmd)
}

type embedOutput struct {
	Text         string    `json:"text"`
	Query        bool      `json:"query"`
	ModelDir     string    `json:"model_dir"`
	InputIDs     []int32   `json:"input_ids"`
	Tokens       []string  `json:"tokens"`
	Truncated    bool      `json:"truncated"`
	Vector       []float32 `json:"vector"` // null when the model is missing
	Dim          int       `json:"dim,omitempty"`
	Norm         float64   `json:"norm,omitempty"`
	Device       string    `json:"device,omitempty"`
	DeviceReason string    `json:"device_reason,omitempty"`
	ModelMissing string    `json:"model_missing,omitempty"`
}

func runEmbed(cmd *cobra.Command, args []string) error {
	dev, err := embed.ParseDevice(embedFlags.device)
	if err != nil {
		return Usage("--device: %v", err)
	}
	dir, err := models.ArcticEmbedXS.Dir(embedFlags.modelDir)
	if err != nil {
		return err
	}
	tok, err := embed.LoadTokenizer(dir)
	if err != nil {
		return Fail(ExitNotFound, "%w: no tokenizer in %s: run `gitnexus model pull` or pass --model-dir DIR", models.ErrModelMissing, dir)
	}
	text := args[0]
	full := text
	if embedFlags.query {
		full = embed.QueryPrefix + text
	}
	out := embedOutput{Text: text, Query: embedFlags.query, ModelDir: dir}
	content := tok.Tokenize(full)
	out.InputIDs = tok.Wrap(content)
	out.Truncated = len(content) > tok.MaxLen()-2
	for _, id := range out.InputIDs {
		out.Tokens = append(out.Tokens, tok.Token(id))
	}

	e, err := embed.New(embed.Options{ModelDir: dir, Device: dev})
	switch {
	case errors.Is(err, models.ErrModelMissing):
		out.ModelMissing = err.Error()
	case err != nil:
		if !flagJSON {
			printEmbedText(out)
		}
		return fmt.Errorf("embed: %w", err)
	default:
		defer e.Close()
		vs, err := e.EmbedTokenIDs(cmd.Context(), [][]int32{out.InputIDs})
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		out.Vector, out.Dim, out.Norm = vs[0], len(vs[0]), embed.Norm(vs[0])
		d, why := e.Device()
		out.Device, out.DeviceReason = string(d), why
	}
	if flagJSON {
		return printJSON(out)
	}
	printEmbedText(out)
	return nil
}

func printEmbedText(out embedOutput) {
	kind := "document"
	if out.Query {
		kind = "query (prefix added)"
	}
	fmt.Printf("text       %q as %s\n", out.Text, kind)
	fmt.Printf("input_ids  %d ids%s: %v\n", len(out.InputIDs), map[bool]string{true: " (truncated to 512)"}[out.Truncated], out.InputIDs)
	fmt.Printf("tokens     %s\n", strings.Join(out.Tokens, " "))
	if out.Vector == nil {
		if out.ModelMissing != "" {
			fmt.Printf("vector     needs the model: %s\n", out.ModelMissing)
		}
		return
	}
	n := min(max(embedFlags.dims, 0), len(out.Vector))
	parts := make([]string, n)
	for i, x := range out.Vector[:n] {
		parts[i] = fmt.Sprintf("%.4f", x)
	}
	fmt.Printf("vector     dim %d, norm %.6f, first %d: [%s]\n", out.Dim, out.Norm, n, strings.Join(parts, " "))
	fmt.Printf("device     %s (%s)\n", out.Device, out.DeviceReason)
}
