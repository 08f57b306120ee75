package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// PullOptions tune Pull.
type PullOptions struct {
	// BaseURL replaces https://huggingface.co (a mirror, or a test server).
	BaseURL string
	// Quantized fetches the int8 model instead of the fp32 one.
	Quantized bool
	// Client is the HTTP client (default: one with a 30 s connect/header
	// timeout and no overall timeout, downloads being large).
	Client *http.Client
	// Progress receives human progress lines (nil: quiet).
	Progress io.Writer
}

// ErrChecksum is wrapped when a downloaded file does not match its pin.
var ErrChecksum = errors.New("sha256 mismatch")

// Pull downloads into dir the files Wanted(o.Quantized) lists that dir
// lacks (or holds with the wrong size or hash). Each file is downloaded to
// <path>.part, resumed with an HTTP Range request when a .part is already
// there, verified against its sha256 pin, and renamed into place. A
// checksum mismatch deletes the .part and returns an error wrapping
// ErrChecksum.
func (m Manifest) Pull(ctx context.Context, dir string, o PullOptions) error {
	if o.Client == nil {
		o.Client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			ResponseHeaderTimeout: 30 * time.Second,
			TLSHandshakeTimeout:   30 * time.Second,
		}}
	}
	for _, f := range m.Wanted(o.Quantized) {
		if err := m.pullFile(ctx, dir, f, o); err != nil {
			return err
		}
	}
	return nil
}

func (m Manifest) pullFile(ctx context.Context, dir string, f File, o PullOptions) error {
	final := filepath.Join(dir, filepath.FromSlash(f.Path))
	if info, err := os.Stat(final); err == nil && info.Size() == f.Size {
		if sum, err := fileSHA256(final); err == nil && sum == f.SHA256 {
			progressf(o.Progress, "%s: present, verified\n", f.Path)
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return fmt.Errorf("model directory: %w", err)
	}
	part := final + ".part"
	if err := m.download(ctx, part, f, o); err != nil {
		return err
	}
	sum, err := fileSHA256(part)
	if err != nil {
		return err
	}
	if sum != f.SHA256 {
		os.Remove(part)
		return fmt.Errorf("%s: %w: got %s, want %s (the download was deleted; run `gitnexus model pull` again)", f.Path, ErrChecksum, sum, f.SHA256)
	}
	if err := os.Rename(part, final); err != nil {
		return fmt.Errorf("install %s: %w", f.Path, err)
	}
	progressf(o.Progress, "%s: downloaded, sha256 verified\n", f.Path)
	return nil
}

// download brings part up to f.Size bytes, resuming what is there.
func (m Manifest) download(ctx context.Context, part string, f File, o PullOptions) error {
	var have int64
	if info, err := os.Stat(part); err == nil {
		have = info.Size()
	}
	if have > f.Size { // not ours, or the pin changed: start over
		os.Remove(part)
		have = 0
	}
	if have == f.Size {
		return nil // complete; the caller verifies it
	}
	url := m.URL(o.BaseURL, f)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", f.Path, err)
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return fmt.Errorf("download %s from %s: %w (no network route? download the files on a machine that has one and pass --model-dir DIR, or set %s)", f.Path, url, err, EnvModelDir)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case have > 0 && resp.StatusCode == http.StatusPartialContent:
		if !strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)) {
			return fmt.Errorf("download %s: server answered range %q to a request from byte %d", f.Path, resp.Header.Get("Content-Range"), have)
		}
		flags |= os.O_APPEND
		progressf(o.Progress, "%s: resuming at %s\n", f.Path, mb(have))
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC // a full body: (re)start from zero
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part)
		return fmt.Errorf("download %s: server refused to resume (416); the partial file was removed, run pull again", f.Path)
	default:
		return fmt.Errorf("download %s from %s: HTTP %s", f.Path, url, resp.Status)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return fmt.Errorf("download %s: %w", f.Path, err)
	}
	pw := &progressWriter{w: out, name: f.Path, done: have, total: f.Size, out: o.Progress}
	// Never write past the pinned size: a longer body is a wrong file.
	n, copyErr := io.Copy(pw, io.LimitReader(resp.Body, f.Size-have+1))
	closeErr := out.Close()
	pw.report(true)
	switch {
	case copyErr != nil:
		return fmt.Errorf("download %s: %w (kept %s; run pull again to resume)", f.Path, copyErr, mb(have+n))
	case closeErr != nil:
		return fmt.Errorf("download %s: %w", f.Path, closeErr)
	case have+n < f.Size:
		return fmt.Errorf("download %s: connection ended at %s of %s (kept; run pull again to resume)", f.Path, mb(have+n), mb(f.Size))
	}
	return nil // have+n may exceed f.Size by one byte; the hash check rejects it
}

type progressWriter struct {
	w           io.Writer
	out         io.Writer
	name        string
	done, total int64
	last        time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	p.report(false)
	return n, err
}

func (p *progressWriter) report(final bool) {
	if p.out == nil || (!final && time.Since(p.last) < time.Second) {
		return
	}
	p.last = time.Now()
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(p.done) / float64(p.total)
	}
	fmt.Fprintf(p.out, "%s: %s / %s (%.0f%%)\n", p.name, mb(p.done), mb(p.total), pct)
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
