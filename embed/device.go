package embed

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// Device is where inference runs.
type Device string

// Devices. Auto takes CUDA when its execution provider loads (DirectML on
// Windows), else the CPU.
const (
	DeviceAuto Device = "auto"
	DeviceCPU  Device = "cpu"
	DeviceCUDA Device = "cuda"
	DeviceDML  Device = "dml"
)

// ErrDeviceUnavailable is returned (wrapped) when an explicitly requested
// accelerator cannot be used.
var ErrDeviceUnavailable = errors.New("execution provider unavailable")

// ParseDevice reads a --device value.
func ParseDevice(s string) (Device, error) {
	switch d := Device(strings.ToLower(strings.TrimSpace(s))); d {
	case "":
		return DeviceAuto, nil
	case DeviceAuto, DeviceCPU, DeviceCUDA, DeviceDML:
		return d, nil
	}
	return "", fmt.Errorf("unknown device %q: want auto, cpu, cuda or dml", s)
}

// accelerator is the device auto tries first on this OS.
func accelerator() Device {
	if runtime.GOOS == "windows" {
		return DeviceDML
	}
	return DeviceCUDA
}

// appendProvider adds the execution provider of d (cuda or dml) to opts.
// The CPU provider is always there and needs nothing.
func appendProvider(opts *ort.SessionOptions, d Device) error {
	switch d {
	case DeviceCUDA:
		co, err := ort.NewCUDAProviderOptions()
		if err != nil {
			return fmt.Errorf("CUDA provider options: %w", err)
		}
		defer co.Destroy()
		if err := opts.AppendExecutionProviderCUDA(co); err != nil {
			return fmt.Errorf("CUDA execution provider (needs libonnxruntime_providers_cuda.so and libonnxruntime_providers_shared.so beside libonnxruntime, and CUDA 12 + cuDNN 9): %w", err)
		}
	case DeviceDML:
		if runtime.GOOS != "windows" {
			return errors.New("DirectML exists only on Windows")
		}
		if err := opts.AppendExecutionProviderDirectML(0); err != nil {
			return fmt.Errorf("DirectML execution provider: %w", err)
		}
	}
	return nil
}

// firstLine keeps provider errors (which can be long) to one line.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
