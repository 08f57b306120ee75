package discover

// DefaultExcludes are the gitignore-syntax patterns for vendored, generated
// and build-output code that discovery leaves out unless
// Options.NoDefaultExcludes is set. Options.Includes, or a "!" line in a
// .gitnexusignore, brings any of them back. Files they drop are counted
// under ReasonDefaultExclude.
//
// Choices worth knowing:
//
//   - Dependency and tool directories (node_modules/, vendor/, ...) match at
//     any depth: nobody names a source package node_modules.
//   - third_party/ is excluded too. By convention it holds copies of other
//     projects (Chromium, TensorFlow, gRPC); Kubernetes keeps forked Go
//     standard-library pieces there that its own code calls, so a call
//     graph of Kubernetes gains a little from --include third_party/, at
//     the cost of indexing code that is not the project's own.
//   - Build outputs (dist, build, out, target, coverage) are anchored to the
//     root: a Go package may well be called build (docker/cli has
//     cli/command/image/build) or coverage (Go's internal/coverage), and
//     nested build outputs are almost always gitignored anyway.
//   - Minified bundles, source maps and lock files match at any depth.
//
// .git and .gitnexus (the index itself) are not in this list: they are
// always skipped, whatever the options, and not counted.
var DefaultExcludes = []string{
	// Dependencies and vendored code.
	"node_modules/",
	"bower_components/",
	"jspm_packages/",
	"vendor/",
	"third_party/",
	// Python environments and caches.
	"__pycache__/",
	".venv/",
	"venv/",
	".tox/",
	".mypy_cache/",
	".pytest_cache/",
	// Framework build caches.
	".next/",
	".nuxt/",
	".svelte-kit/",
	".gradle/",
	// Build outputs, at the root only.
	"/dist/",
	"/build/",
	"/out/",
	"/target/",
	"/coverage/",
	// Minified bundles and source maps.
	"*.min.js",
	"*.min.css",
	"*.bundle.js",
	"*.map",
	// Lock files.
	"package-lock.json",
	"npm-shrinkwrap.json",
	"yarn.lock",
	"pnpm-lock.yaml",
	"bun.lockb",
	"Cargo.lock",
	"poetry.lock",
	"Pipfile.lock",
	"composer.lock",
	"Gemfile.lock",
	"go.sum",
}
