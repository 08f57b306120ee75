package schema

import "strings"

// testDirs are directory names whose contents are test code.
var testDirs = map[string]bool{
	"test": true, "tests": true, "__tests__": true, "testing": true,
	"testdata": true, "spec": true, "e2e": true,
}

// IsTestPath reports whether a repo-relative, /-separated path is test
// code. It is the one rule for "is this a test": ingest stores its answer
// on every File and symbol node (property isTest), and everything
// downstream (entry points, ranking, impact) reads it from there.
//
// Test code is, in any language we index:
//   - anything under a directory named test, tests, __tests__, testing,
//     testdata, spec or e2e (any case);
//   - a file whose name without its extension ends in _test, .test, .spec
//     or _spec, or starts with test_ (x_test.go, test_x.py, test_x.js,
//     a.test.ts, a.spec.js, x_spec.rb), or is conftest or tests;
//   - in Java, C#, Kotlin, Scala, Swift and PHP, a file whose name ends in
//     Test or Tests before the extension, capital T (FooTest.java,
//     FooTests.cs, FooTest.php; not Latest.java).
func IsTestPath(path string) bool {
	p := strings.ToLower(path)
	dirs := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dirs = p[:i]
	} else {
		dirs = ""
	}
	for dirs != "" {
		seg := dirs
		if i := strings.IndexByte(dirs, '/'); i >= 0 {
			seg, dirs = dirs[:i], dirs[i+1:]
		} else {
			dirs = ""
		}
		if testDirs[seg] {
			return true
		}
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	stem, ext := base, ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		stem, ext = base[:i], strings.ToLower(base[i+1:])
	}
	lstem := strings.ToLower(stem)
	switch {
	case strings.HasSuffix(lstem, "_test"), strings.HasPrefix(lstem, "test_"),
		strings.HasSuffix(lstem, ".test"), strings.HasSuffix(lstem, ".spec"),
		strings.HasSuffix(lstem, "_spec"), lstem == "tests", lstem == "conftest":
		return true
	}
	switch ext {
	case "java", "cs", "kt", "scala", "swift", "php":
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests")
	}
	return false
}
