package embed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// EnvORTLib names an explicit ONNX Runtime shared library; it wins over
// every other location.
const EnvORTLib = "GITNEXUS_ORT_LIB"

// MinORTVersion is the oldest ONNX Runtime gitnexus runs on (the C API
// version onnxruntime_go v1.27 is built against).
const MinORTVersion = "1.24"

// ErrORTNotFound is returned (wrapped) when no ONNX Runtime library can be
// found.
var ErrORTNotFound = errors.New("ONNX Runtime library not found")

// ortLibName is the file name of the ONNX Runtime library on this OS.
func ortLibName() string {
	switch runtime.GOOS {
	case "windows":
		return "onnxruntime.dll"
	case "darwin":
		return "libonnxruntime.dylib"
	default:
		return "libonnxruntime.so.1"
	}
}

// FindORTLibrary returns the ONNX Runtime library to load, looking in order
// at $GITNEXUS_ORT_LIB, beside the executable ($ORIGIN/NAME, then
// $ORIGIN/lib/NAME), then at the lib/ directory of the source tree this
// package was built from (what tests and `go run` use).
func FindORTLibrary() (string, error) {
	if p := os.Getenv(EnvORTLib); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvORTLib, p, err)
		}
		return p, nil
	}
	name := ortLibName()
	var tried []string
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		dir := filepath.Dir(exe)
		tried = append(tried, filepath.Join(dir, name), filepath.Join(dir, "lib", name))
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		tried = append(tried, filepath.Join(filepath.Dir(file), "..", "lib", name))
	}
	for _, p := range tried {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return filepath.Clean(p), nil
		}
	}
	return "", fmt.Errorf("%w (looked at %s): run scripts/fetch-ort.sh lib (make ort) or set %s to a libonnxruntime >= %s",
		ErrORTNotFound, strings.Join(tried, ", "), EnvORTLib, MinORTVersion)
}

var (
	ortOnce    sync.Once
	ortErr     error
	ortVersion string
	ortLibPath string
)

// InitORT loads ONNX Runtime and creates its process-global environment.
// It runs once per process; later calls return the first call's result.
func InitORT() error {
	ortOnce.Do(func() { ortErr = initORT() })
	return ortErr
}

// ORTVersion is the version the loaded library reports ("" before InitORT
// succeeds), and ORTLibrary the path it was loaded from.
func ORTVersion() string { return ortVersion }
func ORTLibrary() string { return ortLibPath }

func initORT() error {
	lib, err := FindORTLibrary()
	if err != nil {
		return err
	}
	ort.SetSharedLibraryPath(lib)
	// Fatal only: errors come back as statuses, and probing for CUDA must
	// not print ORT's own error lines beside our one device line.
	if err := ort.InitializeEnvironment(ort.WithLogLevelFatal()); err != nil {
		// onnxruntime_go asks the library for C API version 24; a library
		// older than 1.24 does not have it and answers with code 2.
		if strings.Contains(err.Error(), "Error setting ORT API base: 2") {
			return fmt.Errorf("ONNX Runtime at %s is older than %s (it lacks the C API gitnexus needs): install >= %s, e.g. with scripts/fetch-ort.sh", lib, MinORTVersion, MinORTVersion)
		}
		return fmt.Errorf("load ONNX Runtime %s: %w", lib, err)
	}
	v := ort.GetVersion()
	if err := checkORTVersion(v); err != nil {
		_ = ort.DestroyEnvironment()
		return fmt.Errorf("ONNX Runtime at %s: %w", lib, err)
	}
	ortVersion, ortLibPath = v, lib
	return nil
}

// checkORTVersion refuses versions older than MinORTVersion.
func checkORTVersion(v string) error {
	got, ok := parseVersion(v)
	want, _ := parseVersion(MinORTVersion)
	if !ok {
		return fmt.Errorf("unrecognised ONNX Runtime version %q (need >= %s)", v, MinORTVersion)
	}
	if got[0] < want[0] || got[0] == want[0] && got[1] < want[1] {
		return fmt.Errorf("ONNX Runtime %s is too old: gitnexus needs >= %s", v, MinORTVersion)
	}
	return nil
}

// parseVersion reads "MAJOR.MINOR[.PATCH...]".
func parseVersion(v string) ([2]int, bool) {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return [2]int{}, false
	}
	var out [2]int
	for i := range 2 {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return [2]int{}, false
		}
		out[i] = n
	}
	return out, true
}
