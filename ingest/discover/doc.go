// Package discover decides which files of a repository gitnexus indexes.
//
// # Which files are considered
//
// Inside a git work tree (root, or root's parent directories, hold a
// repository) discovery asks git itself:
//
//	git ls-files -z --stage                        # tracked files
//	git ls-files -z --others --exclude-standard    # untracked, not ignored
//
// (with GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE and their kin removed from
// the environment, so that running inside a git hook cannot point git at
// another repository), so the set is exactly git's: nested .gitignore files, .git/info/exclude
// and core.excludesFile all apply, tracked files are in even when an ignore
// rule matches them, and untracked files that no rule ignores are in too.
// When root is a subdirectory of a work tree only the files below it are
// listed, and paths are relative to root. Tracked files deleted from the
// work tree count as "vanished", submodules (gitlinks) and untracked
// nested repositories as "submodule", symlinks as "symlink".
//
// Outside git, or when the git binary is missing or fails on the
// repository (unsafe ownership, a corrupt index: logged as a warning), discovery walks the tree itself and honours every
// .gitignore file with a matcher that follows git's own (wildmatch.c and
// dir.c, ported): negation "!", directory-only "dir/", anchoring by a
// leading or inner "/", "*", "?", "[a-z]", "[!x]", "[[:alpha:]]", "**/",
// "/**", "/**/", "\" escapes ("\#", "\!", "\ "), trailing spaces, CRLF
// lines and a UTF-8 BOM. Nothing inside an ignored directory comes back,
// as in git. The walk never follows a symbolic link (so loops cannot
// happen) and skips .git. It does not read info/exclude or
// core.excludesFile: without git there is no way to know them.
//
// Ignored files (by git or by .gitignore) are not "skipped": they were
// never candidates and are not counted.
//
// # gitnexus's own exclusions
//
// On top of that view, in both modes:
//
//   - DefaultExcludes drop vendored, generated and build-output code
//     (node_modules/, vendor/, third_party/, /dist/, lock files, *.min.js,
//     ...; see the variable for the list and the reasons behind it).
//     Options.NoDefaultExcludes turns them off, Options.Includes brings
//     parts back ("vendor/", "third_party/forked/").
//   - .gitnexusignore files (IgnoreFileName), gitignore syntax, in any
//     directory, each relative to its own directory; a deeper file wins
//     over a shallower one. A "!" line naming a default-excluded directory
//     ("!vendor/") brings it back.
//   - Options.Excludes (--exclude), gitignore syntax relative to root; they
//     win over .gitnexusignore files.
//
// The precise layering is documented on filter (filter.go). In git mode a
// .gitnexusignore that git itself ignores is read only at the root; one
// inside an excluded directory is never read. .git and .gitnexus (the
// index) are always left out and never counted.
//
// # Per-file checks
//
// Every remaining file is checked by a small pool of workers: a path
// that is not valid UTF-8 is skipped as "bad_name" (the index stores
// paths as UTF-8 text), then lstat
// (symlinks and non-regular files are skipped), the size cap
// (Options.MaxFileSize, default DefaultMaxFileSize = 1 MiB, from the stat,
// before any read), then its first SniffSize (8 KiB) bytes are read and a
// NUL byte marks it "binary" (IsBinary, git's test). The language comes
// from lang.Detect; "" when no registered grammar claims the file (such
// files are still listed). A file with a language is then judged by
// content (Sniff): lines averaging MinifiedAverage (300) bytes or more in
// its first or last 8 KiB make it "minified" (a bundle whatever its name),
// a generated-code marker in the comment block it starts with
// ("// Code generated ... DO NOT EDIT.", "@generated") makes it
// "generated". Like the default excludes, these checks are lifted by
// Options.Includes (or a "!" .gitnexusignore rule) matching the path and
// by Options.NoDefaultExcludes.
//
// # Counting
//
// Result.Skipped counts files left out by reason (the Reason constants) and
// Result.Examples keeps up to 5 example paths per reason; a directory
// excluded as a whole appears there once with a trailing "/". In git mode
// the counts are exact, because git lists every file. In walk mode an
// excluded directory is not descended into for indexing; its files are
// counted with a quick listing that ignores rules inside it and stops at
// 10,000 per directory (countCap), so counts for huge directories like
// node_modules are approximate (a lower bound). An unreadable or vanished
// directory counts once.
//
// Result.TopRules names the rules that kept the most files out ("a/.gitignore:3",
// "default exclude vendor/", "--exclude docs/") with their counts, and
// Result.Ignored counts the files ignore rules hid (walk mode always; git
// mode when no source file was found, by asking git): when nothing is
// left to index, the caller can say which rule did it.
//
// # Failures
//
// Unreadable files, files that vanish mid-run, symlink loops and special
// files never stop discovery: they are counted. Discover fails only when
// root itself cannot be resolved or listed, on a bad pattern in Options,
// and when ctx is cancelled (the error wraps ctx.Err()).
package discover
