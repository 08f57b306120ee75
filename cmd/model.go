package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gitnexus/gitnexus/models"
	"github.com/spf13/cobra"
)

var modelFlags struct {
	dir       string
	quantized bool
	baseURL   string
	noVerify  bool
}

var modelCmd = &cobra.Command{
	Use:   "model",
	Short: "Manage the embedding model (snowflake-arctic-embed-xs)",
	Long: `The embedding model lives in $GITNEXUS_HOME/models/snowflake-arctic-embed-xs
(GITNEXUS_HOME defaults to ~/.gitnexus), or wherever --model-dir or
$GITNEXUS_MODEL_DIR points. Without it, analyze builds a keyword-only index.`,
	Example: `  gitnexus model pull
  gitnexus model status --no-verify`,
}

var modelPullCmd = &cobra.Command{
	Use:   "pull",
	Short: "Download the model files at the pinned revision, verifying their sha256",
	Long: `pull downloads the tokenizer files and the ONNX model (fp32, or int8 with
--quantized) from Hugging Face at the pinned revision. An interrupted download
resumes where it stopped; every file is checked against its pinned sha256 and
only then put in place. On a machine without a route to huggingface.co,
download the files elsewhere and point --model-dir (or GITNEXUS_MODEL_DIR) at
them.`,
	Example: `  gitnexus model pull
  gitnexus model pull --quantized --model-dir ~/models/arctic-xs`,
	Args: cobra.NoArgs,
	RunE: runModelPull,
}

var modelStatusCmd = &cobra.Command{
	Use:     "status",
	Short:   "Show which model files are present, where, and whether they verify",
	Example: `  gitnexus model status --json`,
	Args:    cobra.NoArgs,
	RunE:    runModelStatus,
}

func init() {
	for _, c := range []*cobra.Command{modelPullCmd, modelStatusCmd} {
		c.Flags().StringVar(&modelFlags.dir, "model-dir", "", "model directory (default $GITNEXUS_MODEL_DIR, else $GITNEXUS_HOME/models/snowflake-arctic-embed-xs)")
	}
	modelPullCmd.Flags().BoolVar(&modelFlags.quantized, "quantized", false, "fetch the int8 model (23 MB) instead of fp32 (90 MB)")
	modelPullCmd.Flags().StringVar(&modelFlags.baseURL, "base-url", os.Getenv("HF_ENDPOINT"), "Hugging Face host or mirror (default $HF_ENDPOINT, else https://huggingface.co)")
	modelStatusCmd.Flags().BoolVar(&modelFlags.noVerify, "no-verify", false, "check sizes only, do not compute sha256 sums")
	modelCmd.AddCommand(modelPullCmd, modelStatusCmd)
	rootCmd.AddCommand(modelCmd)
}

func runModelPull(cmd *cobra.Command, _ []string) error {
	m := models.ArcticEmbedXS
	dir, err := m.Dir(modelFlags.dir)
	if err != nil {
		return err
	}
	var progress io.Writer
	if !flagJSON && !flagQuiet && isTerminal(os.Stderr) {
		progress = os.Stderr
	}
	if err := m.Pull(cmd.Context(), dir, models.PullOptions{BaseURL: modelFlags.baseURL, Quantized: modelFlags.quantized, Progress: progress}); err != nil {
		return fmt.Errorf("model pull into %s: %w", dir, err)
	}
	st := m.Check(dir, false)
	if flagJSON {
		return printJSON(st)
	}
	fmt.Printf("model %s@%s ready in %s\n", m.Repo, m.Revision[:12], dir)
	return nil
}

func runModelStatus(cmd *cobra.Command, _ []string) error {
	m := models.ArcticEmbedXS
	dir, err := m.Dir(modelFlags.dir)
	if err != nil {
		return err
	}
	st := m.Check(dir, !modelFlags.noVerify)
	if flagJSON {
		return printJSON(st)
	}
	fmt.Printf("model     %s @ %s\n", st.Model, st.Revision)
	fmt.Printf("directory %s\n", st.Dir)
	for _, f := range st.Files {
		state := "verified"
		switch {
		case f.Problem == "missing" && f.Partial > 0:
			state = fmt.Sprintf("partial download (%d of %d bytes; `gitnexus model pull` resumes it)", f.Partial, f.Want)
		case f.Problem != "":
			state = f.Problem
		case !st.Hashed:
			state = "present (size ok, not hashed)"
		}
		fmt.Printf("  %-27s %-11s %s\n", f.Path, "("+string(f.Role)+")", state)
	}
	if st.Ready {
		fmt.Println("ready: yes")
		return nil
	}
	_, ferr := models.Find(dir, false)
	if errors.Is(ferr, models.ErrModelMissing) {
		fmt.Printf("ready: no (%v)\n", ferr)
	} else {
		fmt.Println("ready: no (files do not match the pins: run `gitnexus model pull`)")
	}
	return nil
}
