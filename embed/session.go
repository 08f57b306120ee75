package embed

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	ort "github.com/yalue/onnxruntime_go"
)

// The model's interface (the same for the real model and the fixtures).
var (
	inputNames  = []string{"input_ids", "attention_mask", "token_type_ids"}
	outputNames = []string{"last_hidden_state"}
)

// session is one ONNX Runtime session of a BERT encoder.
type session struct {
	s      *ort.DynamicAdvancedSession
	device Device // what it runs on
	reason string // why that device
}

// sessionConfig says how to build a session.
type sessionConfig struct {
	modelPath string
	device    Device
	threads   int // intra-op threads; 0 means the core count
}

// newSession creates a session on the requested device. auto falls back to
// the CPU (saying why); an explicit accelerator that cannot be used is an
// error wrapping ErrDeviceUnavailable.
func newSession(cfg sessionConfig) (*session, error) {
	if err := InitORT(); err != nil {
		return nil, err
	}
	if cfg.threads <= 0 {
		cfg.threads = runtime.NumCPU()
	}
	want := cfg.device
	if want == "" {
		want = DeviceAuto
	}
	try := want
	if want == DeviceAuto {
		try = accelerator()
	}
	var s *session
	var err error
	if try != DeviceCPU {
		s, err = openSession(cfg, try)
		switch {
		case err == nil:
			s.reason = fmt.Sprintf("%s execution provider loaded", try)
			if want == DeviceAuto {
				s.reason = "auto: " + s.reason
			}
		case want != DeviceAuto:
			return nil, fmt.Errorf("--device %s: %w: %s (use --device auto or cpu)", want, ErrDeviceUnavailable, firstLine(err))
		default:
			reason := fmt.Sprintf("auto: %s unavailable, using CPU: %s", try, firstLine(err))
			s, err = openSession(cfg, DeviceCPU)
			if s != nil {
				s.reason = reason
			}
		}
	} else {
		s, err = openSession(cfg, DeviceCPU)
		if s != nil {
			s.reason = "cpu requested"
		}
	}
	if err != nil {
		return nil, err
	}
	slog.Info("embedding device", "device", string(s.device), "why", s.reason, "intra_op_threads", cfg.threads, "ort", ortVersion)
	return s, nil
}

func openSession(cfg sessionConfig, d Device) (*session, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(cfg.threads); err != nil {
		return nil, fmt.Errorf("set intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("set inter-op threads: %w", err)
	}
	if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
		return nil, fmt.Errorf("set graph optimization: %w", err)
	}
	// Idle ORT workers would otherwise spin between runs, taking CPU from
	// the parsing that analyze does at the same time.
	if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return nil, fmt.Errorf("session config: %w", err)
	}
	if err := appendProvider(opts, d); err != nil {
		return nil, err
	}
	s, err := ort.NewDynamicAdvancedSession(cfg.modelPath, inputNames, outputNames, opts)
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", cfg.modelPath, err)
	}
	return &session{s: s, device: d}, nil
}

func (s *session) close() error {
	if s == nil || s.s == nil {
		return nil
	}
	err := s.s.Destroy()
	s.s = nil
	return err
}

// batch is one padded batch: row-major [rows, seqLen] inputs.
type batch struct {
	rows, seqLen int
	ids, mask    []int64
	types        []int64
}

// makeBatch pads seqs (each already [CLS] ... [SEP]) to the longest with pad.
func makeBatch(seqs [][]int32, pad int32) batch {
	L := 0
	for _, s := range seqs {
		L = max(L, len(s))
	}
	b := batch{rows: len(seqs), seqLen: L,
		ids: make([]int64, len(seqs)*L), mask: make([]int64, len(seqs)*L), types: make([]int64, len(seqs)*L)}
	for i, s := range seqs {
		row := b.ids[i*L : (i+1)*L]
		m := b.mask[i*L : (i+1)*L]
		for j := range row {
			if j < len(s) {
				row[j], m[j] = int64(s[j]), 1
			} else {
				row[j] = int64(pad)
			}
		}
	}
	return b
}

// run feeds one batch and returns the CLS-pooled, L2-normalised vector of
// each row, and the time spent inside ORT's Run.
func (s *session) run(b batch) ([][]float32, time.Duration, error) {
	if b.rows == 0 {
		return nil, 0, nil
	}
	shape := ort.NewShape(int64(b.rows), int64(b.seqLen))
	var ins []ort.Value
	defer func() {
		for _, v := range ins {
			v.Destroy()
		}
	}()
	for _, data := range [][]int64{b.ids, b.mask, b.types} {
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, 0, fmt.Errorf("input tensor: %w", err)
		}
		ins = append(ins, t)
	}
	outs := []ort.Value{nil}
	t0 := time.Now()
	if err := s.s.Run(ins, outs); err != nil {
		return nil, 0, fmt.Errorf("onnxruntime run (batch %dx%d): %w", b.rows, b.seqLen, err)
	}
	took := time.Since(t0)
	defer outs[0].Destroy()
	out, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, 0, errors.New("last_hidden_state is not a float32 tensor")
	}
	sh := out.GetShape()
	if len(sh) != 3 || sh[0] != int64(b.rows) || sh[1] != int64(b.seqLen) {
		return nil, 0, fmt.Errorf("last_hidden_state has shape %v, want [%d %d hidden]", sh, b.rows, b.seqLen)
	}
	return poolCLS(out.GetData(), b.rows, b.seqLen, int(sh[2])), took, nil
}
