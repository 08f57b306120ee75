// Command runpath sets the run-time library search path of an ELF
// executable to exactly $ORIGIN, in place.
//
// Why: go-kuzu's cgo directives bake the module cache's lib directory into
// the binary's RUNPATH, and a Makefile that lets the shell expand $ORIGIN
// leaves an empty entry, which the dynamic loader reads as the current
// directory: any repository holding a libkuzu.so would then run its code in
// every command started inside it. The binary must find its libraries
// beside itself and nowhere else.
//
// The new string is never longer than the old one ("$ORIGIN" against a
// path into the module cache), so it is written over the old one in
// .dynstr, padded with NULs; no section moves. DT_RPATH, if the linker wrote
// one, gets the same treatment.
//
//	go run ./scripts/runpath bin/gitnexus
package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
)

const want = "$ORIGIN"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: runpath ELF-FILE")
		os.Exit(2)
	}
	if err := set(os.Args[1], want); err != nil {
		fmt.Fprintln(os.Stderr, "runpath:", err)
		os.Exit(1)
	}
}

func set(path, value string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 {
		return errors.New("only 64-bit ELF files are supported")
	}
	dyn := f.Section(".dynamic")
	dynstr := f.Section(".dynstr")
	if dyn == nil || dynstr == nil {
		return errors.New("no .dynamic or .dynstr section: not a dynamically linked executable")
	}
	data, err := dyn.Data()
	if err != nil {
		return fmt.Errorf("read .dynamic: %w", err)
	}
	strs, err := dynstr.Data()
	if err != nil {
		return fmt.Errorf("read .dynstr: %w", err)
	}
	out, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	found := false
	for i := 0; i+16 <= len(data); i += 16 {
		tag := elf.DynTag(f.ByteOrder.Uint64(data[i:]))
		if tag == elf.DT_NULL {
			break
		}
		if tag != elf.DT_RUNPATH && tag != elf.DT_RPATH {
			continue
		}
		off := f.ByteOrder.Uint64(data[i+8:])
		if off >= uint64(len(strs)) {
			out.Close()
			return fmt.Errorf("%v points outside .dynstr", tag)
		}
		end := off
		for end < uint64(len(strs)) && strs[end] != 0 {
			end++
		}
		if int(end-off) < len(value) {
			out.Close()
			return fmt.Errorf("%v %q is shorter than %q: cannot rewrite in place", tag, strs[off:end], value)
		}
		buf := make([]byte, end-off)
		copy(buf, value)
		if _, err := out.WriteAt(buf, int64(dynstr.Offset+off)); err != nil {
			out.Close()
			return fmt.Errorf("write %v: %w", tag, err)
		}
		found = true
	}
	if err := out.Close(); err != nil {
		return err
	}
	if !found {
		return errors.New("no DT_RUNPATH or DT_RPATH entry: build with -ldflags '-r $ORIGIN'")
	}
	return nil
}
